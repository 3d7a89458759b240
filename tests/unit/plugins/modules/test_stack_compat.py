"""stack_compat: what it returns, when it fails, and that check mode changes nothing."""

import functools
import json
import os
import pathlib
import subprocess
import sys

import pytest
import yaml
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._compat import resolve
from ansible_collections.ascend_fleet.vllm.plugins.modules import stack_compat

MISMATCH = {"vllm_ascend": "0.23.0", "torch_npu": "2.9.0", "driver": "26.1.0"}
MISMATCH_SENTENCE = ("vllm-ascend 0.23.0 needs torch_npu 2.10.0.post4; this host has 2.9.0: "
                     "reinstall the python_stack for release v0.23.0.")


@pytest.fixture
def run_module(run_module):
    """Run stack_compat with the given parameters; returns result, failed and warnings."""
    return functools.partial(run_module, stack_compat.main)


def test_resolves_a_release(run_module):
    run = run_module(vllm_ascend="0.23.0")
    assert not run.failed
    assert run.result == {"changed": False, "release": resolve("0.23.0"), "violations": []}
    assert run.result["release"]["torch_npu"] == "2.10.0.post4"
    assert run.warnings == []


def test_fails_on_violations(run_module):
    run = run_module(**MISMATCH)
    assert run.failed
    assert run.result["msg"] == MISMATCH_SENTENCE
    assert run.result["violations"] == [MISMATCH_SENTENCE]
    assert run.result["release"]["vllm_ascend"] == "0.23.0"


def test_reports_violations_without_failing(run_module):
    run = run_module(fail_on_violation=False, **MISMATCH)
    assert not run.failed
    assert run.result["changed"] is False
    assert run.result["violations"] == [MISMATCH_SENTENCE]


def test_several_violations_make_one_message(run_module):
    run = run_module(vllm_ascend="0.23.0", torch_npu="2.9.0", cann="9.1.0", chip="910B")
    assert run.failed and len(run.result["violations"]) == 3
    assert "torch_npu 2.9.0 is built for CANN 8.5.0" in run.result["violations"][1]
    assert run.result["msg"] == " ".join(run.result["violations"])


@pytest.mark.parametrize("fail_on_violation", [True, False])
def test_unknown_versions_fail_whatever_fail_on_violation(run_module, fail_on_violation):
    run = run_module(vllm_ascend="0.12.0", fail_on_violation=fail_on_violation)
    assert run.failed
    assert run.result["msg"].startswith("vllm-ascend 0.12.0 is not in the compatibility matrix; "
                                        "the nearest known are 0.11.0rc3, 0.11.0, 0.12.0rc1 "
                                        "below and 0.13.0rc1, 0.13.0rc2, 0.13.0rc3 above")
    run = run_module(vllm_ascend="0.23.0", cann="8.4.0", fail_on_violation=fail_on_violation)
    assert run.failed and run.result["msg"].startswith("CANN 8.4.0 is not in the compatibility")
    run = run_module(vllm_ascend="0.23.0", driver="latest", fail_on_violation=fail_on_violation)
    assert run.failed and run.result["msg"].startswith("driver: 'latest' is not an Ascend")


def test_warnings_go_to_ansible(run_module):
    run = run_module(vllm_ascend="0.23.0", chip="310P3")
    assert not run.failed and run.result["violations"] == []
    assert run.warnings == [
        "310P3 is an Atlas 300I Duo (Ascend 310P) chip, which vllm-ascend supports experimentally "
        "only."]


@pytest.mark.parametrize("params", [
    {"vllm_ascend": "0.18.0"},
    {"fail_on_violation": False, **MISMATCH},
    MISMATCH,
    {"vllm_ascend": "0.7.0"},
])
def test_check_mode_gives_the_same_result(run_module, params):
    normal = run_module(**params)
    checked = run_module(check_mode=True, **params)
    assert (checked.result, checked.failed) == (normal.result, normal.failed)
    assert normal.result["changed"] is False


def test_without_packaging_it_says_how_to_run(run_module, monkeypatch):
    monkeypatch.setattr(stack_compat, "PACKAGING_IMPORT_ERROR", "ModuleNotFoundError: packaging")
    run = run_module(vllm_ascend="0.23.0")
    assert run.failed
    assert "(packaging)" in run.result["msg"]
    assert run.result["msg"].endswith("delegate_to: localhost.")
    assert run.result["exception"] == "ModuleNotFoundError: packaging"


def rendered_documentation(name):
    """The module's documentation as ansible-doc gives it, with its doc fragments merged in; the
    collection is found where the module was imported from."""
    collections = pathlib.Path(stack_compat.__file__).parents[5]
    env = {**os.environ, "ANSIBLE_COLLECTIONS_PATH": str(collections)}
    done = subprocess.run([sys.executable, "-m", "ansible", "doc", "--json", name], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)[name]["doc"]


def test_documentation_matches_the_options():
    documentation = yaml.safe_load(stack_compat.DOCUMENTATION)
    assert set(documentation["options"]) == {"vllm_ascend", "fail_on_violation",
                                             *stack_compat.VERSION_OPTIONS}
    assert documentation["options"]["fail_on_violation"]["default"] is True
    # check_mode's support comes from the collection's attributes doc fragment.
    rendered = rendered_documentation("ascend_fleet.vllm.stack_compat")
    assert rendered["attributes"]["check_mode"]["support"] == "full"
    returned = yaml.safe_load(stack_compat.RETURN)
    assert set(returned["release"]["contains"]) == set(resolve("0.23.0"))
    for example in yaml.safe_load(stack_compat.EXAMPLES):
        options = example.get("ascend_fleet.vllm.stack_compat")
        assert options is None or set(options) <= set(documentation["options"])
