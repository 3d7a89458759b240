"""The collection's stack reader (plugins/module_utils/_stack.py) on what the simulated .run
installers write: driver, firmware, CANN 8.3 (old layout) with kernels, then CANN 8.5 (new
layout) with ops and NNAL side by side, then 8.5 uninstalled again."""

import os
import pathlib
import subprocess
import sys

import pytest
from ascend_sim import installers
from test_installers import DRIVER, FIRMWARE, NNAL, OPS, RELEASE_83, TOOLKIT, TOOLKIT_83, Node

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / ".state" / "collections"))  # as `make setup` links the collection
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._stack import read_stack

ASCEND = "/usr/local/Ascend"
KERNELS_83 = "Ascend-cann-kernels-910b_8.3.RC2_linux-x86_64.run"
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the installers run as root")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The x86_64 .run files of releases/v0.18.0.yml and of the 8.3 release, in one directory."""
    out = tmp_path_factory.mktemp("artifacts")
    installers.build_artifacts(installers.load_release(REPO / "releases/v0.18.0.yml"), out,
                               "x86_64")
    installers.build_artifacts(RELEASE_83, out, "x86_64")
    return out


def install(node, name, *args, env=None):
    result = node.run(name, *args, env=env)
    assert result.returncode == 0, result.stdout


def test_what_the_installers_write_reads_back(tmp_path, runs):
    node = Node(tmp_path / "root", runs)
    assert read_stack(str(node.root))["driver"] is None
    install(node, DRIVER, "--full", "--quiet")
    install(node, FIRMWARE, "--full")
    install(node, TOOLKIT_83, "--install", "--quiet")
    install(node, KERNELS_83, "--install", "--quiet")
    found = read_stack(str(node.root))
    assert found["driver"] == {"version": "25.5.1", "package_version": "25.5.1",
                               "innerversion": installers.toolkit_inner("8.5.1"),
                               "compatible_firmware": "[7.0.0,7.8.99]", "install_path": ASCEND}
    assert found["firmware"] == {"version": "7.8.0.6.201", "package_version": "25.5.1",
                                 "compatible_driver": "[25.5.1,25.5.1.]", "install_path": ASCEND}
    assert found["install_info"] == {
        "UserName": "HwHiAiUser", "UserGroup": "HwHiAiUser", "Driver_Install_Type": "full",
        "Driver_Install_Path_Param": ASCEND, "Driver_Install_For_All": "no",
        "Driver_Install_Mode": "normal", "Firmware_Install_Type": "full",
        "Firmware_Install_Path_Param": ASCEND}
    assert found["cann"] == {
        "installed": ["8.3.RC2"], "active": "8.3.RC2", "layout": "toolkit-versioned",
        "paths": {"8.3.RC2": f"{ASCEND}/ascend-toolkit/8.3.RC2"},
        "kernels": {"8.3.RC2": "8.3.RC2"}, "set_env": [f"{ASCEND}/ascend-toolkit/set_env.sh"]}
    assert found["nnal"] is None

    install(node, TOOLKIT, "--install", "--quiet")
    install(node, OPS, "--install", "--quiet")
    install(node, NNAL, "--install", "--quiet",
            env=node.source(f"{ASCEND[1:]}/ascend-toolkit/set_env.sh"))
    found = read_stack(str(node.root))
    assert found["cann"] == {
        "installed": ["8.3.RC2", "8.5.1"], "active": "8.5.1", "layout": "cann-prefixed",
        "paths": {"8.3.RC2": f"{ASCEND}/ascend-toolkit/8.3.RC2", "8.5.1": f"{ASCEND}/cann-8.5.1"},
        "kernels": {"8.3.RC2": "8.3.RC2", "8.5.1": "8.5.1"},
        "set_env": [f"{ASCEND}/ascend-toolkit/set_env.sh", f"{ASCEND}/cann/set_env.sh",
                    f"{ASCEND}/cann-8.5.1/set_env.sh"]}
    assert found["nnal"] == {"installed": ["8.5.1"], "active": "8.5.1", "version": "8.5.1.B030",
                             "set_env": f"{ASCEND}/nnal/atb/set_env.sh"}

    uninstall = node.path(f"{ASCEND[1:]}/cann-8.5.1/x86_64-linux/script/uninstall.sh")
    assert subprocess.run([str(uninstall)], env=node.env, capture_output=True).returncode == 0
    cann = read_stack(str(node.root))["cann"]
    assert (cann["installed"], cann["active"], cann["layout"]) == (
        ["8.3.RC2"], "8.3.RC2", "toolkit-versioned")
