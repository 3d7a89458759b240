"""The simulated Ascend installers: `ascend-sim artifacts` builds a release's .run files.

For each artifact of a release file (releases/<name>.yml) whose component is driver, firmware,
toolkit, kernels or nnal, it writes a makeself-style .run under the real file name for the
architecture: the shell header of simulator/installers/header.sh followed by a gzip'd tar that
carries the package's files (tree/) and its bash install scripts (scripts/, from
simulator/installers/). The Python wheels are wheels.py's (the command adds them). Builds are
deterministic: sorted members, fixed owners and times, no time stamps in gzip, so the same
release gives byte-identical files. SHA256SUMS lists what was written.
"""

import gzip
import hashlib
import io
import json
import os
import pathlib
import re
import shlex
import sys
import tarfile

from ascend_sim import wheels

TEMPLATES = pathlib.Path(__file__).resolve().parent.parent / "installers"
ARCHES = ("x86_64", "aarch64")
CANN_COMPONENTS = ("toolkit", "kernels", "nnal")
MTIME = 1704067200  # every archive member's time: 2024-01-01 00:00:00 UTC
# innerversion of ascend_toolkit_install.info as real installs show it (fixtures); others derived.
TOOLKIT_INNER = {"8.0.RC3": "V100R001C19SPC001B155", "8.0.0": "V100R001C20SPC001B251",
                 "8.1.RC1": "V100R001C21SPC001B212", "8.2.RC1": "V100R001C22SPC001B231",
                 "8.3.RC2": "V100R001C23SPC002B210", "8.5.0": "V100R001C25SPC001B232"}
TOOLKIT_COMPATIBLE = ("[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],"
                      "[V100R001C23]")
DRIVER_COMPATIBLE = ("[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17],[V100R001C18],"
                     "[V100R001C19],[V100R001C20],[V100R001C21],[V100R001C23],[V100R001C25]")
DRIVER_TOOLS = "gcc make dkms"  # what the driver's DKMS build needs on PATH
INSTALLER_OPTIONS = {
    "driver": "--full | --upgrade | --uninstall | --install-for-all | --install-path=<path>\n"
              "  --install-username=<user> --install-usergroup=<group> | --version",
    "firmware": "--full | --upgrade | --uninstall | --version",
    "cann": "--install | --full | --upgrade | --uninstall | --install-for-all\n"
            "  --install-path=<path> | --version",
}


class BuildError(Exception):
    """A release entry the builder cannot turn into a .run file."""


def load_release(path):
    """Read a release file: YAML through PyYAML when importable, else JSON."""
    text = pathlib.Path(path).read_text()
    try:
        import yaml
    except ImportError:
        return json.loads(text)
    return yaml.safe_load(text)


def cann_parts(version):
    """(major, minor, patch-or-RC number, is_rc) of a CANN version like 8.3.RC2 or 8.5.1."""
    match = re.match(r"(\d+)\.(\d+)(?:\.(RC)?(\d+))?", version)
    if not match:
        raise BuildError(f"CANN version {version!r}: expected <major>.<minor>[.RC<n>|.<n>]")
    major, minor, rc, number = match.groups()
    return int(major), int(minor), int(number or 0), bool(rc)


def new_layout(version):
    """CANN 8.5 moved the toolkit to <root>/cann-<ver>; before, <root>/ascend-toolkit/<ver>."""
    return cann_parts(version)[:2] >= (8, 5)


def toolkit_inner(version):
    """innerversion of ascend_toolkit_install.info (V100R001C<nn>SPC<nnn>B<nnn>)."""
    major, minor, number, rc = cann_parts(version)
    derived = f"V100R001C{(major - 8) * 10 + minor + 20}SPC{number if rc else 1:03d}B200"
    return TOOLKIT_INNER.get(version, derived)


def cfg_inner(version):
    """Inner version of version.cfg entries: 8.2.RC2 -> 8.2.0.2.220, 8.5.1 -> 8.5.1.0.220."""
    major, minor, number, rc = cann_parts(version)
    return f"{major}.{minor}.0.{number}.220" if rc else f"{major}.{minor}.{number}.0.220"


def release_version(release, component):
    """Version of a component in a release: its artifact entry, else the versions map."""
    for artifact in release.get("artifacts") or []:
        if artifact.get("component") == component:
            return str(artifact["version"])
    key = "cann" if component in CANN_COMPONENTS else component
    return str((release.get("versions") or {}).get(key, ""))


class Payload:
    """The members of one package's tar: files, symlinks and (implied) directories."""

    def __init__(self):
        self.members = {}

    def file(self, name, data, mode=0o644):
        self.members[name] = ("file", data.encode() if isinstance(data, str) else data, mode)

    def link(self, name, target):
        self.members[name] = ("link", target, 0o777)

    def dir(self, name):
        self.members[name] = ("dir", None, 0o755)

    def template(self, name, template, mode=0o755):
        self.file(name, (TEMPLATES / template).read_bytes(), mode)

    def tar_gz(self):
        """The members as a reproducible gzip'd tar (sorted, root-owned, fixed times)."""
        members = dict(self.members)
        for name in list(members):
            parent = os.path.dirname(name)
            while parent and parent not in members:
                members[parent] = ("dir", None, 0o755)
                parent = os.path.dirname(parent)
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
            for name in sorted(members):
                kind, data, mode = members[name]
                info = tarfile.TarInfo(name)
                info.mtime, info.mode, info.uname, info.gname = MTIME, mode, "root", "root"
                if kind == "dir":
                    info.type = tarfile.DIRTYPE
                elif kind == "link":
                    info.type, info.linkname = tarfile.SYMTYPE, data
                else:
                    info.size = len(data)
                tar.addfile(info, io.BytesIO(data) if kind == "file" else None)
        out = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
            gz.write(raw.getvalue())
        return out.getvalue()


def _lines(*lines):
    return "".join(f"{line}\n" for line in lines)


def driver_tree(payload, release, version, arch):
    firmware = release_version(release, "firmware") or "7.8.0"
    fw_high = ".".join(firmware.split(".")[:2]) + ".99"
    cann = release_version(release, "toolkit")
    payload.file("tree/driver/version.info", _lines(
        f"Version={version}", "ascendhal_version=7.35.23", "aicpu_version=1.0", "tdt_version=1.0",
        "log_version=1.0", "prof_version=2.0", "dvppkernels_version=1.1", "tsfw_version=1.0",
        f"Innerversion={toolkit_inner(cann) if cann else 'V100R001C25SPC001B220'}",
        f"compatible_version={DRIVER_COMPATIBLE}", f"compatible_version_fw=[7.0.0,{fw_high}]",
        f"package_version={version}"))
    for lib in ("driver/libascend_hal.so", "driver/libdrvdsmi_host.so", "common/libc_sec.so"):
        payload.file(f"tree/driver/lib64/{lib}", f"simulated {lib} of driver {version} ({arch})\n")
    payload.template("tree/driver/tools/upgrade-tool", "upgrade-tool")
    return {"DRIVER_TOOLS": DRIVER_TOOLS}


def firmware_tree(payload, release, version, arch):
    driver = release_version(release, "driver")
    base = ".".join(driver.split(".")[:3])
    payload.file("tree/firmware/version.info", _lines(
        f"Version={version}", "firmware_version=1.0", f"package_version={driver}",
        f"compatible_version_drv=[{base},{base}.]"))
    return {}


def toolkit_tree(payload, release, version, arch):
    base = "tree/toolkit"
    payload.file(f"{base}/{arch}-linux/lib64/libascendcl.so", f"simulated libascendcl {version}\n")
    payload.file(f"{base}/{arch}-linux/include/acl/acl.h", "/* simulated CANN header */\n")
    payload.dir(f"{base}/{arch}-linux/bin")
    for name in ("lib64", "include", "bin"):
        payload.link(f"{base}/{name}", f"{arch}-linux/{name}")
    payload.file(f"{base}/opp/version.info", _lines(f"Version={cfg_inner(version)}",
                                                    f"version_dir={version}"))
    payload.file(f"{base}/runtime/version.info", _lines(f"Version={version}"))
    for name in ("opp/built-in/op_impl/ai_core/tbe", "python/site-packages",
                 "compiler/ccec_compiler/bin", "toolkit", "tools/aml/lib64"):
        payload.dir(f"{base}/{name}")
    payload.template("tree/set_env.sh", "set_env_toolkit.sh")
    return {"INNER_VERSION": toolkit_inner(version), "COMPATIBLE_VERSION": TOOLKIT_COMPATIBLE}


def kernels_tree(payload, release, version, arch):
    chip = "ascend910b"
    payload.file(f"tree/kernel/{chip}/add/Add_simulated.json", '{"kernelName": "Add"}\n')
    payload.file(f"tree/kernel/{chip}/add/Add_simulated.o", f"simulated {chip} kernel\n")
    payload.file(f"tree/kernel/config/{chip}/binary_info_config.json", '{"Add": {}}\n')
    payload.file("tree/opp_kernel/version.info", _lines(f"Version={cfg_inner(version)}",
                                                        f"version_dir={version}"))
    return {"SUB_PKG": f"Ascend910B-opp_kernel-{cfg_inner(version)}-linux.{arch}.run"}


def nnal_tree(payload, release, version, arch):
    commit = hashlib.sha1(f"atb-{version}".encode()).hexdigest()
    payload.file("tree/nnal/version.info", _lines(
        f"    Ascend-cann-atb : {version}", f"    Ascend-cann-atb Version : {version}.B030",
        f"    Platform : {arch}", f"    branch : br_release_cann_{version}",
        f"    commit id : {commit}"))
    for abi in ("cxx_abi_0", "cxx_abi_1"):
        home = f"tree/nnal/atb/{abi}"
        payload.file(f"{home}/lib/libatb.so", f"simulated libatb.so {version} ({abi})\n")
        payload.file(f"{home}/include/atb/atb.h", "/* simulated ATB header */\n")
        for name in ("bin", "examples", "tests/atbopstest"):
            payload.dir(f"{home}/{name}")
    payload.template("tree/set_env.sh", "set_env_nnal.sh")
    return {}


# Each *_tree adds a package's files under tree/ and returns its extra package.conf settings.
TREES = {"driver": driver_tree, "firmware": firmware_tree, "toolkit": toolkit_tree,
         "kernels": kernels_tree, "nnal": nnal_tree}


def package_identity(component, run_name):
    """(label, log tag, log style, log file name) as the real package prints them."""
    if component in ("driver", "firmware"):
        label = ("ASCEND DRIVER RUN PACKAGE" if component == "driver"
                 else "ASCEND-HDK-910B-NPU FIRMWARE RUN PACKAGE")
        return label, component.capitalize(), "hdk", "ascend_install.log"
    if component == "kernels":
        tag = ("kernels_910b" if "kernels" in run_name else "ops_910b")
        return "ASCEND_RUN_PACKAGE", tag, "cann", f"ascend_{tag}_install.log"
    tag = "Toolkit" if component == "toolkit" else "NNAL"
    return "ASCEND_RUN_PACKAGE", tag, "cann", f"ascend_{component}_install.log"


def build_run(release, component, version, run_name, arch):
    """The bytes of one .run file."""
    payload = Payload()
    conf = TREES[component](payload, release, version, arch)
    label, tag, style, log_name = package_identity(component, run_name)
    conf = {"COMPONENT": component, "PKG_VERSION": version, "PKG_ARCH": arch,
            "RUN_NAME": run_name, "LOG_TAG": tag, "LOG_STYLE": style, "LOG_NAME": log_name, **conf}
    scripts = ["install.sh", "uninstall.sh", "common.sh", f"{component}.sh"]
    if component in CANN_COMPONENTS:
        scripts.append("cann.sh")
        conf["CANN_LAYOUT"] = "new" if new_layout(version) else "old"
        conf["CFG_INNER"] = cfg_inner(version)
    for script in scripts:
        payload.template(f"scripts/{script}", script)
    payload.file("scripts/package.conf", "".join(
        f"{key}={shlex.quote(str(value))}\n" for key, value in conf.items()))
    archive = payload.tar_gz()
    options = INSTALLER_OPTIONS["cann" if component in CANN_COMPONENTS else component]
    header = (TEMPLATES / "header.sh").read_text()
    for key, value in (("LABEL", label), ("RUN_NAME", run_name), ("VERSION", version),
                       ("SHA256", hashlib.sha256(archive).hexdigest()),
                       ("OPTIONS", "  " + options)):
        header = header.replace(f"@{key}@", value)
    header = header.replace("@SKIP@", str(header.count("\n") + 1))
    return header.encode() + archive


def build_artifacts(release, out_dir, arch):
    """Write the release's installer .run files for arch and SHA256SUMS; return the names."""
    if arch not in ARCHES:
        raise BuildError(f"--arch {arch}: allowed values are {', '.join(ARCHES)}")
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sums = {}
    for artifact in release.get("artifacts") or []:
        component = artifact.get("component")
        if component not in TREES:
            continue  # python wheels and the like are built elsewhere
        run_name = (artifact.get("files") or {}).get(arch)
        if not run_name:
            raise BuildError(f"{component} {artifact.get('version')}: no file name for {arch}")
        data = build_run(release, component, str(artifact["version"]), run_name, arch)
        path = out_dir / run_name
        path.write_bytes(data)
        path.chmod(0o755)
        sums[run_name] = hashlib.sha256(data).hexdigest()
    (out_dir / "SHA256SUMS").write_text("".join(
        f"{digest}  {name}\n" for name, digest in sorted(sums.items())))
    return sorted(sums)


def cmd_artifacts(args):
    try:
        release = load_release(args.release)
        names = build_artifacts(release, args.out, args.arch)
        names += wheels.build_wheels(release, args.out, args.arch)
    except (BuildError, OSError, ValueError, KeyError) as error:
        print(f"ascend-sim artifacts: {error}", file=sys.stderr)
        return 1
    for name in names:
        print(pathlib.Path(args.out) / name)
    return 0


def register(subparsers):
    parser = subparsers.add_parser(
        "artifacts", help="build the simulated installer .run files and wheels of a release",
        description="Build the driver, firmware and CANN .run files and the Python wheels a "
                    "release names, for one architecture, plus SHA256SUMS.")
    parser.add_argument("--release", required=True, help="release file (releases/<name>.yml)")
    parser.add_argument("--out", required=True, help="directory to write the files to")
    parser.add_argument("--arch", default=os.uname().machine,
                        help="x86_64 or aarch64 (default: this machine's, uname -m)")
    parser.set_defaults(func=cmd_artifacts)
