"""What a simulated node does at boot: the hardware the driver would expose.

`ascend-sim boot` runs from ascend-sim-node.service inside a node. It gives the node an Atlas
800I A2 state when it has none yet (8 x 910B3), makes the device nodes a real node has
(/dev/davinci<N> per card, davinci_manager, devmm_svm, hisi_hdc: mode 0660, group HwHiAiUser once
the driver installer has created it), and stands in for the kernel headers of the running kernel
(the driver's DKMS build looks for /lib/modules/<release>/build; containers share the host kernel,
for which no Debian headers package exists).
"""

import grp
import json
import os
import pathlib
import stat
import subprocess

STATE_FILE = "var/lib/ascend-sim/state.json"
DEFAULT_CHIP = "910B3"
DEFAULT_CARDS = 8
# Majors as on real hosts where known (hisi_hdc 237, devmm_svm 238); the others are stand-ins.
DEVICE_MAJORS = {"davinci": 236, "davinci_manager": 235, "hisi_hdc": 237, "devmm_svm": 238}
DRIVER_GROUP = "HwHiAiUser"


def _mknod(path, major, minor, gid):
    if not path.exists():
        os.mknod(path, 0o660 | stat.S_IFCHR, os.makedev(major, minor))
    os.chown(path, 0, gid)
    os.chmod(path, 0o660)


def make_devices(root, npu_ids):
    """Create the NPU device nodes under root/dev, owned by HwHiAiUser's group when it exists."""
    try:
        gid = grp.getgrnam(DRIVER_GROUP).gr_gid
    except KeyError:
        gid = 0
    dev = pathlib.Path(root) / "dev"
    for npu_id in npu_ids:
        _mknod(dev / f"davinci{npu_id}", DEVICE_MAJORS["davinci"], npu_id, gid)
    for name in ("davinci_manager", "hisi_hdc", "devmm_svm"):
        _mknod(dev / name, DEVICE_MAJORS[name], 0, gid)


def cmd_boot(args):
    root = pathlib.Path(args.root)
    state_file = root / STATE_FILE
    if not state_file.exists():
        subprocess.run(["/usr/local/bin/ascend-sim", "init", "--root", str(root),
                        "--chip", DEFAULT_CHIP, "--cards", str(DEFAULT_CARDS)], check=True)
    state = json.loads(state_file.read_text())
    make_devices(root, [card["npu_id"] for card in state["cards"]])
    (root / "lib/modules" / os.uname().release / "build").mkdir(parents=True, exist_ok=True)


def register(subparsers):
    parser = subparsers.add_parser("boot", help="(inside a node) bring up the simulated hardware")
    parser.add_argument("--root", default=os.environ.get("ASCEND_SIM_ROOT", "/"))
    parser.set_defaults(func=cmd_boot)
