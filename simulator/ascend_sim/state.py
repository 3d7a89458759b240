"""The simulated node's hardware state, and the `init` / `set` commands that write it.

One JSON file, <root>/var/lib/ascend-sim/state.json, describes the NPUs an Atlas 800I A2 would
show: per card its ids, name, health, bus id, power, temperature, AI Core use and memory, the
HCCS topology with each card's CPU affinity, static processes, and the installer faults that the
simulated .run files obey (`installer_faults`). Driver and firmware versions are not state: the
simulated npu-smi reads them from the version files the installers write. Services add live
processes as <root>/run/ascend-sim/processes/*.json files (see `processes`).

Defaults without --seed reproduce a real 8 x 910B3 Atlas 800I A2 (bus ids, power, temperature,
idle HBM and CPU affinity as recorded from one); --seed varies power, temperature and idle HBM.
"""

import argparse
import json
import os
import pathlib
import random
import sys
import tempfile

STATE_FILE = "var/lib/ascend-sim/state.json"
PROCESS_DIR = "run/ascend-sim/processes"
SCHEMA_VERSION = 1
MAX_CARDS = 16
HEALTH_VALUES = ("OK", "Warning", "Alarm", "Critical", "UNKNOWN")
INSTALLER_COMPONENTS = ("driver", "firmware", "toolkit", "kernels", "nnal")
# HBM per chip (MB as npu-smi shows it) and AI Cores per chip.
CHIPS = {
    "910B1": {"hbm_total_mb": 65536, "aicore_count": 25},
    "910B2": {"hbm_total_mb": 65536, "aicore_count": 24},
    "910B2C": {"hbm_total_mb": 65536, "aicore_count": 24},
    "910B3": {"hbm_total_mb": 65536, "aicore_count": 20},
    "910B4": {"hbm_total_mb": 32768, "aicore_count": 20},
}
# Idle HBM use (driver reservation) as recorded: 64 GB chips ~3314 MB, the 32 GB 910B4 2854 MB.
IDLE_HBM_MB = {65536: 3314, 32768: 2854}
# Per physical NPU id: an 8-card 800I A2 (0-7) and a 16-card host (8-15), as recorded.
BUS_IDS_8 = ("C1", "C2", "81", "82", "01", "02", "41", "42")
BUS_IDS_16 = ("5A", "19", "49", "39", "DA", "99", "B8", "C8",
              "59", "18", "48", "38", "D9", "98", "B9", "C9")
POWER_W = (101.8, 92.0, 102.0, 99.8, 98.6, 99.7, 103.8, 98.2,
           95.4, 94.4, 98.7, 96.6, 95.0, 97.5, 99.2, 96.2)
TEMP_C = (43, 39, 40, 40, 45, 44, 45, 44, 54, 55, 55, 57, 57, 57, 52, 55)
HBM_IDLE_OFFSET_MB = (4, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, -1, 1, 0, 0)
# Two neighbouring cards share one 24-core range (a 192-core host); 8-15 take the free ranges.
CPU_AFFINITY = ("144-167", "96-119", "0-23", "48-71", "168-191", "120-143", "24-47", "72-95")
# Board facts of a real 910B card (npu-smi info -t board); IT21HMDC_Bin6 is what 910B3 hosts show.
BOARD = {"product_name": "IT21HMDC_Bin6", "board_id": "0x60", "pci_device_id": "0xD802",
         "subsystem_device_id": "0x3003"}


class StateError(Exception):
    """A request the state cannot satisfy; the message names the option, value and fix."""


def root_dir(root=None):
    """The simulated filesystem root: --root, else $ASCEND_SIM_ROOT, else /."""
    return pathlib.Path(root or os.environ.get("ASCEND_SIM_ROOT") or "/")


def build_state(chip, cards, first_npu_id=0, seed=None):
    """A fresh Atlas 800I A2 state: `cards` idle, healthy cards with NPU ids from first_npu_id."""
    if chip not in CHIPS:
        raise StateError(f"--chip {chip!r}: allowed values are {', '.join(CHIPS)}")
    last = first_npu_id + cards
    if not 1 <= cards <= MAX_CARDS or first_npu_id < 0 or last > MAX_CARDS:
        raise StateError(f"--cards {cards} --first-npu-id {first_npu_id}: cards must be 1..16 "
                         f"and NPU ids stay within 0..{MAX_CARDS - 1}")
    rng = random.Random(seed) if seed is not None else None
    hbm_total = CHIPS[chip]["hbm_total_mb"]
    bus_ids = BUS_IDS_8 if last <= len(BUS_IDS_8) else BUS_IDS_16
    npu_ids = list(range(first_npu_id, last))
    card_list = []
    for npu_id in npu_ids:
        power, temp, offset = POWER_W[npu_id], TEMP_C[npu_id], HBM_IDLE_OFFSET_MB[npu_id]
        if rng:
            power, temp = round(rng.uniform(88, 106), 1), rng.randint(37, 47)
            offset = rng.randint(0, 5)
        card_list.append({
            "npu_id": npu_id, "chip_id": 0, "name": chip, "health": "OK",
            "bus_id": f"0000:{bus_ids[npu_id]}:00.0", "power_w": power, "temp_c": temp,
            "hugepages_used": 0, "hugepages_total": 0, "aicore_pct": 0,
            "memory_used_mb": 0, "memory_total_mb": 0,
            "hbm_used_mb": IDLE_HBM_MB[hbm_total] + offset, "hbm_total_mb": hbm_total,
            "serial_number": f"1025C904{8791 + npu_id:04d}",
        })
    return {
        "schema_version": SCHEMA_VERSION, "model": "Atlas 800I A2", "chip": chip,
        "layout": "wide", "hbm_includes_processes": True, "npu_smi_version": None,
        "board": dict(BOARD), "cards": card_list,
        "topology": {
            "links": [["X" if a == b else "HCCS" for b in npu_ids] for a in npu_ids],
            "cpu_affinity": [CPU_AFFINITY[npu_id // 2] for npu_id in npu_ids],
        },
        "processes": [], "installer_faults": [],
    }


def load(root):
    """Read the state of the node at root; StateError when there is none."""
    path = root_dir(root) / STATE_FILE
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise StateError(f"no simulator state at {path}: run `ascend-sim init` first") from None


def save(root, state):
    """Write the state atomically (temp file in the same directory, then rename)."""
    path = root_dir(root) / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".state.", suffix=".json")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(state, handle, indent=2)
            handle.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _pid_alive(pid):
    return pathlib.Path(f"/proc/{pid}").exists()


def processes(root, state, check_pids=None):
    """Static processes from the state plus live ones from run/ascend-sim/processes/*.json.

    A live file counts while its pid runs. By default pids are only checked when root is /
    (a test root's pids mean nothing on this machine). Unreadable files are skipped.
    """
    found = [dict(proc) for proc in state.get("processes", [])]
    if check_pids is None:
        check_pids = root_dir(root).resolve() == pathlib.Path("/")
    for path in sorted((root_dir(root) / PROCESS_DIR).glob("*.json")):
        try:
            proc = json.loads(path.read_text())
            entry = {key: proc[key] for key in ("npu_id", "chip_id", "pid", "name", "memory_mb")}
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not check_pids or _pid_alive(entry["pid"]):
            found.append(entry)
    return found


# --- the `set` command ---------------------------------------------------------------------

def _find_card(state, option, raw_id):
    try:
        npu_id = int(raw_id)
    except ValueError:
        npu_id = None
    for card in state["cards"]:
        if card["npu_id"] == npu_id:
            return card
    ids = ", ".join(str(card["npu_id"]) for card in state["cards"])
    raise StateError(f"{option} {raw_id!r}: no card with that NPU id; this node has NPU {ids}")


def _number(option, item, text, kind, low, high):
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        label = "an integer" if kind is int else "a number"
        raise StateError(f"{option} {item!r}: {text!r} is not {label} in {low}..{high}")
    return value


def _split(option, item, sep, parts, form):
    fields = item.split(sep)
    if len(fields) != parts or not all(fields):
        raise StateError(f"{option} {item!r}: expected {form}")
    return fields


# option, argparse attribute, card key, type, upper bound (None: the card's HBM size)
NUMERIC_OPTIONS = (("--hbm-used", "hbm_used", "hbm_used_mb", int, None),
                   ("--aicore", "aicore", "aicore_pct", int, 100),
                   ("--temp", "temp", "temp_c", int, 110),
                   ("--power", "power", "power_w", float, 800.0))


def apply_changes(state, args):
    """Apply the options of `set` to state (a dict) in place; StateError on any bad input."""
    for item in args.health or []:
        npu, value = _split("--health", item, "=", 2, "N=" + "|".join(HEALTH_VALUES))
        canonical = {v.lower(): v for v in HEALTH_VALUES}.get(value.lower())
        if canonical is None:
            raise StateError(f"--health {item!r}: {value!r} is not one of "
                             f"{', '.join(HEALTH_VALUES)}")
        _find_card(state, "--health", npu)["health"] = canonical
    for option, attr, key, kind, high in NUMERIC_OPTIONS:
        for item in getattr(args, attr) or []:
            npu, text = _split(option, item, "=", 2, "N=VALUE")
            card = _find_card(state, option, npu)
            limit = card["hbm_total_mb"] if high is None else high
            value = _number(option, item, text, kind, 0, limit)
            card[key] = round(value, 1) if kind is float else value
    for item in args.process or []:
        npu, pid, name, memory = _split("--process", item, ":", 4, "N:PID:NAME:MB")
        card = _find_card(state, "--process", npu)
        state["processes"].append({
            "npu_id": card["npu_id"], "chip_id": card["chip_id"],
            "pid": _number("--process", item, pid, int, 1, 2**22),
            "name": name,
            "memory_mb": _number("--process", item, memory, int, 0, card["hbm_total_mb"]),
        })
    faults = state.setdefault("installer_faults", [])
    for component in args.fail_installer or []:
        if component not in faults:
            faults.append(component)
    for component in args.clear_installer_fault or []:
        if component in faults:
            faults.remove(component)
    if args.npu_smi_version is not None:
        state["npu_smi_version"] = args.npu_smi_version or None


def _fail(command, error):
    print(f"ascend-sim {command}: error: {error}", file=sys.stderr)
    return 2


def cmd_init(args):
    path = root_dir(args.root) / STATE_FILE
    if path.exists() and not args.force:
        return _fail("init", f"{path} exists; pass --force to replace it")
    try:
        state = build_state(args.chip, args.cards, args.first_npu_id, args.seed)
    except StateError as error:
        return _fail("init", error)
    save(args.root, state)
    ids = [card["npu_id"] for card in state["cards"]]
    print(f"{path}: {state['model']}, {len(ids)} x {args.chip} (NPU {ids[0]}-{ids[-1]})")
    return 0


def cmd_set(args):
    try:
        state = load(args.root)
        if args.clear_processes:
            state["processes"] = []
        apply_changes(state, args)
    except StateError as error:
        return _fail("set", error)
    save(args.root, state)
    return 0


def _chip(text):
    chip = text.upper()
    if chip not in CHIPS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a supported chip; allowed values: {', '.join(CHIPS)}")
    return chip


def register(subparsers):
    """Add `init` and `set` to the ascend-sim command line."""
    root_help = "simulated filesystem root (default: $ASCEND_SIM_ROOT or /)"
    init = subparsers.add_parser("init", help="write a fresh Atlas 800I A2 state")
    init.add_argument("--root", help=root_help)
    init.add_argument("--chip", type=_chip, default="910B3",
                      help=f"one of {', '.join(CHIPS)} (default 910B3)")
    init.add_argument("--cards", type=int, default=8, help="1..16 (default 8)")
    init.add_argument("--first-npu-id", type=int, default=0,
                      help="physical id of the first card (a container given davinci4-7: 4)")
    init.add_argument("--seed", type=int, help="vary power, temperature and idle HBM")
    init.add_argument("--force", action="store_true", help="replace an existing state")
    init.set_defaults(func=cmd_init)

    change = subparsers.add_parser("set", help="change the simulated hardware state")
    change.add_argument("--root", help=root_help)
    change.add_argument("--health", action="append", metavar="N=" + "|".join(HEALTH_VALUES))
    change.add_argument("--hbm-used", dest="hbm_used", action="append", metavar="N=MB",
                        help="idle HBM use of card N (processes add to it)")
    change.add_argument("--aicore", action="append", metavar="N=PCT")
    change.add_argument("--temp", action="append", metavar="N=C")
    change.add_argument("--power", action="append", metavar="N=W")
    change.add_argument("--process", action="append", metavar="N:PID:NAME:MB",
                        help="add a static process on card N")
    change.add_argument("--clear-processes", action="store_true",
                        help="remove static processes (applied before --process)")
    change.add_argument("--fail-installer", action="append", choices=INSTALLER_COMPONENTS,
                        help="make that installer fail")
    change.add_argument("--clear-installer-fault", action="append", choices=INSTALLER_COMPONENTS)
    change.add_argument("--npu-smi-version", metavar="VERSION",
                        help="version npu-smi reports for itself ('' = the driver's)")
    change.set_defaults(func=cmd_set)
