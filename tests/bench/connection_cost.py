"""Per-task cost of reaching a simulated node: SSH with pipelining, SSH without, podman exec.

Starts (or reuses) simulated node 1, runs tests/bench/connection_tasks.yml with N and 2N module
runs over each connection, and prints the seconds per task from the difference (so playbook start
and fact-free setup cancel out). Run from the repository root: `make bench-connection`.
"""

import os
import pathlib
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
PLAYBOOK = REPO / "tests" / "bench" / "connection_tasks.yml"
SIM = REPO / "simulator" / "ascend-sim"
BIN = REPO / ".venv" / "bin"
NODE = "ascend-sim-node-1"
TASKS = 20

CONNECTIONS = {
    "ssh, pipelining on": (["-i", str(REPO / "inventories" / "sim"), "--limit", "atlas-sim-1"],
                           {"ANSIBLE_PIPELINING": "true"}),
    "ssh, pipelining off": (["-i", str(REPO / "inventories" / "sim"), "--limit", "atlas-sim-1"],
                            {"ANSIBLE_PIPELINING": "false"}),
    "podman exec": (["-i", f"{NODE},", "-c", "containers.podman.podman",
                     "-e", "ansible_python_interpreter=/usr/bin/python3"], {}),
}


def run_playbook(args, env, tasks):
    start = time.monotonic()
    subprocess.run([str(BIN / "ansible-playbook"), str(PLAYBOOK), "-e", f"bench_tasks={tasks}",
                    *args], check=True, stdout=subprocess.DEVNULL, env={**os.environ, **env})
    return time.monotonic() - start


def main():
    subprocess.run([str(SIM), "up", "--nodes", "1"], check=True, stdout=subprocess.DEVNULL)
    print(f"{'connection':<22} {'per task':>9}   ({TASKS} and {2 * TASKS} stat tasks)")
    for name, (args, env) in CONNECTIONS.items():
        run_playbook(args, env, 1)  # warm up: SSH control socket, interpreter discovery
        short = run_playbook(args, env, TASKS)
        long = run_playbook(args, env, 2 * TASKS)
        print(f"{name:<22} {(long - short) / TASKS:>8.3f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
