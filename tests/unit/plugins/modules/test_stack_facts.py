"""stack_facts on temporary node trees, a real throw-away virtualenv holding fake distributions,
and fake compilers on PATH; nothing is mocked but the module's exit."""

import functools
import os
import sys
import textwrap
import types
import venv

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.modules import stack_facts

from ..module_utils.test_stack import (
    ASCEND,
    HDK,
    INSTALL,
    LAYOUT,
    Tree,
    sample,
    toolkit_sample,
)

PYTHON = ".".join(map(str, sys.version_info[:3]))
RELEASE = {"torch": "2.9.0", "torch_npu": "2.9.0.post1", "vllm": "0.18.0",
           "vllm-ascend": "0.18.0"}


def executable(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def node(tmp_path, monkeypatch):
    """A node tree with driver, firmware, CANN 8.3.RC2 (kernels) + 8.5.0 (active) and NNAL, its
    root given to the module; PATH holds only gcc 12.2.0 and gcc-11 (11.3.0)."""
    tree = Tree(tmp_path / "root")
    tree.write("/etc/ascend_install.info", sample(INSTALL, "cat /etc/ascend_install.info"))
    tree.write(f"{ASCEND}/driver/version.info",
               sample(LAYOUT, "cat /usr/local/Ascend/driver/version.info"))
    tree.write(f"{ASCEND}/firmware/version.info",
               sample(HDK, "cat /usr/local/Ascend/firmware/version.info"))
    tree.toolkit(toolkit_sample("(CANN 8.3.RC2"), kernels=True)
    tree.toolkit(toolkit_sample("(CANN 8.5.0 official"))
    tree.link(f"{ASCEND}/cann", "cann-8.5.0")
    tree.link(f"{ASCEND}/ascend-toolkit/latest", f"{ASCEND}/cann")
    tree.nnal(sample(LAYOUT, "nnal/atb/latest/version.info"), "8.2.RC2")
    monkeypatch.setattr(stack_facts, "NODE_ROOT", str(tree.root))
    bin_dir = tmp_path / "bin"
    executable(bin_dir / "gcc", "#!/bin/sh\necho 12.2.0\n")
    executable(bin_dir / "gcc-11", "#!/bin/sh\necho 11.3.0\n")
    executable(bin_dir / "gcc-ar-11", "#!/bin/sh\necho wrong\n")
    monkeypatch.setenv("PATH", str(bin_dir))
    return types.SimpleNamespace(tree=tree, bin=bin_dir)


@pytest.fixture
def venv_dir(tmp_path):
    """A real virtualenv (no pip) with the METADATA of the release's distributions only."""
    path = tmp_path / "venv"
    venv.create(path, with_pip=False, symlinks=True)
    site = next(path.glob("lib/python3*/site-packages"))
    for name, version in RELEASE.items():
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return path


@pytest.fixture
def run_module(run_module):
    """Run stack_facts with params; returns result, failed and warnings."""
    return functools.partial(run_module, stack_facts.main)


def test_whole_stack_with_a_venv(node, venv_dir, run_module):
    run = run_module(venv=str(venv_dir))
    assert not run.failed and run.result["changed"] is False and run.warnings == []
    facts = run.result["ansible_facts"]["ascend_stack"]
    assert facts["driver"] == {"version": "24.1.rc2.2", "package_version": "24.1.rc2.2",
                               "innerversion": "V100R001C18SPC001B233",
                               "compatible_firmware": "[7.0.0,7.2.99]", "install_path": ASCEND}
    assert facts["firmware"]["compatible_driver"] == "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"
    assert facts["install_info"]["UserName"] == "HwHiAiUser"
    assert facts["cann"] == {
        "installed": ["8.3.RC2", "8.5.0"], "active": "8.5.0", "layout": "cann-prefixed",
        "paths": {"8.3.RC2": f"{ASCEND}/ascend-toolkit/8.3.RC2",
                  "8.5.0": f"{ASCEND}/cann-8.5.0"},
        "kernels": {"8.3.RC2": "8.3.RC2", "8.5.0": None},
        "set_env": [f"{ASCEND}/ascend-toolkit/set_env.sh", f"{ASCEND}/cann/set_env.sh",
                    f"{ASCEND}/cann-8.5.0/set_env.sh"]}
    assert facts["nnal"] == {"installed": ["8.2.RC2"], "active": "8.2.RC2",
                             "version": "8.2.RC2.B030",
                             "set_env": f"{ASCEND}/nnal/atb/set_env.sh"}
    assert facts["gcc"] == {"default": "12.2.0", "cc": None, "installed": {"11": "11.3.0"}}
    assert facts["python"] == {"executable": str(venv_dir / "bin/python"), "version": PYTHON}
    assert facts["packages"] == {"torch": "2.9.0", "torch_npu": "2.9.0.post1", "vllm": "0.18.0",
                                 "vllm_ascend": "0.18.0", "triton_ascend": None}


@pytest.mark.parametrize("params", [{}, {"gcc": False}, {"install_path": "/opt/Ascend"}])
def test_check_mode_gives_the_same_result(node, venv_dir, run_module, params):
    normal = run_module(venv=str(venv_dir), **params)
    checked = run_module(check_mode=True, venv=str(venv_dir), **params)
    assert checked.result == normal.result
    assert not normal.failed and normal.result["changed"] is False


def test_both_spellings_and_an_explicit_python(node, venv_dir, run_module):
    run = run_module(python=str(venv_dir / "bin/python"), gcc=False,
                     packages=["torch-npu", "vllm_ascend", "Triton-Ascend"])
    facts = run.result["ansible_facts"]["ascend_stack"]
    assert facts["packages"] == {"torch_npu": "2.9.0.post1", "vllm_ascend": "0.18.0",
                                 "triton_ascend": None}
    assert "gcc" not in facts


def test_python3_on_path_without_venv(node, run_module):
    (node.bin / "python3").symlink_to(sys.executable)
    run = run_module(packages=["pytest"])
    facts = run.result["ansible_facts"]["ascend_stack"]
    assert facts["python"] == {"executable": str(node.bin / "python3"), "version": PYTHON}
    assert facts["packages"]["pytest"] is not None


def test_other_install_path_and_no_driver(node, venv_dir, run_module):
    node.tree.write("/opt/Ascend/nnal/atb/8.5.1/version.info", "Ascend-cann-atb : 8.5.1\n")
    node.tree.write("/etc/ascend_install.info", "UserName=HwHiAiUser\n")
    facts = run_module(venv=str(venv_dir), install_path="/opt/Ascend").result[
        "ansible_facts"]["ascend_stack"]
    assert (facts["driver"], facts["firmware"]) == (None, None)
    assert facts["install_info"] == {"UserName": "HwHiAiUser"}
    assert facts["cann"]["installed"] == []
    assert facts["nnal"] == {"installed": ["8.5.1"], "active": None, "version": None,
                             "set_env": None}


def test_missing_venv_warns_and_reports_nothing(node, tmp_path, run_module):
    run = run_module(venv=str(tmp_path / "nowhere"), gcc=False)
    assert not run.failed
    facts = run.result["ansible_facts"]["ascend_stack"]
    assert facts["python"] is None
    assert facts["packages"] == dict.fromkeys(
        ["torch", "torch_npu", "vllm", "vllm_ascend", "triton_ascend"])
    assert run.warnings == [f"{tmp_path}/nowhere/bin/python does not exist or is not "
                            "executable, so the facts have no Python version and every "
                            "package is null"]


def test_a_python_that_cannot_run_fails(node, tmp_path, run_module):
    python = executable(tmp_path / "old/bin/python", textwrap.dedent("""\
        #!/bin/sh
        echo "ModuleNotFoundError: No module named 'importlib.metadata'" >&2
        exit 1
        """))
    run = run_module(python=str(python))
    assert run.failed
    assert run.result["msg"] == (
        f"{python} could not list its packages with importlib.metadata (Python 3.8 or newer is "
        "needed): ModuleNotFoundError: No module named 'importlib.metadata'")
    assert run.result["rc"] == 1


def test_a_compiler_that_fails_is_null(node, venv_dir, run_module):
    executable(node.bin / "cc", "#!/bin/sh\nexit 1\n")
    os.remove(node.bin / "gcc")
    facts = run_module(venv=str(venv_dir)).result["ansible_facts"]["ascend_stack"]
    assert facts["gcc"] == {"default": None, "cc": None, "installed": {"11": "11.3.0"}}
