"""A small runner around rootful podman, with the project's containers.conf."""

import json
import os
import pathlib
import subprocess
import tempfile

SIM_DIR = pathlib.Path(__file__).resolve().parent.parent
CONTAINERS_CONF = SIM_DIR / "podman" / "containers.conf"
NETWORK = "ascend-sim"
# Static addresses for `up` sit below .128; podman hands out .128 and above (molecule's nodes).
SUBNET = "10.89.40.0/24"
DYNAMIC_RANGE = "10.89.40.128/25"


def env():
    return {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF)}


def run(*args, capture=False, check=True, stdin=None):
    """Run `podman ARGS`; return stdout when capture is set."""
    result = subprocess.run(["podman", *args], env=env(), check=False, stdin=stdin,
                            stdout=subprocess.PIPE if capture else None,
                            stderr=subprocess.PIPE if capture else None, text=True)
    if check and result.returncode != 0:
        detail = (result.stderr or "").strip()
        raise SystemExit(f"podman {' '.join(args[:2])} failed ({result.returncode}) {detail}")
    return result.stdout if capture else result.returncode


def image_exists(tag):
    return run("image", "exists", tag, check=False) == 0


def _network_is_internal():
    """True when the network exists as created here. Being the configured default network, podman
    shows a stand-in of that name (routed, 10.88/16) until it exists: that one does not count."""
    out = run("network", "inspect", NETWORK, capture=True, check=False)
    networks = json.loads(out) if out and out.strip().startswith("[") else []
    return bool(networks) and networks[0].get("internal") is True


def _run_with_other_default(*args):
    """podman ARGS with another default network, so that NETWORK itself can be made or removed."""
    conf = CONTAINERS_CONF.read_text().replace(f'default_network = "{NETWORK}"',
                                               'default_network = "podman"')
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as tmp:
        tmp.write(conf)
        tmp.flush()
        subprocess.run(["podman", *args], env={**os.environ, "CONTAINERS_CONF": tmp.name},
                       check=True, stdout=subprocess.DEVNULL)


def ensure_network():
    """The internal network every simulated node sits on: no route off this machine."""
    if not _network_is_internal():
        _run_with_other_default("network", "create", "--internal", "--subnet", SUBNET,
                                "--ip-range", DYNAMIC_RANGE, NETWORK)


def remove_network():
    if _network_is_internal():
        _run_with_other_default("network", "rm", "--force", NETWORK)
