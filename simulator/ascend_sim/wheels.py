"""The Python wheels of a release, for `ascend-sim artifacts` (next to the .run installers).

For each artifact of a release file whose component is a Python package (torch, torch_npu, vllm,
vllm_ascend, triton_ascend), it puts the wheel the release names for the architecture into the
output directory and adds it to SHA256SUMS:

- vllm_ascend: the real wheel, downloaded once from the package index with pip into a cache
  ($ASCEND_SIM_WHEEL_CACHE, default /var/cache/ascend-sim/wheels) and checked against the sha256
  the release file pins. When the index has no such wheel and the release pins none (a release
  published as an sdist only), a stand-in is built instead, and a log line says so.
- torch, torch_npu, vllm, triton_ascend: stand-ins built here, since the real ones need NPUs, CUDA
  or gigabytes. They are pure Python under the real file name (tags included), with the real
  distribution name, version and torch pins in METADATA, so pip and the roles treat them as the
  real ones. The stand-in torch_npu behaves like the real one where a deployment can tell: it
  refuses to import without the driver's libascend_hal.so on LD_LIBRARY_PATH (the real message),
  and its npu.is_available()/device_count() read the simulated node (state.json, /dev/davinci*).

Stand-ins are deterministic (sorted members, fixed times and modes, stored, not deflated): the
same release gives byte-identical wheels.
"""

import base64
import hashlib
import io
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

COMPONENTS = ("torch", "torch_npu", "vllm", "vllm_ascend", "triton_ascend")
# Components taken from the package index when it has the wheel: project name there.
FROM_INDEX = {"vllm_ascend": "vllm-ascend"}
# The torch each PyPI vLLM wheel pins (pip download --no-deps, Requires-Dist): the stand-in vllm
# declares the same, so `pip check` shows the disagreement with vllm-ascend's pin, as for real.
VLLM_TORCH = {"0.23.0": "2.11.0", "0.18.0": "2.10.0", "0.13.0": "2.9.0", "0.11.0": "2.8.0",
              "0.9.1": "2.7.0", "0.7.3": "2.5.1"}
DEFAULT_CACHE = "/var/cache/ascend-sim/wheels"
DATE_TIME = (2024, 1, 1, 0, 0, 0)
WHEEL_NAME = re.compile(r"^(?P<dist>[^-]+)-(?P<version>[^-]+)(?:-(?P<build>\d[^-]*))?"
                        r"-(?P<python>[^-]+)-(?P<abi>[^-]+)-(?P<platform>[^-]+)\.whl$")


class WheelError(ValueError):
    """A wheel the release names that cannot be built or fetched."""


def log(message):
    print(f"ascend-sim artifacts: {message}", file=sys.stderr)


def parse_name(file_name):
    """The parts of a wheel file name (dist, version, build, python, abi, platform)."""
    match = WHEEL_NAME.match(file_name)
    if not match:
        raise WheelError(f"{file_name!r} is not a wheel file name "
                         "(<dist>-<version>[-<build>]-<python>-<abi>-<platform>.whl)")
    return match.groupdict()


def release_wheel(release, component, arch):
    """(file name, version in the file name, pinned sha256 or None) of a component for arch."""
    for artifact in release.get("artifacts") or []:
        if artifact.get("component") == component:
            name = (artifact.get("files") or {}).get(arch)
            if not name:
                raise WheelError(f"{component} {artifact.get('version')}: no wheel for {arch}")
            return name, parse_name(name)["version"], (artifact.get("sha256") or {}).get(arch)
    return None, None, None


def public(version):
    return version.split("+", 1)[0]


# --- stand-in sources ---------------------------------------------------------------------------

TORCH_INIT = '''"""ascend-sim stand-in for PyTorch {version}: a version and torch.npu only."""

from torch import version

__version__ = version.__version__
npu = None  # torch_npu puts its npu module here on import, as the real one does
'''

TORCH_NPU_INIT = '''"""ascend-sim stand-in for torch_npu {version}.

Like the real one, importing it needs the NPU driver's libascend_hal.so on LD_LIBRARY_PATH (the
CANN environment: source set_env.sh, or the EnvironmentFile captured from it), and it adds
torch.npu. Devices come from the simulated node (see torch_npu.npu).
"""

import os

import torch

__version__ = "{version}"


def _find_library(name):
    for directory in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if directory and os.path.isfile(os.path.join(directory, name)):
            return True
    return False


if not _find_library("libascend_hal.so"):
    raise ImportError("libascend_hal.so: cannot open shared object file: No such file or directory")

from torch_npu import npu

torch.npu = npu
'''

TORCH_NPU_NPU = '''"""Devices of the simulated node.

The cards of /var/lib/ascend-sim/state.json, visible when this user may read and write
/dev/davinci_manager and /dev/davinci<N> (root, or a member of the devices' group HwHiAiUser),
then picked by ASCEND_RT_VISIBLE_DEVICES. $ASCEND_SIM_ROOT moves the node's root (tests).
"""

import json
import os


def _root():
    return os.environ.get("ASCEND_SIM_ROOT", "/").rstrip("/")


def _usable(path):
    """Read-write for this user by owner, group and mode, as the kernel would decide on a real
    node (the simulated device nodes themselves cannot be opened: the container's device cgroup
    refuses them)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if os.geteuid() == 0:
        return True
    if st.st_uid == os.geteuid():
        bits = st.st_mode >> 6
    elif st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        bits = st.st_mode >> 3
    else:
        bits = st.st_mode
    return (bits & 6) == 6


def _cards():
    root = _root()
    if not _usable(root + "/dev/davinci_manager"):
        return []
    try:
        with open(root + "/var/lib/ascend-sim/state.json") as handle:
            cards = json.load(handle).get("cards", [])
    except (OSError, ValueError):
        return []
    cards = [card for card in cards if _usable("%s/dev/davinci%d" % (root, card["npu_id"]))]
    visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
    if visible is None:
        return cards
    picked = [int(item) for item in visible.split(",") if item.strip().isdigit()]
    return [cards[index] for index in picked if index < len(cards)]


def device_count():
    return len(_cards())


def is_available():
    return device_count() > 0


def get_device_name(device=0):
    cards = _cards()
    if not 0 <= device < len(cards):
        raise RuntimeError("Invalid device id %r: %d NPU(s) visible" % (device, len(cards)))
    return "Ascend" + cards[device]["name"]
'''

PLAIN_INIT = '''"""ascend-sim stand-in for {title} {version}: {what}."""

__version__ = "{version}"
'''


def standin_files(component, version, release, arch):
    """(files {path: text}, Requires-Dist list, summary) of a stand-in wheel."""
    torch_name, torch_version, _ = release_wheel(release, "torch", arch)
    torch_pin = [f"torch=={torch_version}"] if torch_name else []
    if component == "torch":
        return ({"torch/__init__.py": TORCH_INIT.format(version=version),
                 "torch/version.py": f'__version__ = "{version}"\n'},
                [], "ascend-sim stand-in for PyTorch (version and torch.npu only)")
    if component == "torch_npu":
        # The real torch_npu pins torch exactly: torch==X+cpu on x86_64, torch==X on aarch64.
        return ({"torch_npu/__init__.py": TORCH_NPU_INIT.format(version=version),
                 "torch_npu/npu.py": TORCH_NPU_NPU},
                torch_pin, "ascend-sim stand-in for torch_npu (CANN check, simulated NPUs)")
    if component == "vllm":
        pin = VLLM_TORCH.get(public(version))
        return ({"vllm/__init__.py": PLAIN_INIT.format(
                    title="vLLM", version=version,
                    what="the package and its version only, no engine")},
                [f"torch=={pin}"] if pin else [],
                "ascend-sim stand-in for vLLM (version only, no engine)")
    if component == "triton_ascend":
        return ({"triton/__init__.py": PLAIN_INIT.format(
                    title="triton-ascend", version=version, what="the triton package's version")},
                [], "ascend-sim stand-in for triton-ascend (version only)")
    if component == "vllm_ascend":
        # The real vllm-ascend pins the public torch version and torch-npu, triton-ascend.
        pins = [f"{name.replace('_', '-')}=={public(release_wheel(release, name, arch)[1])}"
                for name in ("torch", "torch_npu", "triton_ascend")
                if release_wheel(release, name, arch)[0]]
        return ({"vllm_ascend/__init__.py": PLAIN_INIT.format(
                    title="vllm-ascend", version=version,
                    what="the plugin's version only (no wheel of this release on the index)")},
                pins, "ascend-sim stand-in for vllm-ascend (version only)")
    raise WheelError(f"no stand-in for component {component!r}: allowed {', '.join(COMPONENTS)}")


# --- wheel files --------------------------------------------------------------------------------


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(file_name, files, requires, summary):
    """The bytes of a pure-Python wheel named file_name holding files {path: text}."""
    parts = parse_name(file_name)
    dist_info = f"{parts['dist']}-{parts['version']}.dist-info"
    tags = [f"{py}-{abi}-{plat}" for py in parts["python"].split(".")
            for abi in parts["abi"].split(".") for plat in parts["platform"].split(".")]
    members = {path: text.encode() for path, text in files.items()}
    members[f"{dist_info}/METADATA"] = "".join(
        [f"Metadata-Version: 2.1\nName: {parts['dist']}\nVersion: {parts['version']}\n",
         f"Summary: {summary}\n"] + [f"Requires-Dist: {item}\n" for item in requires]).encode()
    members[f"{dist_info}/WHEEL"] = "".join(
        ["Wheel-Version: 1.0\nGenerator: ascend-sim\n",
         f"Root-Is-Purelib: {'true' if parts['platform'] == 'any' else 'false'}\n"]
        + [f"Tag: {tag}\n" for tag in tags]
        + ([f"Build: {parts['build']}\n"] if parts["build"] else [])).encode()
    tops = sorted({path.split("/", 1)[0] for path in files})
    members[f"{dist_info}/top_level.txt"] = "".join(f"{top}\n" for top in tops).encode()
    record = f"{dist_info}/RECORD"
    members[record] = "".join(
        [f"{path},{_record_hash(data)},{len(data)}\n" for path, data in sorted(members.items())]
        + [f"{record},,\n"]).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        # dist-info last, RECORD last of all, as wheel builders write them
        for path in sorted(members, key=lambda p: (p.startswith(dist_info), p == record, p)):
            info = zipfile.ZipInfo(path, DATE_TIME)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, members[path])
    return out.getvalue()


def build_standin(release, component, arch):
    """(file name, bytes) of the stand-in wheel of a component of the release."""
    file_name, version, _ = release_wheel(release, component, arch)
    if not file_name:
        raise WheelError(f"release {release.get('name')!r} has no {component} wheel")
    files, requires, summary = standin_files(component, version, release, arch)
    return file_name, build_wheel(file_name, files, requires, summary)


# --- the real wheels from the index -------------------------------------------------------------


def _pip_download(project, version, file_name, dest):
    """Run pip download for exactly the tags of file_name; (ok, last line of pip's output)."""
    parts = parse_name(file_name)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "--dest", str(dest)]
    python = re.fullmatch(r"(?:cp|py)(\d)(\d*)", parts["python"].split(".")[0])
    if python:
        command += ["--python-version", python.group(1) + python.group(2)]
    if parts["abi"] != "none":
        command += ["--implementation", "cp", "--abi", parts["abi"].split(".")[0]]
    for platform in parts["platform"].split("."):
        command += ["--platform", platform]
    result = subprocess.run([*command, f"{project}=={version}"], capture_output=True, text=True,
                            timeout=900, check=False)
    lines = (result.stdout + result.stderr).strip().splitlines()
    return result.returncode == 0, lines[-1] if lines else ""


def fetch_wheel(project, version, file_name, pinned, cache_dir):
    """The bytes of a real wheel (cached; pip download on a miss), or None when the index has
    none and no sha256 is pinned. A pinned sha256 must match."""
    cache_dir = pathlib.Path(cache_dir)
    cached = cache_dir / file_name
    if not cached.is_file():
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
            ok, last = _pip_download(project, version, file_name, tmp)
            got = pathlib.Path(tmp) / file_name
            if not ok or not got.is_file():
                if pinned:
                    raise WheelError(f"{file_name}: the release pins its sha256, but pip could not "
                                     f"download {project}=={version} ({last}); check the index "
                                     f"or put the file in {cache_dir}")
                log(f"{project}=={version}: no wheel {file_name} on the index ({last}); "
                    "built a stand-in instead")
                return None
            got.replace(cached)
    data = cached.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if pinned and digest != pinned:
        raise WheelError(f"{cached} has sha256 {digest}, the release pins {pinned}: not the "
                         "published wheel; delete it and run again")
    if not pinned:
        log(f"{file_name}: the release pins no sha256 for it (got {digest})")
    return data


def build_wheels(release, out_dir, arch, cache_dir=None):
    """Write the release's wheels for arch into out_dir and add them to its SHA256SUMS."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache_dir = cache_dir or os.environ.get("ASCEND_SIM_WHEEL_CACHE") or DEFAULT_CACHE
    written = {}
    for component in COMPONENTS:
        file_name, version, pinned = release_wheel(release, component, arch)
        if not file_name:
            continue
        data = None
        if component in FROM_INDEX:
            data = fetch_wheel(FROM_INDEX[component], version, file_name, pinned, cache_dir)
        if data is None:
            data = build_standin(release, component, arch)[1]
        (out_dir / file_name).write_bytes(data)
        (out_dir / file_name).chmod(0o644)
        written[file_name] = hashlib.sha256(data).hexdigest()
    sums_file = out_dir / "SHA256SUMS"
    sums = {}
    if sums_file.is_file():
        for line in sums_file.read_text().splitlines():
            digest, _, name = line.partition("  ")
            if name:
                sums[name] = digest
    sums.update(written)
    sums_file.write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(sums.items())))
    return sorted(written)
