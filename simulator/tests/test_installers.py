"""`ascend-sim artifacts` and the simulated .run installers it builds, run into a temporary root.

Every installer run sets ASCEND_SIM_ROOT to the test's node directory, so nothing outside it is
touched; the tests run as root, as the installers require.
"""

import argparse
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest
import yaml
from ascend_sim import installers

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests/fixtures/versions"
DRIVER = "Ascend-hdk-910b-npu-driver_25.5.1_linux-x86-64.run"
FIRMWARE = "Ascend-hdk-910b-npu-firmware_7.8.0.6.201.run"
TOOLKIT = "Ascend-cann-toolkit_8.5.1_linux-x86_64.run"
OPS = "Ascend-cann-910b-ops_8.5.1_linux-x86_64.run"
NNAL = "Ascend-cann-nnal_8.5.1_linux-x86_64.run"
TOOLKIT_83 = "Ascend-cann-toolkit_8.3.RC2_linux-x86_64.run"
ASCEND = "usr/local/Ascend"
# A release of the <=8.3 generation (old toolkit layout); the wheel entry must be skipped.
RELEASE_83 = {"name": "t83", "versions": {"driver": "25.2.0", "firmware": "7.7.0.9.220"},
              "artifacts": [
                  {"component": "driver", "version": "25.2.0",
                   "files": {"x86_64": "Ascend-hdk-910b-npu-driver_25.2.0_linux-x86-64.run"}},
                  {"component": "toolkit", "version": "8.3.RC2", "files": {"x86_64": TOOLKIT_83}},
                  {"component": "kernels", "version": "8.3.RC2",
                   "files": {"x86_64": "Ascend-cann-kernels-910b_8.3.RC2_linux-x86_64.run"}},
                  {"component": "torch_npu", "version": "2.7.1", "files": {"x86_64": "t.whl"}}]}
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the installers run as root")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The .run files of releases/v0.18.0.yml and of RELEASE_83, built once into one directory."""
    out = tmp_path_factory.mktemp("artifacts")
    release = installers.load_release(REPO / "releases/v0.18.0.yml")
    installers.build_artifacts(RELEASE_83, out / "83", "x86_64")
    installers.build_artifacts(release, out, "x86_64")
    for path in (out / "83").glob("*.run"):
        path.rename(out / path.name)
    return out


class Node:
    """A simulated node root with HwHiAiUser, kernel headers and stub gcc/make/dkms."""

    def __init__(self, root, runs):
        self.root, self.runs = root, runs
        (root / "etc").mkdir(parents=True)
        (root / "etc/passwd").write_text("root:x:0:0::/root:/bin/bash\n"
                                         "HwHiAiUser:x:1000:1000::/home/HwHiAiUser:/bin/bash\n")
        (root / "etc/group").write_text("root:x:0:\nHwHiAiUser:x:1000:\n")
        (root / "lib/modules" / os.uname().release / "build").mkdir(parents=True)
        self.bin = root.parent / "stub-bin"
        self.bin.mkdir()
        for tool in ("gcc", "make", "dkms"):
            (self.bin / tool).write_text("#!/bin/sh\nexit 0\n")
            (self.bin / tool).chmod(0o755)
        self.env = dict(os.environ, ASCEND_SIM_ROOT=str(root),
                        PATH=f"{self.bin}:{os.environ['PATH']}")
        for name in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"):
            self.env.pop(name, None)

    def run(self, name, *args, env=None, stdin=subprocess.DEVNULL):
        return subprocess.run(["bash", str(self.runs / name), *args], env=env or self.env,
                              stdin=stdin, capture_output=True, text=True, timeout=60)

    def path(self, relative):
        return self.root / relative

    def text(self, relative):
        return self.path(relative).read_text()

    def source(self, *scripts):
        """The environment after sourcing scripts (paths relative to the root) in bash."""
        sources = "; ".join(f"source {self.root / script}" for script in scripts)
        out = subprocess.run(["bash", "-c", f"{sources}; env -0"], env=self.env, check=True,
                             capture_output=True, text=True).stdout
        return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)

    def faults(self, *components):
        state = self.path("var/lib/ascend-sim/state.json")
        state.parent.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps({"installer_faults": list(components)}))

    def snapshot(self):
        """Everything under the root but the logs, as (path, link target or size)."""
        entries = ((str(p.relative_to(self.root)), p) for p in self.root.rglob("*"))
        return sorted((name, os.readlink(p) if p.is_symlink() else
                       p.stat().st_size if p.is_file() else None)
                      for name, p in entries if name != "var" and not name.startswith("var/log"))


@pytest.fixture
def node(tmp_path, runs):
    return Node(tmp_path / "root", runs)


def keys(text):
    return [line.split("=", 1)[0] for line in text.splitlines() if "=" in line]


def fixture_block(name, start, end_marker=""):
    """Lines of a fixture file after the line containing start, up to a blank or marker line."""
    lines = (FIXTURES / name).read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if start in line) + 1
    block = []
    for line in lines[first:]:
        if not line.strip() or (end_marker and line.startswith(end_marker)):
            break
        block.append(line)
    return "\n".join(block)


def test_build_writes_the_real_names_and_sha256sums(tmp_path):
    release = installers.load_release(REPO / "releases/v0.18.0.yml")
    for arch in installers.ARCHES:
        names = installers.build_artifacts(release, tmp_path / arch, arch)
        expected = sorted(a["files"][arch] for a in release["artifacts"]
                          if a["component"] in installers.TREES)
        assert names == expected
        sums = (tmp_path / arch / "SHA256SUMS").read_text().splitlines()
        assert sums == [f"{hashlib.sha256((tmp_path / arch / n).read_bytes()).hexdigest()}  {n}"
                        for n in names]
    assert installers.build_artifacts(RELEASE_83, tmp_path / "83", "x86_64") == sorted(
        a["files"]["x86_64"] for a in RELEASE_83["artifacts"] if a["component"] != "torch_npu")


def test_builds_are_deterministic(tmp_path, monkeypatch):
    # Offline: the release's wheels without their sha256 pins, and no index to download from,
    # so the real vllm-ascend wheel is replaced by its stand-in (tests reach nothing outside).
    from ascend_sim import wheels

    monkeypatch.setattr(wheels, "_pip_download", lambda *args: (False, "offline test"))
    monkeypatch.setenv("ASCEND_SIM_WHEEL_CACHE", str(tmp_path / "wheel-cache"))
    release = yaml.safe_load((REPO / "releases/v0.18.0.yml").read_text())
    for artifact in release["artifacts"]:
        artifact.pop("sha256", None)
    release_file = tmp_path / "release.yml"
    release_file.write_text(yaml.safe_dump(release))
    parser = argparse.ArgumentParser()
    installers.register(parser.add_subparsers())
    for out in ("a", "b"):
        args = parser.parse_args(["artifacts", "--release", str(release_file),
                                  "--out", str(tmp_path / out), "--arch", "aarch64"])
        assert args.func(args) == 0
    assert (tmp_path / "a/SHA256SUMS").read_bytes() == (tmp_path / "b/SHA256SUMS").read_bytes()
    args = parser.parse_args(["artifacts", "--release", str(release_file),
                              "--out", str(tmp_path / "c"), "--arch", "ppc64le"])
    assert args.func(args) == 1


def test_check_verifies_the_payload_and_a_corrupt_file_installs_nothing(node, tmp_path):
    result = node.run(DRIVER, "--check")
    assert result.returncode == 0
    assert result.stdout == ("Verifying archive integrity...  100%   "
                             "SHA256 checksums are OK. All good.\n")
    broken = bytearray((node.runs / DRIVER).read_bytes())
    broken[-200] ^= 0xFF
    (tmp_path / DRIVER).write_bytes(broken)
    before = node.snapshot()
    for args in (["--check"], ["--full", "--quiet"]):
        result = subprocess.run(["bash", str(tmp_path / DRIVER), *args], env=node.env,
                                capture_output=True, text=True)
        assert result.returncode == 2 and "Error in SHA256 checksums" in result.stderr
    assert node.snapshot() == before


def test_fresh_driver_then_firmware(node):
    result = node.run(DRIVER, "--nox11", "--full", "--quiet", "--install-username=HwHiAiUser",
                      "--install-usergroup=HwHiAiUser")
    assert result.returncode == 0, result.stdout
    assert re.search(r"^\[Driver\] \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] \[INFO\]Driver package "
                     r"installed successfully! Reboot needed for installation/upgrade to take "
                     r"effect!", result.stdout, re.M)
    driver_info = node.text(f"{ASCEND}/driver/version.info")
    real = fixture_block("version.cfg-and-latest-layout-samples.txt", "driver/version.info")
    assert keys(driver_info) == keys(real)
    assert "Version=25.5.1\n" in driver_info and "package_version=25.5.1\n" in driver_info
    assert "compatible_version_fw=[7.0.0,7.8.99]\n" in driver_info
    assert node.path(f"{ASCEND}/driver/lib64/driver/libascend_hal.so").is_file()
    wrapper = node.text("usr/local/sbin/npu-smi")
    assert wrapper == '#!/bin/sh\nexec /opt/ascend-sim/bin/npu-smi "$@"\n'

    result = node.run(FIRMWARE, "--full")
    assert result.returncode == 0, result.stdout
    assert "[INFO]The firmware of [8] chips are successfully upgraded." in result.stdout
    assert "[INFO]Firmware package installed successfully!" in result.stdout
    firmware_info = node.text(f"{ASCEND}/firmware/version.info")
    real = fixture_block("mind-cluster-faultdiag-driver-firmware-cann-version-files.txt",
                         "firmware/version.info")
    assert keys(firmware_info) == keys(real)
    assert "Version=7.8.0.6.201\n" in firmware_info
    assert "compatible_version_drv=[25.5.1,25.5.1.]\n" in firmware_info
    real = fixture_block("hdk-driver-firmware-install-output-910A-24.1.0.txt", "cat /etc/ascend")
    assert keys(node.text("etc/ascend_install.info")) == keys(real)
    assert "Driver_Install_Path_Param=/usr/local/Ascend\nDriver_Install_For_All=no\n" in \
        node.text("etc/ascend_install.info")
    tool = subprocess.run([str(node.path(f"{ASCEND}/driver/tools/upgrade-tool")), "--device_index",
                           "0", "--component", "-1", "--version"], env=node.env,
                          capture_output=True, text=True)
    assert "Get component version(7.8.0.6.201) succeed for deviceId(0), componentType(0)." \
        in tool.stdout
    operations = node.text("var/log/ascend_seclog/operation.log").splitlines()
    assert [line.split()[:3] for line in operations] == [["Install", "SUGGESTION", "root"]] * 2
    assert "upgradePercentage:100%" in node.text("var/log/ascend_seclog/ascend_install.log")


def test_reinstall_upgrade_and_uninstall_script(node):
    assert node.run(DRIVER, "--full", "--install-for-all").returncode == 0
    assert node.run(FIRMWARE, "--full").returncode == 0
    result = node.run(DRIVER, "--full")
    assert result.returncode == 1 and ("Driver package has been installed on the path "
                                       "/usr/local/Ascend, the version is 25.5.1") in result.stdout
    result = node.run(DRIVER, "--nox11", "--upgrade", "--quiet")
    assert result.returncode == 2 and "Driver package upgraded successfully!" in result.stdout
    assert "Driver_Install_For_All=yes" in node.text("etc/ascend_install.info")
    assert node.run(FIRMWARE, "--upgrade", "--quiet").returncode == 2
    result = subprocess.run([str(node.path(f"{ASCEND}/driver/script/uninstall.sh"))],
                            env=node.env, capture_output=True, text=True)
    assert result.returncode == 0 and "Driver package uninstalled successfully!" in result.stdout
    assert not node.path(f"{ASCEND}/driver").exists()
    assert not node.path("usr/local/sbin/npu-smi").exists()
    assert keys(node.text("etc/ascend_install.info")) == [
        "UserName", "UserGroup", "Firmware_Install_Type", "Firmware_Install_Path_Param"]


def curated_path(tmp_path):
    """A PATH directory with what the installers need, but no gcc, make or dkms."""
    bin_dir = tmp_path / "bare-bin"
    bin_dir.mkdir()
    for tool in ("bash", "sh", "tail", "sha256sum", "cut", "mktemp", "tar", "gzip", "rm", "mkdir",
                 "cat", "date", "id", "sed", "awk", "grep", "cp", "mv", "ln", "chmod", "dirname",
                 "readlink", "uname", "head", "sort", "rmdir", "basename", "env"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    (bin_dir / "python3").symlink_to(os.path.realpath(sys.executable))
    return str(bin_dir)


@pytest.mark.parametrize("case, message", [
    ("nothing-installed", "Driver package is not installed on this device, upgrade failed"),
    ("no-user", "ERR_NO:0x0091;ERR_DES:HwHiAiUser not exists! Please add HwHiAiUser"),
    ("no-headers", "[ERROR]Dkms install failed, details in : /var/log/ascend_seclog/"),
    ("no-tools", "[ERROR]The list of missing tools: gcc,make,dkms,"),
    ("unknown-flag", "ERR_DES: Unrecognized parameters: --fulll."),
    ("non-root", "ERR_NO:0x0093;ERR_DES:do not have root permission"),
])
def test_driver_refusals(node, tmp_path, case, message):
    args, env, command, run = ["--full", "--quiet"], dict(node.env), ["bash"], node.runs / DRIVER
    if case == "nothing-installed":
        args = ["--upgrade", "--quiet"]
    elif case == "no-user":
        node.path("etc/passwd").write_text("root:x:0:0::/root:/bin/bash\n")
    elif case == "no-headers":
        shutil.rmtree(node.path("lib/modules"))
    elif case == "no-tools":
        env["PATH"] = curated_path(tmp_path)
    elif case == "unknown-flag":
        args = ["--fulll"]
    elif shutil.which("setpriv"):
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash"]
        run = pathlib.Path(tempfile.mkdtemp()) / DRIVER  # nobody cannot read tmp_path
        run.parent.chmod(0o755)
        shutil.copy(node.runs / DRIVER, run)
    else:
        pytest.skip("setpriv is needed to run as another user")
    before = node.snapshot()
    try:
        result = subprocess.run([*command, str(run), *args], env=env, capture_output=True,
                                text=True, stdin=subprocess.DEVNULL)
    finally:
        if case == "non-root":
            shutil.rmtree(run.parent)
    assert result.returncode == 1
    assert message in result.stdout
    assert node.snapshot() == before


@pytest.mark.parametrize("component", ["driver", "firmware", "toolkit", "kernels", "nnal"])
def test_fault_injection_fails_midway_and_leaves_nothing(node, component):
    if component != "driver":
        assert node.run(DRIVER, "--full").returncode == 0
    if component in ("kernels", "nnal"):
        assert node.run(TOOLKIT, "--install").returncode == 0
    node.faults(component)
    before = node.snapshot()
    name = {"driver": DRIVER, "firmware": FIRMWARE, "toolkit": TOOLKIT, "kernels": OPS,
            "nnal": NNAL}[component]
    env = node.source(f"{ASCEND}/ascend-toolkit/set_env.sh") if component == "nnal" else None
    result = node.run(name, "--full" if component in ("driver", "firmware") else "--install",
                      env=env)
    assert result.returncode == 1
    assert "[ERROR]" in result.stdout and "---- last lines of /var/log/ascend_seclog/" in \
        result.stdout and "fault injected through installer_faults" in result.stdout
    assert node.snapshot() == before


def test_failed_driver_upgrade_keeps_the_old_driver(node):
    assert node.run("Ascend-hdk-910b-npu-driver_25.2.0_linux-x86-64.run", "--full").returncode == 0
    node.faults("driver")
    assert node.run(DRIVER, "--upgrade", "--quiet").returncode == 1
    assert "Version=25.2.0\n" in node.text(f"{ASCEND}/driver/version.info")


def test_cann_8_5_layout_kernels_nnal_and_environment(node):
    result = node.run(OPS, "--install")
    assert result.returncode == 1 and "Ascend-cann-toolkit 8.5.1 is not installed" in result.stdout
    result = node.run(TOOLKIT, "--upgrade", "--quiet")
    assert result.returncode == 1 and "upgrade failed" in result.stdout
    result = node.run(TOOLKIT, "--install", "--quiet", "--install-for-all")
    assert result.returncode == 0 and "Ascend-cann-toolkit install success" in result.stdout
    root = node.root / ASCEND
    assert os.readlink(root / "cann") == "cann-8.5.1"
    assert os.readlink(root / "ascend-toolkit/latest") == "/usr/local/Ascend/cann"
    info = node.text(f"{ASCEND}/cann-8.5.1/x86_64-linux/ascend_toolkit_install.info")
    real = fixture_block("ascend_toolkit_install.info-samples.txt", "(CANN 8.5.0 official")
    assert keys(info) == keys(real)
    assert "version=8.5.1\n" in info and "path=/usr/local/Ascend/cann-8.5.1/x86_64-linux\n" in info
    assert node.run(OPS, "--install").returncode == 0
    assert (root / "cann-8.5.1/opp/built-in/op_impl/ai_core/tbe/kernel/ascend910b").is_dir()
    result = node.run(NNAL, "--install")
    assert result.returncode == 1 and "please run 'source" in result.stdout.lower()
    env = node.source(f"{ASCEND}/ascend-toolkit/set_env.sh")
    home = str(root / "cann-8.5.1")
    assert {k: env[k] for k in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_AICPU_PATH",
                                "ASCEND_OPP_PATH", "TOOLCHAIN_HOME")} == {
        "ASCEND_TOOLKIT_HOME": home, "ASCEND_HOME_PATH": home, "ASCEND_AICPU_PATH": home,
        "ASCEND_OPP_PATH": f"{home}/opp", "TOOLCHAIN_HOME": f"{home}/toolkit"}
    assert f"{home}/lib64:" in env["LD_LIBRARY_PATH"]
    assert f"{root}/driver/lib64:" in env["LD_LIBRARY_PATH"]
    assert env["PYTHONPATH"].startswith(f"{home}/python/site-packages:")
    assert env["PATH"].startswith(f"{home}/bin:")
    result = node.run(NNAL, "--install", env=env)
    assert result.returncode == 0, result.stdout
    assert os.readlink(root / "nnal/atb/latest") == "8.5.1"
    real = fixture_block("version.cfg-and-latest-layout-samples.txt", "nnal/atb/latest/version")
    ours = node.text(f"{ASCEND}/nnal/atb/latest/version.info")
    assert [line.split(":")[0] for line in ours.splitlines()] == \
        [line.split(":")[0] for line in real.splitlines()]
    env = node.source(f"{ASCEND}/ascend-toolkit/set_env.sh", f"{ASCEND}/nnal/atb/set_env.sh")
    assert env["ATB_HOME_PATH"] == f"{root}/nnal/atb/latest/atb/cxx_abi_1"
    assert env["LD_LIBRARY_PATH"].startswith(f"{env['ATB_HOME_PATH']}/lib:")
    assert (pathlib.Path(env["ATB_HOME_PATH"]) / "lib/libatb.so").is_file()


def test_cann_versions_side_by_side_and_latest(node):
    assert node.run(TOOLKIT_83, "--install", "--quiet").returncode == 0
    assert node.run("Ascend-cann-kernels-910b_8.3.RC2_linux-x86_64.run", "--install",
                    "--quiet").returncode == 0
    toolkit = node.root / ASCEND / "ascend-toolkit"
    assert os.readlink(toolkit / "latest") == "8.3.RC2"
    assert (toolkit / "latest/x86_64-linux/ascend_toolkit_install.info").is_file()
    env = node.source(f"{ASCEND}/ascend-toolkit/set_env.sh")
    assert env["ASCEND_TOOLKIT_HOME"] == env["ASCEND_HOME_PATH"] == str(toolkit / "latest")
    cfg = node.text(f"{ASCEND}/ascend-toolkit/latest/version.cfg")
    real = fixture_block("version.cfg-and-latest-layout-samples.txt", "latest/version.cfg")
    assert keys(cfg) == keys(real)
    assert "opp_kernel_running_version=[8.3.0.2.220:8.3.RC2]\n" in cfg

    assert node.run(TOOLKIT, "--install", "--quiet").returncode == 0
    assert os.readlink(toolkit / "latest") == "/usr/local/Ascend/cann"
    assert (toolkit / "8.3.RC2").is_dir()
    assert "toolkit_installed_version=[8.3.0.2.220:8.3.RC2][8.5.1.0.220:8.5.1]\n" in \
        node.text(f"{ASCEND}/cann-8.5.1/version.cfg")
    result = node.run(TOOLKIT_83, "--install", "--quiet")
    assert result.returncode == 0 and "is already installed in" in result.stdout
    assert os.readlink(toolkit / "latest") == "/usr/local/Ascend/cann"

    script = node.path(f"{ASCEND}/cann-8.5.1/x86_64-linux/script/uninstall.sh")
    assert subprocess.run([str(script)], env=node.env, capture_output=True).returncode == 0
    assert os.readlink(toolkit / "latest") == "8.3.RC2"
    assert not node.path(f"{ASCEND}/cann").exists()
    assert node.source(f"{ASCEND}/ascend-toolkit/set_env.sh")["ASCEND_TOOLKIT_HOME"] == \
        str(toolkit / "latest")


@pytest.mark.parametrize("args, message", [
    (["--quiet"], "please specify install type!"),
    (["--install", "--bogus"], "Unrecognized parameters: --bogus."),
])
def test_cann_argument_refusals(node, args, message):
    result = node.run(TOOLKIT, *args)
    assert result.returncode == 1 and message in result.stdout
