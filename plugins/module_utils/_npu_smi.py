"""Parsers for the text Huawei's `npu-smi` prints, and plain words for its failures.

Pure Python, standard library only: this runs on managed nodes (Python 3.8+) and in unit tests.
Every parser takes the text of one command and returns plain dicts and lists:

- parse_info(text): `npu-smi info`, the device table and the process table
- parse_topology(text): `npu-smi info -t topo`, link matrix and CPU affinity
- parse_details(text): `npu-smi info -t board|usages|health|temp|power|common -i N`
- parse_list(text): `npu-smi info -l`
- parse_mapping(text): `npu-smi info -m`
- parse_version(text): `npu-smi -v`
- explain_failure(output, rc, access): what a failed run means and what to do about it

Values npu-smi shows as `-` or `NA` are None; counts and sizes are ints, power is a float.
Lines a parser does not know are skipped, so truncated or decorated output never raises
anything but NpuSmiError.
"""

from __future__ import annotations

import re

from ansible_collections.ascend_fleet.vllm.plugins.module_utils._npu_smi_text import (
    MISSING,
    number,
    parse_details,
    parse_key_values,
    parse_list,
    parse_mapping,
    parse_topology,
    parse_version,
)

__all__ = [
    "DAVINCI_MANAGER",
    "DEVICE_KEYS",
    "NpuSmiError",
    "explain_failure",
    "first_line",
    "parse_details",
    "parse_info",
    "parse_key_values",
    "parse_list",
    "parse_mapping",
    "parse_topology",
    "parse_version",
]

# `| npu-smi 23.0.rc3          Version: 23.0.rc2.3      |`: the tool's version, then the driver's.
_HEADER = re.compile(r"npu-smi\s+(\S+)\s+Version:\s*(\S+)")
_BUS_ID = re.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]$")
# A used/total pair; the used value is padded to 5, so `29096/ 32768` and `3333 / 65536` occur.
_USAGE = re.compile(r"(\S+)\s*/\s*(\S+)")
_USAGE_COLUMN = re.compile(r"(Memory|HBM)-Usage")
_CARD = re.compile(r"^(\d+)(?:\s+(.*))?$")
# When the table header is cut off: the 910/910B layout (DDR memory, then HBM).
_DEFAULT_USAGE_COLUMNS = ("memory", "hbm")
DEVICE_KEYS = (
    "npu_id", "chip_id", "device_id", "name", "health", "bus_id", "power_w", "temp_c",
    "aicore_pct", "hbm_used_mb", "hbm_total_mb", "memory_used_mb", "memory_total_mb",
)
DAVINCI_MANAGER = "/dev/davinci_manager"


class NpuSmiError(Exception):
    """npu-smi printed something other than the output asked for."""


def _cells(line):
    """The stripped cells of a table row `| a | b |`; [] for borders and any other line."""
    line = line.strip()
    if not line.startswith("|") or line.startswith("|="):
        return []
    return [cell.strip() for cell in line[1:].rstrip("|").split("|")]


def _split_usage(cell):
    """`89.2  39  0    / 0` -> (["89.2", "39"], [(0, 0)]): the leading fields, then the pairs."""
    first = _USAGE.search(cell)
    lead = cell[:first.start()] if first else cell
    return lead.split(), [(number(used), number(total)) for used, total in _USAGE.findall(cell)]


def _card_row(cells):
    """Row 1 of a device, `| 4     910B4 | OK | 89.2  39  0 / 0 |`, as a dict; else None."""
    card = _CARD.match(cells[0])
    if card is None or not cells[1][:1].isalpha():  # health is a word: OK, Warning, ...
        return None
    lead, _hugepages = _split_usage(cells[2])
    power = number(lead[0]) if lead else None
    return {
        "npu_id": int(card.group(1)),
        "name": card.group(2) or None,
        "health": cells[1],
        "power_w": None if power is None else float(power),
        "temp_c": number(lead[1]) if len(lead) > 1 else None,
    }


def _chip_row(cells, usage_columns):
    """Row 2 of a device, `| 0 [device] | 0000:C1:00.0 | 0  0 / 0  3318 / 65536 |`, as a dict."""
    ids = cells[0].split()
    lead, pairs = _split_usage(cells[2])
    chip = {
        "chip_id": number(ids[0]) if ids else None,
        "device_id": number(ids[1]) if len(ids) > 1 else None,
        "bus_id": None if cells[1] in MISSING else cells[1],
        "aicore_pct": number(lead[0]) if lead else None,
    }
    for column, (used, total) in zip(usage_columns, pairs):
        chip[column + "_used_mb"], chip[column + "_total_mb"] = used, total
    return chip


def _process_row(cells):
    """`| 4  0 | 498807 | python | 26323 |` as a dict; None for any other row."""
    ids = cells[0].split()
    if len(cells) < 4 or len(ids) != 2 or not all(i.isdigit() for i in ids):
        return None
    if not cells[1].isdigit():
        return None
    return {
        "npu_id": int(ids[0]),
        "chip_id": int(ids[1]),
        "pid": int(cells[1]),
        "name": cells[2] or None,
        "memory_mb": number(cells[3]),
    }


def _device(card, chip):
    """One entry of `devices`: the card row and its chip row (None when cut off) merged."""
    device = dict.fromkeys(DEVICE_KEYS)
    device.update(card)
    device.update(chip or {})
    return device


def parse_info(text):
    """`npu-smi info`: {"npu_smi_version", "driver_version", "devices", "processes"}.

    `devices` has one dict per chip row pair (one per card on 910B; per chip on the A3 and on
    310/310P cards, which repeat the card row for each chip), with the keys of DEVICE_KEYS:
    npu_id (the physical id npu-smi prints, e.g. 4..7 in a container given davinci4-7), chip_id,
    device_id (the second number of the Chip row on layouts that print one: `Device` on 310P,
    `Phy-ID` on A3; None on 910B), name, health (as printed: OK, Warning, Alarm, Critical,
    UNKNOWN), bus_id, power_w, temp_c, aicore_pct, hbm_used_mb/hbm_total_mb and
    memory_used_mb/memory_total_mb (None when the layout has no such column: 310P has no HBM).
    `processes` has one dict per process row: npu_id, chip_id, pid, name (None when npu-smi
    prints none), memory_mb. `No running processes found in NPU <n>` rows add nothing.

    Raises NpuSmiError when the text holds neither the version header nor the device table.
    """
    result = {"npu_smi_version": None, "driver_version": None, "devices": [], "processes": []}
    usage_columns = _DEFAULT_USAGE_COLUMNS
    table_seen = False
    card = None  # a card row waiting for its chip row
    for line in text.splitlines():
        header = _HEADER.search(line)
        if header:
            result["npu_smi_version"], result["driver_version"] = header.groups()
            continue
        cells = _cells(line)
        if not cells:
            continue
        if "Bus-Id" in line:  # which used/total pairs the chip rows hold, in order
            found = _USAGE_COLUMN.findall(line)
            usage_columns = tuple(column.lower() for column in found) or usage_columns
        if "Health" in line or "Bus-Id" in line or "Process id" in line:
            table_seen = True
            continue
        process = _process_row(cells)
        if process:
            result["processes"].append(process)
            continue
        if len(cells) == 4:  # Ascend 950 (npu-smi 25.6) gives the NPU id a column of its own
            cells = [" ".join(cells[:2]).strip(), *cells[2:]]
        if len(cells) != 3:
            continue
        if card is not None and (_BUS_ID.match(cells[1]) or cells[1] in MISSING):
            result["devices"].append(_device(card, _chip_row(cells, usage_columns)))
            card = None
            continue
        row = _card_row(cells)
        if row is not None:
            if card is not None:
                result["devices"].append(_device(card, None))
            card = row
    if card is not None:
        result["devices"].append(_device(card, None))
    if not (table_seen or result["devices"] or result["driver_version"]):
        raise NpuSmiError("the output holds no `npu-smi info` table")
    return result


# What a failed run means ---------------------------------------------------------------------

_LIBRARY = re.compile(r"error while loading shared libraries: ([^:\s]+)")
_DCMI = re.compile(r"dcmi mod\w* initiali[sz]\w* failed(.*?)ret is (-?\d+)", re.IGNORECASE)
_NOISE = re.compile(r"^DrvMngGetConsoleLogLevel failed")


def _permission_cause(access):
    """Why this user may not open the NPU devices, from what `access` tells."""
    user = access.get("user") or "this user"
    node = DAVINCI_MANAGER
    if access.get("root"):
        return (f"even root may not open {node}: check its owner and mode (HwHiAiUser, 0660) "
                "and, in a container, the devices passed in")
    if access.get("in_group") is None:
        return (f"{user} is not root and there is no HwHiAiUser group (the driver installer "
                "creates it): run as root (become: true) or install the driver")
    if access.get("in_group"):
        return (f"{user} is in HwHiAiUser but may not open {node}: log in again so the group "
                f"applies, or check the owner and mode of {node} (HwHiAiUser, 0660)")
    return (f"{user} is neither root nor in the HwHiAiUser group, so it may not open {node}: "
            f"run as root (become: true) or add {user} to HwHiAiUser")


def _device_cause(access):
    """Why the NPU devices could not be opened, as far as `access` can tell."""
    node = access.get("davinci_manager")
    if node == "missing":
        return (f"the NPU driver is not loaded: {DAVINCI_MANAGER} does not exist. Install the "
                "driver and firmware (role npu_driver), and reboot if the installer asks")
    if node == "denied":
        return _permission_cause(access)
    if node == "ok":
        return ("the device nodes exist and this user may open them, so another container or "
                "process probably holds the NPUs, or driver and firmware do not match: see dmesg")
    return (f"the driver is not loaded, this user may not open {DAVINCI_MANAGER} (run as root "
            "or join HwHiAiUser), or another container holds the NPUs")


def first_line(output):
    """The first meaningful line npu-smi printed (log-level noise skipped), for messages."""
    for line in output.splitlines():
        line = line.strip()
        if line and not _NOISE.match(line):
            return line
    return "(no output)"


def explain_failure(output, rc=None, access=None):
    """A sentence saying why `npu-smi info` failed and what to do.

    output: what npu-smi printed (stdout and stderr together); rc: its exit code.
    access: what the caller found on the host, every key optional: user (name), root (bool),
    in_group (bool, whether the user is in HwHiAiUser; None when the group does not exist) and
    davinci_manager ("missing", "denied" or "ok": can the user open /dev/davinci_manager).
    """
    access = access or {}
    library = _LIBRARY.search(output)
    if library:
        return (f"npu-smi cannot load {library.group(1)}: the driver is not installed "
                "completely, or its libraries are not on the library path (in a container, "
                "mount the host's /usr/local/Ascend/driver)")
    dcmi = _DCMI.search(output)
    if dcmi and "device is used" in dcmi.group(1):
        return (f"another container or process holds the NPU (dcmi error {dcmi.group(2)}, the "
                "device is used): stop it, or use an NPU nobody else holds")
    if dcmi:
        return (f"npu-smi could not open the NPUs (dcmi error {dcmi.group(2)}): "
                f"{_device_cause(access)}")
    if "permission denied" in output.lower():
        return f"npu-smi was refused access: {_permission_cause(access)}"
    summary = f"npu-smi failed with exit code {rc}" if rc else "npu-smi printed no device table"
    cause = ""
    if access.get("davinci_manager") in ("missing", "denied"):
        cause = f"; {_device_cause(access)}"
    return f"{summary}: {first_line(output)}{cause}"
