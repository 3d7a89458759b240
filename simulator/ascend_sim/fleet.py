"""A simulated fleet: N node containers on the internal network, reachable over SSH.

`up --nodes N` starts `ascend-sim-node-1..N` at fixed addresses (inventories/sim lists them),
gives each the simulated state asked for, and installs the fleet's SSH key for the `fleet`
account. `down` removes the containers, the network and the fleet's state directory.
"""

import pathlib
import shutil
import subprocess
import time

from ascend_sim import image, podman

PROJECT_DIR = image.SIM_DIR.parent
STATE_DIR = PROJECT_DIR / ".state" / "fleet"
SSH_KEY = STATE_DIR / "ssh" / "id_ed25519"
NAME_PREFIX = "ascend-sim-node-"
LABEL = "ascend-sim.fleet=1"
MAX_NODES = 16


def node_address(index):
    """Node i (1-based) sits at .(10+i) of the internal subnet; inventories/sim says the same."""
    return f"10.89.40.{10 + index}"


def ensure_ssh_key():
    if not SSH_KEY.exists():
        SSH_KEY.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ascend-sim fleet",
                        "-f", str(SSH_KEY)], check=True)
    return SSH_KEY.with_suffix(".pub").read_text()


def wait_running(name, timeout=60):
    """Wait until systemd inside the node reports running (or degraded) and sshd answers."""
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        state = podman.run("exec", name, "systemctl", "is-system-running", capture=True,
                           check=False) or ""
        if state.strip() in ("running", "degraded"):
            return
        time.sleep(0.5)
    raise SystemExit(f"{name}: systemd did not finish booting in {timeout}s (state: {state!r})")


def exec_in(name, *cmd, stdin_text=None):
    proc = subprocess.run(["podman", "exec", "-i", name, *cmd], env=podman.env(), text=True,
                          input=stdin_text, capture_output=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: {' '.join(cmd)} failed: {proc.stderr.strip()}")
    return proc.stdout


def start_node(index, pubkey, chip, cards, node_image):
    """Start node `index` (reused when it runs the current image, else made anew)."""
    name = f"{NAME_PREFIX}{index}"
    if podman.run("container", "exists", name, check=False) == 0:
        current = podman.run("inspect", "--format", "{{.ImageName}}", name, capture=True).strip()
        if current != node_image:
            podman.run("rm", "--force", "--time", "5", name, capture=True)
    if podman.run("container", "exists", name, check=False) == 0:
        podman.run("start", name, capture=True)
    else:
        podman.run("run", "-d", "--name", name, "--hostname", f"atlas-sim-{index}",
                   "--label", LABEL, "--ip", node_address(index), "--cap-add", "SYS_ADMIN",
                   "--restart=always", "--pull=never", node_image, capture=True)
    wait_running(name)
    exec_in(name, "ascend-sim", "init", "--root", "/", "--chip", chip, "--cards", str(cards),
            "--force")
    exec_in(name, "ascend-sim", "boot")
    exec_in(name, "sh", "-c", "install -d -m 0700 -o fleet -g fleet ~fleet/.ssh && "
            "cat > ~fleet/.ssh/authorized_keys && chown fleet:fleet ~fleet/.ssh/authorized_keys",
            stdin_text=pubkey)
    print(f"{name}: {cards} x {chip} at {node_address(index)}")


def cmd_up(args):
    if not 1 <= args.nodes <= MAX_NODES:
        raise SystemExit(f"--nodes {args.nodes}: allowed 1..{MAX_NODES}")
    podman.ensure_network()
    node_image = image.build_node(pathlib.Path(args.cache_dir).resolve())
    pubkey = ensure_ssh_key()
    for index in range(1, args.nodes + 1):
        start_node(index, pubkey, args.chip, args.cards, node_image)


def cmd_down(args):
    names = podman.run("ps", "-a", "--filter", f"label={LABEL}", "--format", "{{.Names}}",
                       capture=True).split()
    if names:
        podman.run("rm", "--force", "--time", "5", *names, capture=True)
        print(f"removed {', '.join(names)}")
    if not args.keep_network:
        podman.remove_network()
    shutil.rmtree(STATE_DIR, ignore_errors=True)


def cmd_network(_args):
    podman.ensure_network()


def register(subparsers):
    up = subparsers.add_parser("up", help="start a simulated fleet reachable over SSH")
    up.add_argument("--nodes", type=int, default=2)
    up.add_argument("--chip", default="910B3")
    up.add_argument("--cards", type=int, default=8)
    up.add_argument("--cache-dir", default=str(image.CACHE_DIR))
    up.set_defaults(func=cmd_up)
    down = subparsers.add_parser("down", help="remove the simulated fleet and its network")
    down.add_argument("--keep-network", action="store_true",
                      help="leave the internal network (molecule's nodes may still use it)")
    down.set_defaults(func=cmd_down)
    network = subparsers.add_parser("network", help="create the internal network if missing")
    network.set_defaults(func=cmd_network)
