"""The wheels `ascend-sim artifacts` puts next to the installers: stand-ins built here and the real
vllm-ascend wheel from the index, checked against the release's sha256.

Everything but test_real_vllm_ascend_wheel_matches_the_published_sha256 runs offline: the index
is replaced by a function that fails, or by a cache seeded with a file.
"""

import copy
import email.parser
import hashlib
import io
import json
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest
from ascend_sim import installers, wheels

REPO = pathlib.Path(__file__).resolve().parents[2]
RELEASE = installers.load_release(REPO / "releases/v0.18.0.yml")
STANDINS = ("torch", "torch_npu", "vllm", "triton_ascend")
X86_FILES = {
    "torch": "torch-2.9.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl",
    "torch_npu": "torch_npu-2.9.0-cp311-cp311-manylinux_2_28_x86_64.whl",
    "vllm": "vllm-0.18.0-cp38-abi3-manylinux_2_31_x86_64.whl",
    "vllm_ascend": "vllm_ascend-0.18.0-cp311-cp311-manylinux_2_24_x86_64.whl",
    "triton_ascend":
        "triton_ascend-3.2.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
}


def offline(monkeypatch):
    """Make every index download fail as an index without the wheel does."""
    monkeypatch.setattr(wheels, "_pip_download",
                        lambda *args: (False, "ERROR: No matching distribution found"))


def unpinned(release):
    """The release without the vllm_ascend sha256 pins (an sdist-only release)."""
    release = copy.deepcopy(release)
    for artifact in release["artifacts"]:
        artifact.pop("sha256", None)
    return release


def members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def metadata(data, dist_info):
    return email.parser.Parser().parsestr(members(data)[f"{dist_info}/METADATA"].decode())


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_standins_are_deterministic_and_named_as_the_release_names_them(arch):
    for component in (*STANDINS, "vllm_ascend"):
        name, first = wheels.build_standin(RELEASE, component, arch)
        assert name == next(a["files"][arch] for a in RELEASE["artifacts"]
                            if a["component"] == component)
        assert wheels.build_standin(RELEASE, component, arch)[1] == first


def test_metadata_mirrors_the_real_pins():
    torch_npu = metadata(wheels.build_standin(RELEASE, "torch_npu", "x86_64")[1],
                         "torch_npu-2.9.0.dist-info")
    assert (torch_npu["Name"], torch_npu["Version"]) == ("torch_npu", "2.9.0")
    assert torch_npu.get_all("Requires-Dist") == ["torch==2.9.0+cpu"]
    arm = metadata(wheels.build_standin(RELEASE, "torch_npu", "aarch64")[1],
                   "torch_npu-2.9.0.dist-info")
    assert arm.get_all("Requires-Dist") == ["torch==2.9.0"]
    vllm = metadata(wheels.build_standin(RELEASE, "vllm", "x86_64")[1], "vllm-0.18.0.dist-info")
    assert vllm.get_all("Requires-Dist") == ["torch==2.10.0"]  # PyPI vllm 0.18.0's pin
    assert "stand-in" in vllm["Summary"]
    torch = metadata(wheels.build_standin(RELEASE, "torch", "x86_64")[1],
                     "torch-2.9.0+cpu.dist-info")
    assert torch["Version"] == "2.9.0+cpu"
    plugin = metadata(wheels.build_standin(RELEASE, "vllm_ascend", "x86_64")[1],
                      "vllm_ascend-0.18.0.dist-info")
    assert plugin.get_all("Requires-Dist") == [
        "torch==2.9.0", "torch-npu==2.9.0", "triton-ascend==3.2.0"]


def test_wheel_and_record_are_valid():
    data = wheels.build_standin(RELEASE, "triton_ascend", "x86_64")[1]
    files = members(data)
    dist_info = "triton_ascend-3.2.0.dist-info"
    assert list(files)[-1] == f"{dist_info}/RECORD"
    wheel = files[f"{dist_info}/WHEEL"].decode()
    assert "Root-Is-Purelib: false\n" in wheel
    assert wheel.count("Tag: cp311-cp311-manylinux_2_2") == 2
    record = files[f"{dist_info}/RECORD"].decode().splitlines()
    assert record[-1] == f"{dist_info}/RECORD,,"
    for line in record[:-1]:
        path, digest, size = line.split(",")
        assert digest == wheels._record_hash(files[path]) and int(size) == len(files[path])
    assert len(record) == len(files)
    build_tag = wheels.build_wheel("vllm-0.23.0-2-cp38-abi3-manylinux_2_28_x86_64.whl",
                                   {"vllm/__init__.py": ""}, [], "s")
    assert "Build: 2\n" in members(build_tag)["vllm-0.23.0.dist-info/WHEEL"].decode()


def test_build_wheels_adds_them_to_sha256sums(tmp_path, monkeypatch, capsys):
    offline(monkeypatch)
    out = tmp_path / "out"
    installers.build_artifacts(RELEASE, out, "x86_64")
    names = wheels.build_wheels(unpinned(RELEASE), out, "x86_64", cache_dir=tmp_path / "cache")
    assert names == sorted(X86_FILES.values())
    assert "vllm-ascend==0.18.0: no wheel" in capsys.readouterr().err
    lines = (out / "SHA256SUMS").read_text().splitlines()
    sums = dict(reversed(line.split("  ")) for line in lines)
    assert len(sums) == 10  # 5 installers + 5 wheels
    for name in names:
        assert sums[name] == hashlib.sha256((out / name).read_bytes()).hexdigest()


def test_a_pinned_wheel_comes_from_the_cache_and_must_match(tmp_path, monkeypatch):
    offline(monkeypatch)
    release = copy.deepcopy(RELEASE)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / X86_FILES["vllm_ascend"]).write_bytes(b"the published wheel")
    plugin = next(a for a in release["artifacts"] if a["component"] == "vllm_ascend")
    plugin["sha256"]["x86_64"] = hashlib.sha256(b"the published wheel").hexdigest()
    wheels.build_wheels(release, tmp_path / "out", "x86_64", cache_dir=cache)
    assert (tmp_path / "out" / X86_FILES["vllm_ascend"]).read_bytes() == b"the published wheel"
    plugin["sha256"]["x86_64"] = "0" * 64
    with pytest.raises(wheels.WheelError, match=r"has sha256 .* the release pins 0000"):
        wheels.build_wheels(release, tmp_path / "out", "x86_64", cache_dir=cache)
    with pytest.raises(wheels.WheelError, match="pins its sha256, but pip could not download"):
        wheels.build_wheels(release, tmp_path / "out", "x86_64", cache_dir=tmp_path / "empty")


def test_real_vllm_ascend_wheel_matches_the_published_sha256(tmp_path):
    cache = os.environ.get("ASCEND_SIM_WHEEL_CACHE") or wheels.DEFAULT_CACHE
    try:
        data = wheels.fetch_wheel("vllm-ascend", "0.18.0", X86_FILES["vllm_ascend"],
                                  wheels.release_wheel(RELEASE, "vllm_ascend", "x86_64")[2], cache)
    except wheels.WheelError as error:
        if "could not download" in str(error):
            pytest.skip(f"the package index is not reachable: {error}")
        raise
    assert b"vllm_ascend/__init__.py" in data


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A virtualenv with the release's x86_64 wheels installed as the python_stack role does:
    torch, torch_npu, then vllm and vllm-ascend without dependencies, then triton-ascend."""
    root = tmp_path_factory.mktemp("venv")
    house = root / "wheelhouse"
    for component in (*STANDINS, "vllm_ascend"):
        name, data = wheels.build_standin(RELEASE, component, "x86_64")
        house.mkdir(exist_ok=True)
        (house / name).write_bytes(data)
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    python = str(root / "venv/bin/python")
    pip = [python, "-m", "pip", "install", "--isolated", "--no-index", "--find-links", str(house),
           "--disable-pip-version-check", "--quiet"]
    for spec, no_deps in (("torch==2.9.0+cpu", False), ("torch_npu==2.9.0", False),
                          ("vllm==0.18.0", True), ("vllm-ascend==0.18.0", True),
                          ("triton-ascend==3.2.0", False)):
        subprocess.run([*pip, *(["--no-deps"] if no_deps else []), spec], check=True)
    return python


def run_python(python, code, **env):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("LD_LIBRARY_PATH", "ASCEND_SIM_ROOT", "ASCEND_RT_VISIBLE_DEVICES")}
    return subprocess.run([python, "-c", code], env={**clean, **env}, capture_output=True,
                          text=True, check=False)


def test_wheels_install_with_pip_and_report_their_versions(venv):
    versions = run_python(venv, "import importlib.metadata as m, json; print(json.dumps({n: "
                          "m.version(n) for n in ('torch', 'torch_npu', 'vllm', 'vllm_ascend', "
                          "'triton_ascend')}))")
    assert json.loads(versions.stdout) == {
        "torch": "2.9.0+cpu", "torch_npu": "2.9.0", "vllm": "0.18.0", "vllm_ascend": "0.18.0",
        "triton_ascend": "3.2.0"}
    check = run_python(venv, "import sys; from pip._internal.cli.main import main; "
                             "sys.exit(main(['check']))")
    assert "vllm 0.18.0 has requirement torch==2.10.0, but you have torch 2.9.0+cpu" in check.stdout
    plain = run_python(venv, "import torch, vllm, vllm_ascend, triton; "
                             "print(torch.__version__, vllm.__version__, triton.__version__)")
    assert plain.stdout.split() == ["2.9.0+cpu", "0.18.0", "3.2.0"]


def fake_node(root, cards=8, manager=True):
    """A node root with the driver's library, a state with `cards` cards and device files."""
    (root / "usr/local/Ascend/driver/lib64/driver").mkdir(parents=True)
    (root / "usr/local/Ascend/driver/lib64/driver/libascend_hal.so").write_text("")
    (root / "var/lib/ascend-sim").mkdir(parents=True)
    (root / "var/lib/ascend-sim/state.json").write_text(json.dumps(
        {"cards": [{"npu_id": n, "name": "910B3"} for n in range(cards)]}))
    (root / "dev").mkdir()
    for name in [f"davinci{n}" for n in range(cards)] + (["davinci_manager"] if manager else []):
        (root / "dev" / name).write_text("")
        (root / "dev" / name).chmod(0o660)
    return str(root / "usr/local/Ascend/driver/lib64/driver")


NPU_INFO = ("import torch, torch_npu; print(torch.npu.is_available(), torch.npu.device_count(), "
            "torch_npu.npu.get_device_name(0) if torch.npu.device_count() else '-')")


def test_torch_npu_refuses_to_import_without_the_cann_environment(venv, tmp_path):
    result = run_python(venv, "import torch_npu")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "ImportError: libascend_hal.so: cannot open shared object file: No such file or directory")
    fake_node(tmp_path)
    elsewhere = run_python(venv, "import torch_npu", LD_LIBRARY_PATH=str(tmp_path / "dev"))
    assert elsewhere.returncode == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="device permissions are judged as for root")
def test_torch_npu_sees_the_simulated_cards_in_a_fake_cann_environment(venv, tmp_path):
    lib = fake_node(tmp_path / "node")
    env = {"LD_LIBRARY_PATH": f"/nowhere:{lib}", "ASCEND_SIM_ROOT": str(tmp_path / "node")}
    assert run_python(venv, NPU_INFO, **env).stdout.split() == ["True", "8", "Ascend910B3"]
    assert run_python(venv, NPU_INFO, ASCEND_RT_VISIBLE_DEVICES="0,1",
                      **env).stdout.split() == ["True", "2", "Ascend910B3"]
    lib = fake_node(tmp_path / "bare", manager=False)
    env = {"LD_LIBRARY_PATH": lib, "ASCEND_SIM_ROOT": str(tmp_path / "bare")}
    assert run_python(venv, NPU_INFO, **env).stdout.split() == ["False", "0", "-"]
