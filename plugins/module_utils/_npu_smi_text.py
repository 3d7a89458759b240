"""Parsers for npu-smi's smaller outputs: key/value blocks, `info -m`, `info -t topo`, `-v`.

Pure Python, standard library only (runs on managed nodes, Python 3.8+). Import these through
`_npu_smi`, which also holds the parser of the `npu-smi info` table.
"""

from __future__ import annotations

import re

# What npu-smi prints where it has no value.
MISSING = ("", "-", "--", "NA", "N/A")

# `        Key padded to 31                : value` (8 spaces of indent; the key holds no colon).
_KEY_VALUE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(.*?)\s*$")
# A unit at the end of a key: `HBM Capacity(MB)`, `NPU Temperature (C)`, `Aicore Usage Rate(%)`.
_UNIT = re.compile(r"\([^)]*\)\s*$")
_TOPO_NAME = re.compile(r"^NPU(\d+)$")
_VERSION = re.compile(r"npu-smi\s+version\s*:\s*(\S+)", re.IGNORECASE)


def number(text):
    """The int or float written in `text` (`89.2`, `29096`); None for `-`, `NA` or non-numbers."""
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    return None


def snake_key(key):
    """`HBM Usage Rate(%)` -> `hbm_usage_rate_pct`, `PCIe Bus Info` -> `pcie_bus_info`."""
    key = key.replace("%", " pct ")
    return re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")


def _typed(key, value):
    """A value as its key implies: numbers for measures (a unit, an ID or a Count), else text.

    Versions (`Software Version : 25.5.1`) and codes (`Board ID : 0x60`) stay strings; `NA`
    and `-` become None.
    """
    if value in MISSING:
        return None
    if _UNIT.search(key) or key.endswith((" ID", " Count")):
        converted = number(value)
        if converted is not None:
            return converted
    return value


def parse_key_values(text):
    """Every `Key : value` line of `text`, in order, as (key, value) string pairs.

    Keys repeat in some outputs (`-l` lists `NPU ID` once per card; `-t common` has a second
    `Temperature(C)` for the MCU), so this keeps them all. Lines without a key are skipped.
    """
    pairs = []
    for line in text.splitlines():
        match = _KEY_VALUE.match(line)
        if match:
            pairs.append((match.group(1), match.group(2)))
    return pairs


def parse_details(text):
    """One card's key/value output (`info -t board|usages|health|temp|power|common -i N`).

    Returns a dict with snake_case keys (`Software Version` -> `software_version`,
    `HBM Capacity(MB)` -> `hbm_capacity_mb`, `Aicore Usage Rate(%)` -> `aicore_usage_rate_pct`);
    measures are numbers, `NA` is None. When a key repeats, the first value (the NPU's, printed
    before the MCU's) is kept.
    """
    details = {}
    for key, value in parse_key_values(text):
        details.setdefault(snake_key(key), _typed(key, value))
    return details


def parse_list(text):
    """`npu-smi info -l`: {"total_count": 8, "npus": [{"npu_id": 0, "chip_count": 1}, ...]}."""
    result = {"total_count": None, "npus": []}
    for key, value in parse_key_values(text):
        name = snake_key(key)
        if name == "total_count":
            result["total_count"] = _typed(key, value)
        elif name == "npu_id":
            result["npus"].append({"npu_id": _typed(key, value)})
        elif result["npus"]:
            result["npus"][-1][name] = _typed(key, value)
    return result


def parse_mapping(text):
    """`npu-smi info -m`: one dict per chip (the NPU chips and each card's MCU).

    Columns NPU ID / Chip ID / Chip Logic ID / Chip Name, separated by runs of spaces; the logic
    id is None for chips without one (`-`, the MCU):
    [{"npu_id": 0, "chip_id": 0, "chip_logic_id": 0, "chip_name": "Ascend 910B4"}, ...]
    """
    chips = []
    for line in text.splitlines():
        fields = re.split(r"\s{2,}", line.strip())
        if len(fields) != 4 or number(fields[0]) is None or number(fields[1]) is None:
            continue
        chips.append({
            "npu_id": number(fields[0]),
            "chip_id": number(fields[1]),
            "chip_logic_id": number(fields[2]),
            "chip_name": fields[3],
        })
    return chips


def _topology_header(fields):
    """The NPU ids named by a matrix header (`NPU0 NPU1 ... CPU Affinity`), else None."""
    names = []
    for field in fields:
        match = _TOPO_NAME.match(field)
        if match is None:
            break
        names.append(match.group(1))
    rest = fields[len(names):]
    return names if names and (not rest or rest[0] == "CPU") else None


def parse_topology(text):
    """`npu-smi info -t topo`: the link matrix and each card's CPU affinity, or None.

    Returns None when the output holds no matrix (`This device does not support querying
    topo.`). Otherwise, with NPU ids as strings (the keys Ansible facts keep):
    {"devices": [0, 1, ...],
     "links": {"0": {"1": "HCCS", "2": "HCCS", ...}, ...},   # every other card; self left out
     "cpu_affinity": {"0": "144-167", ...}}                  # None where the column is empty
    The header row may begin with spaces or a TAB; the legend after the matrix is ignored.
    """
    names = None
    topology = {"devices": [], "links": {}, "cpu_affinity": {}}
    for line in text.splitlines():
        fields = line.split()
        if names is None:
            names = _topology_header(fields)
            continue
        row = _TOPO_NAME.match(fields[0]) if fields else None
        if row is None or row.group(1) not in names:
            continue
        npu = row.group(1)
        links = fields[1:1 + len(names)]
        topology["devices"].append(int(npu))
        topology["links"][npu] = {
            other: link for other, link in zip(names, links) if other != npu
        }
        affinity = fields[1 + len(names):]
        topology["cpu_affinity"][npu] = " ".join(affinity) if affinity else None
    return topology if topology["devices"] else None


def parse_version(text):
    """`npu-smi -v` (`npu-smi version: 24.1.rc2`): the version string, or None."""
    match = _VERSION.search(text)
    return match.group(1) if match else None
