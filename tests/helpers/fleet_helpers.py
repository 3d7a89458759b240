"""Helpers for molecule verifiers that drive this checkout's playbooks against their nodes.

Scenario tests (molecule/<scenario>/tests/) import this through their conftest.py. It lives
here, not in tests/integration/, which ansible-test reserves for its integration targets.
"""

import json
import os
import pathlib
import re
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
SIM = REPO / "simulator" / "ascend-sim"
# Where `make artifacts` puts each release's simulated artifacts (inventories/sim reads them).
ARTIFACTS = pathlib.Path("/var/cache/ascend-sim/artifacts")


def run_playbook(playbook, *args, extra_vars=None):
    """Run a playbook of this checkout against the scenario's inventory; returns the process.

    `extra_vars` (a dict) is passed as JSON, so lists and dicts keep their types.
    """
    extra = ["-e", json.dumps(extra_vars)] if extra_vars else []
    return subprocess.run(
        [str(REPO / ".venv/bin/ansible-playbook"), "-i", os.environ["MOLECULE_INVENTORY_FILE"],
         str(REPO / playbook), *extra, *args],
        cwd=REPO, capture_output=True, text=True, check=False,
        env={**os.environ, "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1",
             "ANSIBLE_FORCE_COLOR": "0"})


def changed_count(output, host):
    """The `changed=` count of `host` in a playbook's recap."""
    return int(re.search(rf"{re.escape(host)}\s*: ok=\d+\s+changed=(\d+)", output).group(1))


def node_exec(node, *cmd):
    """Run a command in a node container; returns its stdout."""
    return subprocess.run(["podman", "exec", node, *cmd], check=True, capture_output=True,
                          text=True).stdout


def checksums(release):
    """{file: sha256} of a release's simulated artifacts, from the SHA256SUMS `make artifacts`
    wrote."""
    sums = {}
    for line in (ARTIFACTS / release / "SHA256SUMS").read_text().splitlines():
        digest, file = line.split(None, 1)
        sums[file.lstrip("*")] = digest
    return sums
