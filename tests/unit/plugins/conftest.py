"""Test setup for the collection's plugins: imports, recorded npu-smi outputs and running a
module's main() to its exit.

`make setup` links the checkout as .state/collections/ansible_collections/ascend_fleet/vllm,
so putting .state/collections on sys.path makes `ansible_collections.ascend_fleet.vllm`
importable the way Ansible imports it on a managed node.
"""

import pathlib
import sys
import types

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / ".state" / "collections"))

NPU_SMI_FIXTURES = REPO / "tests" / "fixtures" / "npu-smi"


def read_npu_smi_fixture(name, marker="", nth=0):
    """One recorded output from tests/fixtures/npu-smi/<name>, as npu-smi printed it.

    The `# source:` / `# note:` header is dropped. Files holding several outputs are split at
    marker lines (`# --- ...` comments and `[root@...]$` prompts): `marker` picks the sections
    whose marker line contains it, `nth` which of them. Without a marker the file is one output.
    """
    lines = NPU_SMI_FIXTURES.joinpath(name).read_text().split("\n")[:-1]
    while lines and lines[0].startswith(("# source:", "# note:")):
        lines.pop(0)
    sections, found, body = [], "", []
    for line in lines:
        if line.startswith(("# ", "[root@")):
            sections.append((found, body))
            found, body = line, []
        else:
            body.append(line)
    sections.append((found, body))
    body = [body for found, body in sections if marker in found and (found or not marker)][nth]
    while body and not body[-1]:
        body.pop()
    return "\n".join(body) + "\n"


@pytest.fixture
def npu_smi_fixture():
    """read_npu_smi_fixture, for tests."""
    return read_npu_smi_fixture


class ModuleExit(Exception):
    """exit_json or fail_json was called."""

    def __init__(self, result, failed):
        super().__init__(result.get("msg"))
        self.result = result
        self.failed = failed


@pytest.fixture
def run_module(monkeypatch):
    """run(main, check_mode=False, **params): run a module's main() with params as its arguments
    and stop it at exit_json or fail_json; returns result, failed and the warnings it gave.

    Other internal arguments go in params too, like `_ansible_diff=True`. As the real exit_json
    and fail_json do, the exit removes the module's cleanup files first.
    """

    def run(main, check_mode=False, **params):
        warnings = []

        def leave(failed):
            def method(module, **result):
                module.do_cleanup_files()
                raise ModuleExit(result, failed)
            return method

        monkeypatch.setattr(basic.AnsibleModule, "warn", lambda module, text: warnings.append(text))
        monkeypatch.setattr(basic.AnsibleModule, "exit_json", leave(False))
        monkeypatch.setattr(basic.AnsibleModule, "fail_json", leave(True))
        with patch_module_args({**params, "_ansible_check_mode": check_mode}), \
                pytest.raises(ModuleExit) as done:
            main()
        return types.SimpleNamespace(result=done.value.result, failed=done.value.failed,
                                     warnings=warnings)

    return run
