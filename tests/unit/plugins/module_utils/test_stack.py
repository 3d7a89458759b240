"""The stack parsers on the real version files (tests/fixtures/versions), and the CANN/NNAL
discovery on temporary node trees built from them: both toolkit layouts, several versions side
by side, `latest` switched, the driver missing, NNAL present or absent."""

import json
import pathlib
import posixpath
import re
import subprocess
import sys
from importlib import metadata

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._stack import (
    PACKAGES_SCRIPT,
    cann_sort_key,
    package_key,
    parse_version_cfg,
    parse_version_info,
    read_stack,
    resolve,
)

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "versions"
TOOLKITS = "ascend_toolkit_install.info-samples.txt"
HDK = "mind-cluster-faultdiag-driver-firmware-cann-version-files.txt"
LAYOUT = "version.cfg-and-latest-layout-samples.txt"
INSTALL = "hdk-driver-firmware-install-output-910A-24.1.0.txt"
ASCEND = "/usr/local/Ascend"


def sample(name, marker, nth=0):
    """The verbatim lines after the nth line of a fixture containing marker, up to a blank."""
    lines = (FIXTURES / name).read_text().splitlines()
    start = [index for index, line in enumerate(lines) if marker in line][nth]
    block = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        block.append(line)
    return "\n".join(block) + "\n"


def toolkit_sample(marker):
    """ascend_toolkit_install.info of one real install, e.g. toolkit_sample("(CANN 8.3.RC2")."""
    return sample(TOOLKITS, marker)


class Tree:
    """A node's filesystem under a temporary directory, written by node path."""

    def __init__(self, root):
        self.root = root

    def path(self, node_path):
        return self.root / node_path.lstrip("/")

    def write(self, node_path, text=""):
        path = self.path(node_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def link(self, node_path, target):
        path = self.path(node_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.symlink_to(target)

    def toolkit(self, info, kernels=False):
        """A toolkit tree where the info's path= puts it (<tree>/<arch>-linux or the tree
        itself), with its set_env.sh; kernels adds opp_kernel/version.info. Returns the tree."""
        values = parse_version_info(info)
        tree = values["path"]
        if tree.endswith("-linux"):
            tree = posixpath.dirname(tree)
        self.write(f"{tree}/{values['arch']}-linux/ascend_toolkit_install.info", info)
        self.write(f"{tree}/set_env.sh" if "/cann-" in tree else
                   f"{posixpath.dirname(tree)}/set_env.sh", "# set_env.sh\n")
        if kernels:
            self.write(f"{tree}/opp_kernel/version.info",
                       f"Version=8.3.T5.0.B028\nversion_dir={values['version']}\n")
        return tree

    def nnal(self, version_info, version):
        self.write(f"{ASCEND}/nnal/atb/{version}/version.info", version_info)
        self.write(f"{ASCEND}/nnal/atb/set_env.sh", "# set_env.sh\n")
        self.link(f"{ASCEND}/nnal/atb/latest", version)


@pytest.fixture
def tree(tmp_path):
    return Tree(tmp_path / "root")


def stack(tree, install_path=ASCEND):
    return read_stack(str(tree.root), install_path)


# --- file formats -------------------------------------------------------------------------------


def test_driver_and_firmware_version_info():
    driver = parse_version_info(sample(LAYOUT, "cat /usr/local/Ascend/driver/version.info"))
    assert driver == {
        "Version": "24.1.rc2.2", "ascendhal_version": "7.35.23", "aicpu_version": "1.0",
        "tdt_version": "1.0", "log_version": "1.0", "prof_version": "2.0",
        "dvppkernels_version": "1.1", "tsfw_version": "1.0",
        "Innerversion": "V100R001C18SPC001B233",
        "compatible_version": "[V100R001C30],[V100R001C13],[V100R001C15],[V100R001C17],"
                              "[V100R001C18]",
        "compatible_version_fw": "[7.0.0,7.2.99]", "package_version": "24.1.rc2.2"}
    firmware = parse_version_info(sample(HDK, "cat /usr/local/Ascend/firmware/version.info"))
    assert firmware == {"Version": "7.1.0.11.220", "firmware_version": "1.0",
                        "package_version": "23.0.7",
                        "compatible_version_drv": "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"}


def test_install_info_and_toolkit_info():
    assert parse_version_info(sample(INSTALL, "cat /etc/ascend_install.info")) == {
        "UserName": "HwHiAiUser", "UserGroup": "HwHiAiUser", "Driver_Install_Type": "full",
        "Driver_Install_Path_Param": "/usr/local/Ascend", "Driver_Install_For_All": "yes",
        "Driver_Install_Mode": "normal", "Firmware_Install_Type": "full",
        "Firmware_Install_Path_Param": "/usr/local/Ascend"}
    assert parse_version_info(toolkit_sample("(CANN 8.0.RC3")) == {
        "package_name": "Ascend-cann-toolkit", "version": "8.0.RC3",
        "innerversion": "V100R001C19SPC001B155",
        "compatible_version": "[V100R001C13,V100R001C19],[V100R001C30]", "arch": "aarch64",
        "os": "linux", "path": "/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux"}


def test_nnal_version_info_with_colons_and_indent():
    info = parse_version_info(sample(LAYOUT, "nnal/atb/latest/version.info"))
    assert info == {"Ascend-cann-atb": "8.2.RC2", "Ascend-cann-atb Version": "8.2.RC2.B030",
                    "Platform": "aarch64", "branch": "br_release_cann_8.2.RC1_20251226",
                    "commit id": "02a94694766ebf12d820aa4b5d9c95c4fe149379"}


def test_version_info_edge_lines():
    text = "# comment: x\n\n\tversion=8.3.RC1\nno separator\nversion=again\n=empty key\nk=a=b\n"
    assert parse_version_info(text) == {"version": "8.3.RC1", "k": "a=b"}


def test_version_cfg_running_and_installed():
    cfg = parse_version_cfg(sample(LAYOUT, "latest/version.cfg"))
    assert len(cfg) == 24
    assert set(map(tuple, cfg.values())) == {(("8.2.0.2.220", "8.2.RC2"),)}
    side_by_side = parse_version_cfg(sample(LAYOUT, "latest/version.cfg", nth=1))
    assert side_by_side["toolkit_running_version"] == [("7.3.0.1.231", "8.0.RC2")]
    assert side_by_side["toolkit_installed_version"] == [
        ("7.0.0.5.242", "7.0.RC1"), ("7.1.0.3.220", "7.0.0"), ("7.3.0.1.231", "8.0.RC2")]
    assert side_by_side["opp_kernel_installed_version"] == [
        ("7.2.T7.0.B121", "8.0.RC1.alpha002"), ("7.3.0.1.231", "8.0.RC2")]
    excerpt = parse_version_cfg(sample(LAYOUT, "(excerpt, as pasted in the issue)"))
    assert excerpt["opp_kernel_installed_version"] == [
        ("7.7.T9.0.B057", "8.1.T6"), ("7.7.T12.0.B078", "8.1.RC1"), ("7.7.T20.0.B210", "8.1.RC1")]


def test_cann_ordering():
    versions = ["8.5.0", "8.1.RC1", "8.0.0", "9.1.0", "8.0.RC3", "8.3.RC2", "8.0.RC1.alpha002",
                "8.5.1", "7.0.0", "8.0.RC1", "8.3.RC1", "8.2.RC1", "8.1.T6", "8.0.RC2"]
    assert sorted(versions, key=cann_sort_key) == [
        "8.1.T6", "7.0.0", "8.0.RC1.alpha002", "8.0.RC1", "8.0.RC2", "8.0.RC3", "8.0.0",
        "8.1.RC1", "8.2.RC1", "8.3.RC1", "8.3.RC2", "8.5.0", "8.5.1", "9.1.0"]


def test_package_keys():
    assert [package_key(name) for name in ("torch-npu", "torch_npu", "Vllm-Ascend",
                                           "triton.ascend", "vllm")] == [
        "torch_npu", "torch_npu", "vllm_ascend", "triton_ascend", "vllm"]


def test_packages_script_reads_metadata_without_importing():
    out = subprocess.run([sys.executable, "-E", "-c", PACKAGES_SCRIPT, "PyTest", "ansible_core",
                          "no-such-distribution"], capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)
    assert found == {"version": ".".join(map(str, sys.version_info[:3])), "packages": {
        "PyTest": metadata.version("pytest"), "ansible_core": metadata.version("ansible-core"),
        "no-such-distribution": None}}


# --- the filesystem under root ------------------------------------------------------------------


def test_resolve_follows_absolute_links_under_root(tree):
    tree.write(f"{ASCEND}/cann-8.5.0/x")
    tree.link(f"{ASCEND}/cann", "cann-8.5.0")
    tree.link(f"{ASCEND}/ascend-toolkit/latest", f"{ASCEND}/cann")
    tree.link(f"{ASCEND}/loop", "loop")
    root = str(tree.root)
    assert resolve(root, f"{ASCEND}/ascend-toolkit/latest/x") == f"{ASCEND}/cann-8.5.0/x"
    assert resolve(root, f"{ASCEND}/ascend-toolkit/latest/../missing/./y") == \
        f"{ASCEND}/missing/y"
    assert resolve(root, f"{ASCEND}/loop/z") == f"{ASCEND}/loop/z"


def test_nothing_installed(tree):
    tree.path("/etc").mkdir(parents=True)
    assert stack(tree) == {
        "install_info": None, "driver": None, "firmware": None, "nnal": None,
        "cann": {"installed": [], "active": None, "layout": None, "paths": {}, "kernels": {},
                 "set_env": []}}


# --- driver and firmware ------------------------------------------------------------------------


def test_driver_firmware_and_install_record(tree):
    tree.write("/etc/ascend_install.info", sample(INSTALL, "cat /etc/ascend_install.info"))
    tree.write(f"{ASCEND}/driver/version.info",
               sample(LAYOUT, "cat /usr/local/Ascend/driver/version.info"))
    tree.write(f"{ASCEND}/firmware/version.info",
               sample(HDK, "cat /usr/local/Ascend/firmware/version.info"))
    found = stack(tree)
    assert found["driver"] == {"version": "24.1.rc2.2", "package_version": "24.1.rc2.2",
                               "innerversion": "V100R001C18SPC001B233",
                               "compatible_firmware": "[7.0.0,7.2.99]", "install_path": ASCEND}
    assert found["firmware"] == {"version": "7.1.0.11.220", "package_version": "23.0.7",
                                 "compatible_driver": "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]",
                                 "install_path": ASCEND}
    assert found["install_info"]["Driver_Install_For_All"] == "yes"


def test_driver_missing_firmware_present(tree):
    record = sample(INSTALL, "cat /etc/ascend_install.info")
    tree.write("/etc/ascend_install.info", re.sub(r"Driver_.*\n", "", record))
    tree.write(f"{ASCEND}/firmware/version.info",
               sample(HDK, "cat /usr/local/Ascend/firmware/version.info"))
    found = stack(tree)
    assert found["driver"] is None
    assert found["firmware"]["version"] == "7.1.0.11.220"
    assert found["install_info"] == {"UserName": "HwHiAiUser", "UserGroup": "HwHiAiUser",
                                     "Firmware_Install_Type": "full",
                                     "Firmware_Install_Path_Param": "/usr/local/Ascend"}


def test_driver_where_the_install_record_says(tree):
    record = sample(INSTALL, "cat /etc/ascend_install.info")
    tree.write("/etc/ascend_install.info", record.replace(
        "Driver_Install_Path_Param=/usr/local/Ascend", "Driver_Install_Path_Param=/opt/npu/"))
    tree.write("/opt/npu/driver/version.info", sample(HDK, "driver/version.info"))
    driver = stack(tree)["driver"]
    assert (driver["version"], driver["install_path"]) == ("24.1.rc1", "/opt/npu")
    assert driver["package_version"] is None
    assert driver["compatible_firmware"] == "[7.0.0,7.2.99]"


# --- CANN toolkits ------------------------------------------------------------------------------


def test_toolkits_side_by_side_up_to_8_3_and_latest_switched(tree):
    for marker in ("(CANN 8.0.0", "(CANN 8.2.RC1", "(CANN 8.0.RC3"):
        tree.toolkit(toolkit_sample(marker))
    tree.toolkit(toolkit_sample("(CANN 8.3.RC2"), kernels=True)
    tree.link(f"{ASCEND}/ascend-toolkit/latest", "8.2.RC1")
    toolkit = f"{ASCEND}/ascend-toolkit"
    assert stack(tree)["cann"] == {
        "installed": ["8.0.RC3", "8.0.0", "8.2.RC1", "8.3.RC2"],
        "active": "8.2.RC1",
        "layout": "toolkit-versioned",
        "paths": {version: f"{toolkit}/{version}"
                  for version in ("8.0.RC3", "8.0.0", "8.2.RC1", "8.3.RC2")},
        "kernels": {"8.0.RC3": None, "8.0.0": None, "8.2.RC1": None, "8.3.RC2": "8.3.RC2"},
        "set_env": [f"{toolkit}/set_env.sh"],
    }
    tree.link(f"{ASCEND}/ascend-toolkit/latest", "8.3.RC2")
    assert stack(tree)["cann"]["active"] == "8.3.RC2"


def test_cann_8_5_next_to_8_3_then_back(tree):
    old = tree.toolkit(toolkit_sample("(CANN 8.3.RC2"), kernels=True)
    new = tree.toolkit(toolkit_sample("(CANN 8.5.0 official"))
    tree.link(f"{ASCEND}/cann", "cann-8.5.0")
    tree.link(f"{ASCEND}/ascend-toolkit/latest", f"{ASCEND}/cann")
    assert (old, new) == (f"{ASCEND}/ascend-toolkit/8.3.RC2", f"{ASCEND}/cann-8.5.0")
    assert stack(tree)["cann"] == {
        "installed": ["8.3.RC2", "8.5.0"],
        "active": "8.5.0",
        "layout": "cann-prefixed",
        "paths": {"8.3.RC2": old, "8.5.0": new},
        "kernels": {"8.3.RC2": "8.3.RC2", "8.5.0": None},
        "set_env": [f"{ASCEND}/ascend-toolkit/set_env.sh", f"{ASCEND}/cann/set_env.sh",
                    f"{new}/set_env.sh"],
    }
    tree.link(f"{ASCEND}/ascend-toolkit/latest", "8.3.RC2")
    tree.path(f"{ASCEND}/cann").unlink()
    cann = stack(tree)["cann"]
    assert (cann["active"], cann["layout"]) == ("8.3.RC2", "toolkit-versioned")
    assert cann["set_env"] == [f"{ASCEND}/ascend-toolkit/set_env.sh", f"{new}/set_env.sh"]


def test_cann_link_alone_and_x86_64(tree):
    info = sample(HDK, "cat /usr/local/Ascend/cann/x86_64-linux/ascend_toolkit_install.info")
    tree.toolkit(info)
    tree.link(f"{ASCEND}/cann", "cann-8.5.0")
    cann = stack(tree)["cann"]
    assert (cann["installed"], cann["active"], cann["layout"]) == (
        ["8.5.0"], "8.5.0", "cann-prefixed")


def test_latest_as_a_directory_of_component_links(tree):
    """ascend-toolkit/latest as Sample A lists it: a directory of links into ../8.2.RC2/ with
    its own version.cfg; the tree itself as the 8.2.RC1 sample, with the version changed."""
    tree.toolkit(toolkit_sample("(CANN 8.2.RC1").replace("8.2.RC1", "8.2.RC2"))
    tree.toolkit(toolkit_sample("(CANN 8.1.RC1, aarch64"))
    latest = f"{ASCEND}/ascend-toolkit/latest"
    for line in sample(LAYOUT, "# ll /usr/local/Ascend/ascend-toolkit/latest/").splitlines():
        link = re.search(r" (\S+) -> (\S+)$", line)
        if link:
            tree.link(f"{latest}/{link.group(1)}", link.group(2))
    tree.path(f"{latest}/aarch64-linux").mkdir()
    tree.write(f"{latest}/version.cfg", sample(LAYOUT, "latest/version.cfg"))
    cann = stack(tree)["cann"]
    assert (cann["installed"], cann["active"], cann["layout"]) == (
        ["8.1.RC1", "8.2.RC2"], "8.2.RC2", "toolkit-versioned")


def test_a_tree_without_toolkit_info_is_not_installed(tree):
    tree.toolkit(toolkit_sample("(CANN 8.3.RC2"))
    tree.write(f"{ASCEND}/ascend-toolkit/8.2.RC1/opp_kernel/version.info", "Version=8.2\n")
    tree.link(f"{ASCEND}/ascend-toolkit/8.3", "8.3.RC2")
    tree.link(f"{ASCEND}/ascend-toolkit/latest", "8.2.RC1")
    cann = stack(tree)["cann"]
    assert (cann["installed"], cann["active"], cann["layout"]) == (
        ["8.3.RC2"], None, "toolkit-versioned")


def test_other_install_path(tree):
    info = toolkit_sample("(CANN 8.5.0 official").replace(ASCEND, "/opt/Ascend")
    tree.toolkit(info)
    tree.link("/opt/Ascend/ascend-toolkit/latest", "/opt/Ascend/cann-8.5.0")
    assert stack(tree)["cann"]["installed"] == []
    assert stack(tree, "/opt/Ascend/")["cann"]["active"] == "8.5.0"


# --- NNAL ---------------------------------------------------------------------------------------


def test_nnal_versions_and_latest(tree):
    info = sample(LAYOUT, "nnal/atb/latest/version.info")
    tree.nnal(info.replace("8.2.RC2", "8.3.RC2"), "8.3.RC2")
    tree.nnal(info, "8.2.RC2")
    assert stack(tree)["nnal"] == {"installed": ["8.2.RC2", "8.3.RC2"], "active": "8.2.RC2",
                                   "version": "8.2.RC2.B030",
                                   "set_env": f"{ASCEND}/nnal/atb/set_env.sh"}
    tree.link(f"{ASCEND}/nnal/atb/latest", "8.3.RC2")
    assert stack(tree)["nnal"]["version"] == "8.3.RC2.B030"


def test_nnal_absent_or_only_a_dangling_latest(tree):
    tree.toolkit(toolkit_sample("(CANN 8.3.RC2"))
    assert stack(tree)["nnal"] is None
    tree.link(f"{ASCEND}/nnal/atb/latest", "8.2.RC2")
    assert stack(tree)["nnal"] is None
