"""Parsers for the version files of the Ascend stack, and where its layers sit on disk.

Pure Python, standard library only (with _versions for the CANN order): this runs on managed
nodes (Python 3.8+) and in unit tests.

- parse_version_info(text): the `key=value` files (driver and firmware version.info,
  /etc/ascend_install.info, ascend_toolkit_install.info, opp_kernel/version.info) and the
  `key : value` version.info of NNAL
- parse_version_cfg(text): a CANN toolkit's version.cfg
- read_stack(root, install_path): driver, firmware, install record, CANN toolkits (both
  layouts: `ascend-toolkit/<ver>` up to 8.3, `cann-<ver>` from 8.5), kernels/ops and NNAL
- package_key(name) and PACKAGES_SCRIPT: the Python packages of an interpreter

Everything that reads the disk takes `root`, a prefix put before every absolute path of the node:
"" on a node, a temporary tree in tests (the simulator's installers write under such a prefix
too). Symlinks are followed the way the node follows them, so an absolute target such as
`ascend-toolkit/latest -> /usr/local/Ascend/cann` resolves under root as well. Paths in results
are the node's, without root. Missing or unreadable files count as not installed.
"""

from __future__ import annotations

import os
import posixpath
import re

from ansible_collections.ascend_fleet.vllm.plugins.module_utils._versions import (
    AscendVersion,
    VersionError,
)

DEFAULT_INSTALL_PATH = "/usr/local/Ascend"
INSTALL_INFO = "/etc/ascend_install.info"
TOOLKIT_INFO = "ascend_toolkit_install.info"
MAX_SYMLINKS = 40
CFG_ENTRY = re.compile(r"\[([^\]:]*):([^\]]*)\]")

# Sent to an interpreter with `python -c PACKAGES_SCRIPT name...`: prints its version and the
# version of each named distribution (null when absent) as JSON, without importing any of them.
# Distribution names compare normalized (PEP 503), so torch-npu and torch_npu are the same; the
# first one on sys.path wins, as for imports.
PACKAGES_SCRIPT = """\
import json, platform, re, sys
from importlib import metadata
def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()
found = {}
for dist in metadata.distributions():
    name = dist.metadata["Name"]
    if name:
        found.setdefault(norm(name), dist.version)
print(json.dumps({"version": platform.python_version(),
                  "packages": {name: found.get(norm(name)) for name in sys.argv[1:]}}))
"""


def package_key(name):
    """The key a package is reported under: lower case, `_` for `-` and `.` (torch_npu)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def cann_sort_key(version):
    """Sort key of CANN versions in Huawei's order (8.0.RC3 < 8.0.0 < 8.1.RC1, see
    AscendVersion); versions it cannot read (test builds such as 8.1.T6) sort first, by text."""
    try:
        return (1, AscendVersion(version))
    except VersionError:
        return (0, version)


# --- file formats -------------------------------------------------------------------------------


def parse_version_info(text):
    """Key/value lines as a dict. A line splits at its first `=` or `:` (NNAL writes
    `Ascend-cann-atb : 8.2.RC2`); keys and values are stripped, `#` lines and lines without a
    separator are skipped, and the first occurrence of a key wins. Values stay strings."""
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cuts = [index for index in (line.find("="), line.find(":")) if index > 0]
        if cuts:
            cut = min(cuts)
            values.setdefault(line[:cut].strip(), line[cut + 1:].strip())
    return values


def parse_version_cfg(text):
    """version.cfg as {key: [(inner version, CANN version), ...]} in file order, e.g.
    `toolkit_installed_version=[7.0.0.5.242:7.0.RC1][7.3.0.1.231:8.0.RC2]` ->
    {"toolkit_installed_version": [("7.0.0.5.242", "7.0.RC1"), ("7.3.0.1.231", "8.0.RC2")]}."""
    return {key: CFG_ENTRY.findall(value) for key, value in parse_version_info(text).items()}


# --- the node's filesystem under root -----------------------------------------------------------


def resolve(root, path):
    """The node path `path` with every symlink followed (like realpath) under root; the part
    after a symlink loop or a missing component is kept as written."""
    pending = [part for part in path.split("/") if part]
    done = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in (".", ""):
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        physical = root + "/" + "/".join([*done, part])
        if os.path.islink(physical) and hops < MAX_SYMLINKS:
            hops += 1
            target = os.readlink(physical)
            if target.startswith("/"):
                done = []
            pending[:0] = target.split("/")
        else:
            done.append(part)
    return "/" + "/".join(done)


def _physical(root, path):
    return root + resolve(root, path)


def _is_link(root, path):
    parent, name = posixpath.split(path)
    return os.path.islink(root + posixpath.join(resolve(root, parent), name))


def _listdir(root, path):
    """Sorted entry names of a directory of the node; [] when it is not one."""
    try:
        return sorted(os.listdir(_physical(root, path)))
    except OSError:
        return []


def _is_file(root, path):
    return os.path.isfile(_physical(root, path))


def read_info(root, path):
    """A version file of the node, parsed with parse_version_info; None when unreadable."""
    text = _read_text(root, path)
    return None if text is None else parse_version_info(text)


def _read_text(root, path):
    try:
        with open(_physical(root, path), encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


# --- the layers ---------------------------------------------------------------------------------


def _hdk_info(root, component, recorded, install_path):
    """(base path, parsed <base>/<component>/version.info): the path the installer recorded in
    /etc/ascend_install.info first, then install_path. (None, None) when neither has it."""
    for base in dict.fromkeys(posixpath.normpath(p) for p in (recorded, install_path) if p):
        info = read_info(root, f"{base}/{component}/version.info")
        if info is not None:
            return base, info
    return None, None


def read_driver(root, install_path, install_info):
    """The NPU driver's version.info, or None when no driver is installed."""
    base, info = _hdk_info(root, "driver", (install_info or {}).get("Driver_Install_Path_Param"),
                           install_path)
    if info is None:
        return None
    return {"version": info.get("Version"), "package_version": info.get("package_version"),
            "innerversion": info.get("Innerversion"),
            "compatible_firmware": info.get("compatible_version_fw"), "install_path": base}


def read_firmware(root, install_path, install_info):
    """The NPU firmware's version.info, or None when no firmware package is installed."""
    base, info = _hdk_info(root, "firmware",
                           (install_info or {}).get("Firmware_Install_Path_Param"), install_path)
    if info is None:
        return None
    return {"version": info.get("Version"), "package_version": info.get("package_version"),
            "compatible_driver": info.get("compatible_version_drv"), "install_path": base}


def toolkit_version(root, tree):
    """version= of <tree>/<arch>-linux/ascend_toolkit_install.info; None when tree holds no
    toolkit."""
    for name in _listdir(root, tree):
        if name.endswith("-linux"):
            info = read_info(root, f"{tree}/{name}/{TOOLKIT_INFO}") or {}
            if info.get("version"):
                return info["version"]
    return None


def toolkit_trees(root, install_path):
    """{version: tree} of every toolkit installed under install_path: the directories
    ascend-toolkit/<ver> (up to 8.3) and cann-<ver> (from 8.5), not the links to them."""
    candidates = [f"{install_path}/ascend-toolkit/{name}"
                  for name in _listdir(root, f"{install_path}/ascend-toolkit") if name != "latest"]
    candidates += [f"{install_path}/{name}"
                   for name in _listdir(root, install_path) if name.startswith("cann-")]
    trees = {}
    for tree in candidates:
        version = None if _is_link(root, tree) else toolkit_version(root, tree)
        if version:
            trees.setdefault(version, tree)
    return trees


def active_toolkit(root, install_path):
    """The toolkit version set_env.sh selects: what ascend-toolkit/latest leads to (a link to a
    version tree, a link to <install_path>/cann, or a directory of per-component links with its
    own version.cfg), else what <install_path>/cann leads to. None when neither exists."""
    for link in (f"{install_path}/ascend-toolkit/latest", f"{install_path}/cann"):
        version = toolkit_version(root, link)
        if version is None:
            cfg = parse_version_cfg(_read_text(root, f"{link}/version.cfg") or "")
            running = cfg.get("toolkit_running_version")
            version = running[-1][1] if running else None
        if version:
            return version
    return None


def layout_of(tree):
    """'cann-prefixed' for a cann-<ver> tree (8.5 on), 'toolkit-versioned' for
    ascend-toolkit/<ver> (up to 8.3)."""
    return "cann-prefixed" if posixpath.basename(tree).startswith("cann-") else "toolkit-versioned"


def kernels_version(root, tree):
    """Version of the kernels/ops package installed into a toolkit tree (version_dir of
    opp_kernel/version.info, else its Version), None when it is not installed."""
    info = read_info(root, f"{tree}/opp_kernel/version.info")
    if info is None:
        return None
    return info.get("version_dir") or info.get("Version")


def find_cann(root, install_path):
    """Every installed CANN toolkit, the active one, its layout, kernels per version and the
    toolkit set_env.sh files that exist."""
    trees = toolkit_trees(root, install_path)
    installed = sorted(trees, key=cann_sort_key)
    active = active_toolkit(root, install_path)
    if active in trees:
        layout = layout_of(trees[active])
    else:
        layout = layout_of(trees[installed[-1]]) if installed else None
    scripts = [f"{install_path}/ascend-toolkit/set_env.sh", f"{install_path}/cann/set_env.sh"]
    scripts += [f"{trees[version]}/set_env.sh" for version in installed]
    return {
        "installed": installed,
        "active": active,
        "layout": layout,
        "paths": {version: trees[version] for version in installed},
        "kernels": {version: kernels_version(root, trees[version]) for version in installed},
        "set_env": [script for script in scripts if _is_file(root, script)],
    }


def find_nnal(root, install_path):
    """NNAL (ATB) under <install_path>/nnal/atb: versions installed, the one `latest` leads to
    (and its full build version), set_env.sh. None when NNAL is not installed."""
    atb = f"{install_path}/nnal/atb"
    installed = []
    for name in _listdir(root, atb):
        info = None if name == "latest" else read_info(root, f"{atb}/{name}/version.info")
        if info is not None and not _is_link(root, f"{atb}/{name}"):
            installed.append(info.get("Ascend-cann-atb") or name)
    latest = read_info(root, f"{atb}/latest/version.info")
    if not installed and latest is None:
        return None
    latest = latest or {}
    return {
        "installed": sorted(installed, key=cann_sort_key),
        "active": latest.get("Ascend-cann-atb"),
        "version": latest.get("Ascend-cann-atb Version"),
        "set_env": f"{atb}/set_env.sh" if _is_file(root, f"{atb}/set_env.sh") else None,
    }


def read_stack(root="", install_path=DEFAULT_INSTALL_PATH):
    """Driver, firmware, /etc/ascend_install.info, CANN and NNAL of a node as plain dicts."""
    root = root.rstrip("/")
    install_path = posixpath.normpath(install_path)
    install_info = read_info(root, INSTALL_INFO)
    return {
        "install_info": install_info,
        "driver": read_driver(root, install_path, install_info),
        "firmware": read_firmware(root, install_path, install_info),
        "cann": find_cann(root, install_path),
        "nnal": find_nnal(root, install_path),
    }
