"""Test setup for the collection's plugins: imports and recorded npu-smi outputs.

`make setup` links the checkout as .state/collections/ansible_collections/ascend_fleet/vllm,
so putting .state/collections on sys.path makes `ansible_collections.ascend_fleet.vllm`
importable the way Ansible imports it on a managed node.
"""

import pathlib
import sys

import pytest

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
