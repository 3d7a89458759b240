"""The npu-smi parsers on every recorded output (tests/fixtures/npu-smi) and on edge cases."""

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._npu_smi import (
    DEVICE_KEYS,
    NpuSmiError,
    explain_failure,
    parse_details,
    parse_info,
    parse_key_values,
    parse_list,
    parse_mapping,
    parse_topology,
    parse_version,
)


def column(rows, key):
    """The values of one key across rows."""
    return [row[key] for row in rows]


def device(**values):
    """A full device dict: every key of DEVICE_KEYS, None unless given."""
    return {**dict.fromkeys(DEVICE_KEYS), **values}


# --- npu-smi info: 910B (Atlas A2) ------------------------------------------------------------


def test_eight_910b3_cards(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("ms-swift-npu-support-info-8x910B3.txt"))
    assert info["npu_smi_version"] == info["driver_version"] == "24.1.rc1.b030"
    devices = info["devices"]
    assert column(devices, "npu_id") == list(range(8))
    assert set(column(devices, "name")) == {"910B3"}
    assert set(column(devices, "health")) == {"OK"}
    assert column(devices, "power_w") == [101.8, 92.0, 102.0, 99.8, 98.6, 99.7, 103.8, 98.2]
    assert column(devices, "temp_c") == [43, 39, 40, 40, 45, 44, 45, 44]
    assert column(devices, "bus_id") == [
        "0000:C1:00.0", "0000:C2:00.0", "0000:81:00.0", "0000:82:00.0",
        "0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0",
    ]
    assert column(devices, "hbm_used_mb") == [3318, 3314, 3314, 3314, 3314, 3314, 3314, 3315]
    assert set(column(devices, "hbm_total_mb")) == {65536}
    assert set(column(devices, "memory_used_mb")) == set(column(devices, "memory_total_mb")) == {0}
    assert set(column(devices, "aicore_pct")) == {0}
    assert set(column(devices, "chip_id")) == {0}
    assert set(column(devices, "device_id")) == {None}
    # The recorded output stops after the device table.
    assert info["processes"] == []


def test_sixteen_910b2c_cards_without_processes(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("vllm-ascend-issue-629-info.txt"))
    assert info["driver_version"] == "24.1.rc2.2"
    devices = info["devices"]
    assert column(devices, "npu_id") == list(range(16))
    assert set(column(devices, "name")) == {"910B2C"}
    assert column(devices, "hbm_used_mb") == [
        3418, 3392, 3392, 3391, 3392, 3393, 3392, 3392,
        3392, 3392, 3392, 3393, 3391, 3393, 3392, 3392,
    ]
    assert set(column(devices, "hbm_total_mb")) == {65536}
    assert column(devices, "power_w") == [
        93.1, 95.0, 93.4, 96.6, 92.9, 107.0, 99.9, 98.9,
        95.4, 94.4, 98.7, 96.6, 95.0, 97.5, 99.2, 96.2,
    ]
    assert column(devices, "temp_c") == [55, 54, 55, 56, 57, 56, 55, 56,
                                         54, 55, 55, 57, 57, 57, 52, 55]
    assert column(devices, "bus_id") == [
        "0000:5A:00.0", "0000:19:00.0", "0000:49:00.0", "0000:39:00.0",
        "0000:DA:00.0", "0000:99:00.0", "0000:B8:00.0", "0000:C8:00.0",
        "0000:59:00.0", "0000:18:00.0", "0000:48:00.0", "0000:38:00.0",
        "0000:D9:00.0", "0000:98:00.0", "0000:B9:00.0", "0000:C9:00.0",
    ]
    # 16 `No running processes found in NPU <n>` rows, two-digit ids included.
    assert info["processes"] == []


def test_physical_ids_and_padded_hbm_use(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("vllm-ascend-issue-843-info.txt"))
    assert info["driver_version"] == "23.0.6"
    devices = info["devices"]
    assert column(devices, "npu_id") == [4, 5, 6, 7]
    assert set(column(devices, "name")) == {"910B4"}
    # `29096/ 32768`: the used value fills its 5 characters, no space before the slash.
    assert column(devices, "hbm_used_mb") == [29096, 29095, 29096, 29096]
    assert set(column(devices, "hbm_total_mb")) == {32768}
    assert column(devices, "bus_id") == ["0000:81:00.0", "0000:41:00.0",
                                         "0000:82:00.0", "0000:42:00.0"]
    assert info["processes"] == [
        {"npu_id": 4, "chip_id": 0, "pid": 498807, "name": "python", "memory_mb": 26323},
        {"npu_id": 5, "chip_id": 0, "pid": 499212, "name": "python", "memory_mb": 26323},
        {"npu_id": 6, "chip_id": 0, "pid": 499213, "name": "python", "memory_mb": 26323},
        {"npu_id": 7, "chip_id": 0, "pid": 499214, "name": "python", "memory_mb": 26322},
    ]


def test_single_card_in_a_container(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("vllm-ascend-issue-5044-info-1card.txt"))
    assert info == {
        "npu_smi_version": "25.2.0",
        "driver_version": "25.2.0",
        "devices": [device(
            npu_id=4, chip_id=0, name="910B4", health="OK", bus_id="0000:01:00.0",
            power_w=94.1, temp_c=43, aicore_pct=0, hbm_used_mb=2854, hbm_total_mb=32768,
            memory_used_mb=0, memory_total_mb=0,
        )],
        "processes": [],
    }


def test_processes_without_a_name(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("openyuanrong-functionsystem-info-8x910B4-unnamed-procs.txt"))
    assert info["driver_version"] == "24.1.rc3"
    devices = info["devices"]
    assert column(devices, "npu_id") == list(range(8))
    assert column(devices, "aicore_pct") == [0, 0, 0, 0, 0, 0, 82, 68]
    assert column(devices, "hbm_used_mb") == [22283, 22267, 2818, 2819, 2829, 2829, 30759, 30760]
    assert column(devices, "power_w") == [85.0, 84.2, 81.8, 83.9, 81.4, 81.5, 263.2, 250.5]
    assert info["processes"] == [
        {"npu_id": 0, "chip_id": 0, "pid": 582939, "name": None, "memory_mb": 19502},
        {"npu_id": 1, "chip_id": 0, "pid": 695171, "name": None, "memory_mb": 19498},
        {"npu_id": 6, "chip_id": 0, "pid": 99910, "name": None, "memory_mb": 27977},
        {"npu_id": 7, "chip_id": 0, "pid": 99976, "name": None, "memory_mb": 27977},
    ]


# --- npu-smi info: the old 910 layouts --------------------------------------------------------


def test_old_910_narrow_layout_with_warnings_and_several_processes(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("gpustack-test-910A-24.1.RC2-info-warning.txt"))
    assert info["npu_smi_version"] == info["driver_version"] == "24.1.RC2"
    devices = info["devices"]
    assert column(devices, "npu_id") == list(range(8))
    assert set(column(devices, "name")) == {"xxx"}
    assert column(devices, "health") == ["OK", "OK", "OK", "Warning",
                                         "OK", "OK", "OK", "Warning"]
    assert column(devices, "power_w") == [70.5, 71.2, 69.0, 206.9, 70.2, 64.9, 69.4, 203.2]
    assert column(devices, "memory_used_mb") == [4252, 4666, 4317, 3616,
                                                 3708, 4346, 4261, 4521]
    assert column(devices, "memory_total_mb") == [15137, 15137, 15137, 15039,
                                                  15137, 15137, 15137, 15039]
    assert set(column(devices, "hbm_used_mb")) == {0}
    assert set(column(devices, "hbm_total_mb")) == {32768}
    assert devices[3]["bus_id"] == "0000:01:00.0"
    processes = info["processes"]
    assert len(processes) == 32
    assert set(column(processes, "name")) == {"hlt_host_devmm_"}
    assert set(column(processes, "memory_mb")) == {686}
    assert set(column(processes, "chip_id")) == {0}
    assert [p["pid"] for p in processes if p["npu_id"] == 0] == [37656, 37664, 37640, 37648]
    assert [p["pid"] for p in processes if p["npu_id"] == 7] == [37671, 37647, 37655, 37663]
    assert [column(processes, "npu_id").count(npu) for npu in range(8)] == [4] * 8


def test_old_910_misaligned_columns_and_distinct_versions(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("mind-cluster-faultdiag-910-info-8card-procs.txt"))
    # `npu-smi 23.0.rc3          Version: 23.0.rc2.3`: the tool, then the driver.
    assert info["npu_smi_version"] == "23.0.rc3"
    assert info["driver_version"] == "23.0.rc2.3"
    devices = info["devices"]
    assert column(devices, "npu_id") == list(range(8))
    assert set(column(devices, "name")) == {"xxx"}
    assert column(devices, "temp_c") == [44, 39, 36, 44, 40, 36, 37, 42]
    assert column(devices, "hbm_used_mb") == [30710, 30710, 30710, 30709,
                                              30709, 30709, 30710, 30710]
    assert column(devices, "memory_used_mb") == [4565, 4483, 4437, 3845,
                                                 4296, 3758, 4581, 4690]
    assert [(p["npu_id"], p["pid"], p["memory_mb"]) for p in info["processes"]] == [
        (0, 139667, 30780), (1, 139577, 30782), (2, 139446, 30780), (3, 139372, 30780),
        (4, 139258, 30780), (5, 139163, 30780), (6, 139126, 30780), (7, 139090, 30780),
    ]
    assert set(column(info["processes"], "name")) == {"python"}


def test_old_910_after_a_fresh_driver_install(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("longllovers-910A-doc-info-24.1.0.txt"))
    assert info["driver_version"] == "24.1.0"
    devices = info["devices"]
    assert set(column(devices, "name")) == {"910B"}
    assert column(devices, "memory_used_mb") == [2382, 2378, 2382, 2384,
                                                 2385, 2355, 2384, 2355]
    assert set(column(devices, "memory_total_mb")) == {15038}
    assert column(devices, "hbm_used_mb") == [0] * 8
    assert column(devices, "bus_id") == [
        "0000:C1:00.0", "0000:81:00.0", "0000:41:00.0", "0000:01:00.0",
        "0000:C2:00.0", "0000:82:00.0", "0000:42:00.0", "0000:02:00.0",
    ]
    assert info["processes"] == []


# --- npu-smi info: multi-chip cards (A3, 310, 310P) -------------------------------------------


def test_a3_lists_one_device_per_chip(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("openyuanrong-functionsystem-info-A3-8x2chips.txt"))
    assert info["driver_version"] == "24.1.rc3.3"
    devices = info["devices"]
    assert len(devices) == 16
    assert column(devices, "npu_id") == [npu for npu in range(8) for _chip in (0, 1)]
    assert column(devices, "chip_id") == [0, 1] * 8
    assert column(devices, "device_id") == list(range(16))
    assert set(column(devices, "name")) == {"Ascend910"}
    # The second chip of a card shows `-` for power.
    assert column(devices, "power_w")[:4] == [182.0, None, 181.0, None]
    assert devices[15]["bus_id"] == "0000:83:00.0"
    assert devices[8]["hbm_used_mb"] == 52553
    assert [(p["npu_id"], p["chip_id"], p["pid"]) for p in info["processes"]] == [
        (4, 0, 957687), (4, 1, 957770), (5, 0, 957790), (5, 1, 957852),
        (6, 0, 957876), (6, 1, 957912), (7, 0, 957957), (7, 1, 958011),
    ]
    assert set(column(info["processes"], "name")) == {"pt_main_thread"}


def test_310p3_duo_cards_have_no_hbm_column(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("openyuanrong-functionsystem-info-310P3-4x2chips.txt"))
    assert info["driver_version"] == "24.1.0.1"
    devices = info["devices"]
    assert column(devices, "npu_id") == [1536, 1536, 1792, 1792, 2048, 2048, 2304, 2304]
    assert column(devices, "chip_id") == [0, 1] * 4
    assert column(devices, "device_id") == list(range(8))
    assert set(column(devices, "power_w")) == {None}
    assert column(devices, "memory_used_mb") == [1596, 1325, 1452, 1444, 1353, 1529, 1656, 1278]
    assert column(devices, "memory_total_mb") == [44280, 43693] * 4
    assert set(column(devices, "hbm_used_mb")) == set(column(devices, "hbm_total_mb")) == {None}
    assert info["processes"] == []


def test_310p3_in_a_container(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("vllm-ascend-issue-1993-info-310P3-contrast.txt"))
    assert info["driver_version"] == "25.0.rc1.1"
    common = {"npu_id": 6, "name": "310P3", "health": "OK", "bus_id": "0000:83:00.0",
              "aicore_pct": 0}
    assert info["devices"] == [
        device(**common, chip_id=0, device_id=0, temp_c=55,
               memory_used_mb=1175, memory_total_mb=44280),
        device(**common, chip_id=1, device_id=1, temp_c=52,
               memory_used_mb=8322, memory_total_mb=43693),
    ]
    assert info["processes"] == [
        {"npu_id": 6, "chip_id": 1, "pid": 293029, "name": "python3.11", "memory_mb": 6612},
    ]


def test_310_four_chips_misaligned_and_a_trailing_line(npu_smi_fixture):
    info = parse_info(npu_smi_fixture("gpustack-test-310-21.0.4-info-4chips.txt"))
    assert info["npu_smi_version"] == "21.0.4"
    assert info["driver_version"] == "21.0.4.B030"
    devices = info["devices"]
    assert column(devices, "npu_id") == [6, 6, 6, 6]
    assert column(devices, "chip_id") == [0, 1, 2, 3]
    assert column(devices, "device_id") == [3, 4, 5, 6]
    assert column(devices, "temp_c") == [73, 74, 70, 65]
    assert column(devices, "memory_used_mb") == [2703, 2867, 2867, 2867]
    assert set(column(devices, "memory_total_mb")) == {8192}
    assert set(column(devices, "hbm_total_mb")) == {None}
    assert info["processes"] == []


# --- npu-smi info: synthetic edge cases -------------------------------------------------------

HEALTH_VALUES = ["OK", "Warning", "Alarm", "Critical", "UNKNOWN"]


def test_sixteen_cards_with_every_health_value(npu_smi_fixture):
    lines = npu_smi_fixture("vllm-ascend-issue-629-info.txt").splitlines()
    card_rows = [i for i, line in enumerate(lines) if "910B2C" in line]
    for npu, index in enumerate(card_rows):
        health = HEALTH_VALUES[npu % len(HEALTH_VALUES)]
        lines[index] = lines[index].replace("| OK            |", f"| {health:<14}|")
    devices = parse_info("\n".join(lines))["devices"]
    assert column(devices, "health") == [HEALTH_VALUES[n % 5] for n in range(16)]
    assert column(devices, "npu_id") == list(range(16))


def test_unknown_lines_are_skipped(npu_smi_fixture):
    text = npu_smi_fixture("vllm-ascend-issue-843-info.txt")
    noise = ["", "Warning: something unexpected", "| a | lonely | row | with | cells |",
             "|", "||||", "| x", "+---+", "\t", "npu-smi: note", "| 9 | 1 | 2 |"]
    noisy = []
    for index, line in enumerate(text.splitlines()):
        noisy += [line, noise[index % len(noise)]]
    assert parse_info("\n".join(noisy)) == parse_info(text)


def test_crlf_line_ends(npu_smi_fixture):
    text = npu_smi_fixture("vllm-ascend-issue-843-info.txt")
    assert parse_info(text.replace("\n", "\r\n")) == parse_info(text)


def test_truncated_output_never_raises_and_keeps_what_it_saw(npu_smi_fixture):
    text = npu_smi_fixture("vllm-ascend-issue-843-info.txt")
    lines = text.splitlines()
    with pytest.raises(NpuSmiError):  # a border line alone
        parse_info(lines[0])
    counts = [len(parse_info("\n".join(lines[:end]))["devices"])
              for end in range(2, len(lines) + 1)]
    assert counts == sorted(counts) and counts[-1] == 4
    # Cut after a card's first row: the card is kept, its chip row's values are None.
    cut = parse_info("\n".join(lines[:7]))
    assert cut["devices"] == [device(npu_id=4, name="910B4", health="OK", power_w=89.2,
                                     temp_c=39)]
    # Cut inside a line.
    half = parse_info(text[:text.index("29095/")])
    assert half["devices"][-1]["npu_id"] == 5 and half["devices"][-1]["hbm_used_mb"] is None


def test_rows_without_their_headers(npu_smi_fixture):
    # Output cut before the header: the rows alone still read as the 910B layout.
    lines = npu_smi_fixture("vllm-ascend-issue-843-info.txt").splitlines()
    info = parse_info("\n".join(lines[6:]))
    assert info["driver_version"] is None
    assert column(info["devices"], "hbm_used_mb") == [29096, 29095, 29096, 29096]
    assert len(info["processes"]) == 4


def test_a_layout_with_the_npu_id_in_its_own_column():
    # As printed for Ascend 950 in a third-party test (npu-smi 25.6): NPU ID and Name are two
    # columns, the chip row leaves both empty and shows NA as the bus id.
    text = """\
| npu-smi 25.6.rc1.b218                            Version: 25.6.rc1.b218                |
| NPU ID | Name             | Health        | Power(W)              Temp(C)                  Hugepages-Usage(page) |
|        |                  | Bus-Id        | NPU Util(%)           Memory-Usage(MB)         HBM-Usage(MB)         |
+========+==================+===============+======================================================================+
| 7      | Ascend950DT      | Warning       | 397.5                 61                       0     / 0             |
|        |                  | NA            | 42                    0     / 0                91000 / 98304         |
"""  # noqa: E501 - a recorded table row
    assert parse_info(text)["devices"] == [device(
        npu_id=7, name="Ascend950DT", health="Warning", power_w=397.5, temp_c=61,
        aicore_pct=42, memory_used_mb=0, memory_total_mb=0, hbm_used_mb=91000,
        hbm_total_mb=98304,
    )]


def test_a_process_table_with_an_extra_column():
    # Recent drivers add `Process id in container` (as recorded in a third-party test).
    text = """\
| NPU     Chip              | Process id    | Process name       | Process memory(MB)    | Process id in container |
+===========================+===============+======================================================================+
| 0       1                 | 1777209       | VLLMWorker_PP      | 56684                 | NA                      |
"""  # noqa: E501 - a recorded table row
    assert parse_info(text)["processes"] == [
        {"npu_id": 0, "chip_id": 1, "pid": 1777209, "name": "VLLMWorker_PP", "memory_mb": 56684},
    ]


def test_garbage_values_become_none():
    text = """\
| 0     910B4               | OK            | NA          -                 0    / 0             |
| 0                         | 0000:C1:00.0  | x           4    / 5.s        -    / NA            |
"""
    assert parse_info(text)["devices"] == [device(
        npu_id=0, chip_id=0, name="910B4", health="OK", bus_id="0000:C1:00.0",
        memory_used_mb=4, memory_total_mb=None, hbm_used_mb=None, hbm_total_mb=None,
    )]


def test_a_header_without_devices_is_an_empty_host():
    text = "| npu-smi 25.2.0                   Version: 25.2.0                    |\n"
    assert parse_info(text) == {"npu_smi_version": "25.2.0", "driver_version": "25.2.0",
                                "devices": [], "processes": []}


@pytest.mark.parametrize("name, marker", [
    ("arthurchiao-gpu-notes-2-info-help.txt", ""),
    ("arthurchiao-gpu-notes-2-devnodes.txt", ""),
    ("index-56395277568-910B4-info-m-and-board-c0.txt", "info -m"),
    ("vllm-ascend-issue-2698-info-dcmi-8005.txt", ""),
    ("cann-container-image-issue-46-info-dcmi-8020.txt", ""),
    ("hami-issue-615-info-missing-libc_sec.txt", ""),
])
def test_outputs_without_a_table_are_rejected(npu_smi_fixture, name, marker):
    with pytest.raises(NpuSmiError, match="no `npu-smi info` table"):
        parse_info(npu_smi_fixture(name, marker))


def test_empty_output_is_rejected():
    with pytest.raises(NpuSmiError):
        parse_info("")


# --- npu-smi info -t topo ---------------------------------------------------------------------


def test_topology_of_eight_hccs_cards(npu_smi_fixture):
    text = npu_smi_fixture("ms-swift-npu-support-topo-8x910B3.txt")
    assert text.startswith("\t   NPU0")
    topology = parse_topology(text)
    assert topology["devices"] == list(range(8))
    for npu in map(str, range(8)):
        others = [str(n) for n in range(8) if str(n) != npu]
        assert topology["links"][npu] == dict.fromkeys(others, "HCCS")
    assert topology["cpu_affinity"] == {
        "0": "144-167", "1": "144-167", "2": "96-119", "3": "96-119",
        "4": "0-23", "5": "0-23", "6": "48-71", "7": "48-71",
    }


def test_topology_of_four_pcie_cards(npu_smi_fixture):
    text = npu_smi_fixture("openyuanrong-functionsystem-topo-4xPXB-and-unsupported.txt",
                           "topoInfo ")
    assert parse_topology(text) == {
        "devices": [0, 1, 2, 3],
        "links": {
            "0": {"1": "PXB", "2": "SYS", "3": "PXB"},
            "1": {"0": "PXB", "2": "PXB", "3": "SYS"},
            "2": {"0": "SYS", "1": "PXB", "3": "PXB"},
            "3": {"0": "PXB", "1": "SYS", "2": "PXB"},
        },
        "cpu_affinity": {"0": "144-167", "1": "96-119", "2": "48-71", "3": "0-23"},
    }


def test_topology_not_supported(npu_smi_fixture):
    text = npu_smi_fixture("openyuanrong-functionsystem-topo-4xPXB-and-unsupported.txt",
                           "topoInfoNotSupport")
    assert text == "This device does not support querying topo.\n"
    assert parse_topology(text) is None


def test_topology_of_one_card_in_a_container():
    text = "\t   NPU4       CPU Affinity\nNPU4       X          0-23\n\nLegend:\n\n  X    = Self\n"
    assert parse_topology(text) == {"devices": [4], "links": {"4": {}},
                                    "cpu_affinity": {"4": "0-23"}}


def test_topology_without_affinity_values_and_with_noise():
    text = ("garbage\n   NPU0   NPU1   CPU Affinity\n"
            "NPU0   X      SYS\nNPU9   X   X\nNPU1   SYS    X\n")
    assert parse_topology(text) == {
        "devices": [0, 1],
        "links": {"0": {"1": "SYS"}, "1": {"0": "SYS"}},
        "cpu_affinity": {"0": None, "1": None},
    }


@pytest.mark.parametrize("text", ["", "Legend:\n  X    = Self\n", "NPU0 X HCCS 0-23\n"])
def test_topology_without_a_matrix(text):
    assert parse_topology(text) is None


# --- key/value outputs ------------------------------------------------------------------------

TELEGRAF = "yunionio-telegraf-npu_smi_test-board-usages-temp-power-list.txt"


def test_board(npu_smi_fixture):
    assert parse_details(npu_smi_fixture(TELEGRAF, "-t board")) == {
        "npu_id": 0,
        "product_name": "IT21HMDC_Bin5",
        "model": None,
        "manufacturer": "Huawei",
        "serial_number": "1025C9048791",
        "software_version": "25.5.1",
        "firmware_version": "7.8.0.6.201",
        "compatibility": "OK",
        "board_id": "0x60",
        "pcb_id": "A",
        "bom_id": 1,
        "pcie_bus_info": "0000:C1:00.0",
        "slot_id": 0,
        "class_id": None,
        "pci_vendor_id": "0x19E5",
        "pci_device_id": "0xD802",
        "subsystem_vendor_id": "0x19E5",
        "subsystem_device_id": "0x3003",
        "chip_count": 1,
    }


def test_usages(npu_smi_fixture):
    assert parse_details(npu_smi_fixture(TELEGRAF, "-t usages")) == {
        "npu_id": 0,
        "chip_count": 1,
        "ddr_capacity_mb": 0,
        "ddr_usage_rate_pct": 0,
        "ddr_hugepages_total_page": 0,
        "ddr_hugepages_usage_rate_pct": 0,
        "hbm_capacity_mb": 65536,
        "hbm_usage_rate_pct": 5,
        "aicore_usage_rate_pct": 0,
        "aivector_usage_rate_pct": 0,
        "aicpu_usage_rate_pct": 0,
        "ctrlcpu_usage_rate_pct": 6,
        "ddr_bandwidth_usage_rate_pct": 0,
        "hbm_bandwidth_usage_rate_pct": 0,
        "npu_utilization_pct": 0,
        "aicube_usage_rate_pct": 0,
        "chip_id": 0,
    }


def test_temperature(npu_smi_fixture):
    assert parse_details(npu_smi_fixture(TELEGRAF, "-t temp")) == {
        "npu_id": 0, "chip_count": 1, "npu_temperature_c": 39, "chip_id": 0,
        "lm75a_te_c": 36, "lm75b_te_c": 36, "chip_name": "MCU",
    }


def test_power(npu_smi_fixture):
    assert parse_details(npu_smi_fixture(TELEGRAF, "-t power")) == {
        "npu_id": 0, "chip_count": 1, "npu_real_time_power_w": 103.5, "chip_id": 0,
    }


def test_list(npu_smi_fixture):
    assert parse_list(npu_smi_fixture(TELEGRAF, "info -l")) == {
        "total_count": 8,
        "npus": [{"npu_id": npu, "chip_count": 1} for npu in range(8)],
    }


def test_list_keeps_every_repeated_key(npu_smi_fixture):
    pairs = parse_key_values(npu_smi_fixture(TELEGRAF, "info -l"))
    assert pairs[:3] == [("Total Count", "8"), ("NPU ID", "0"), ("Chip Count", "1")]
    assert len(pairs) == 17


def test_board_of_one_chip(npu_smi_fixture):
    index = "index-56395277568-910B4-info-m-and-board-c0.txt"
    assert parse_details(npu_smi_fixture(index, "-t board", 0)) == {
        "npu_id": 0, "chip_id": 0, "chip_type": "Ascend", "chip_name": "910B4",
    }
    # A3: the NPU name is a number but not a measure, so it stays a string.
    assert parse_details(npu_smi_fixture(index, "-t board", 1)) == {
        "npu_id": 0, "npu_name": "9392", "chip_id": 0, "chip_name": "Ascend910",
    }


def test_health_and_common_keep_the_npu_values():
    # The key/value format ASCEND.md describes; `-t common` repeats keys for the MCU.
    health = ("        Health                         : Warning\n"
              "        Error Code                     : 80E01801\n"
              "        Error Information              : NA\n")
    assert parse_details(health) == {"health": "Warning", "error_code": "80E01801",
                                     "error_information": None}
    common = ("        NPU ID                         : 3\n"
              "        Temperature(C)                 : 45\n"
              "        Aicore Freq(MHZ)               : 1800\n"
              "\n"
              "        Chip Name                      : mcu\n"
              "        Temperature(C)                 : 42\n")
    assert parse_details(common) == {"npu_id": 3, "temperature_c": 45, "aicore_freq_mhz": 1800,
                                     "chip_name": "mcu"}


def test_versions_stay_strings():
    text = "        Software Version               : 24.1\n        Chip Count : NA\n"
    assert parse_details(text) == {"software_version": "24.1", "chip_count": None}


# --- npu-smi info -m, npu-smi -v --------------------------------------------------------------


def test_mapping_with_mcu_rows(npu_smi_fixture):
    text = npu_smi_fixture("index-56395277568-910B4-info-m-and-board-c0.txt", "info -m")
    assert parse_mapping(text) == [
        {"npu_id": 0, "chip_id": 0, "chip_logic_id": 0, "chip_name": "Ascend 910B4"},
        {"npu_id": 0, "chip_id": 1, "chip_logic_id": None, "chip_name": "Mcu"},
        {"npu_id": 1, "chip_id": 0, "chip_logic_id": 1, "chip_name": "Ascend 910B4"},
        {"npu_id": 1, "chip_id": 1, "chip_logic_id": None, "chip_name": "Mcu"},
    ]


def test_mapping_without_indent(npu_smi_fixture):
    chips = parse_mapping(npu_smi_fixture("gpustack-test-910A-24.1.RC2-info-m.txt"))
    assert chips == [{"npu_id": npu, "chip_id": 0, "chip_logic_id": npu,
                      "chip_name": "Ascend 910A"} for npu in range(8)]


@pytest.mark.parametrize("text, version", [
    ("npu-smi version: 24.1.rc2\n", "24.1.rc2"),
    ("npu-smi Version : 25.2.0\n", "25.2.0"),
    ("dcmi module initialize failed. ret is -8005\n", None),
    ("", None),
])
def test_version(text, version):
    assert parse_version(text) == version


# --- failures ---------------------------------------------------------------------------------

NOT_IN_GROUP = {"user": "fleet", "root": False, "in_group": False, "davinci_manager": "denied"}


@pytest.mark.parametrize("access, expected", [
    ({"davinci_manager": "missing"},
     "dcmi error -8005): the NPU driver is not loaded: /dev/davinci_manager does not exist"),
    (NOT_IN_GROUP, "fleet is neither root nor in the HwHiAiUser group, so it may not open "
                   "/dev/davinci_manager: run as root (become: true) or add fleet to HwHiAiUser"),
    ({**NOT_IN_GROUP, "in_group": True}, "fleet is in HwHiAiUser but may not open"),
    ({**NOT_IN_GROUP, "in_group": None}, "there is no HwHiAiUser group"),
    ({**NOT_IN_GROUP, "root": True}, "even root may not open /dev/davinci_manager"),
    ({"davinci_manager": "ok"}, "another container or process probably holds the NPUs"),
    (None, "the driver is not loaded, this user may not open /dev/davinci_manager"),
])
def test_dcmi_8005_names_the_cause_it_can_tell(npu_smi_fixture, access, expected):
    output = npu_smi_fixture("vllm-ascend-issue-2698-info-dcmi-8005.txt")
    message = explain_failure(output, 255, access)
    assert message.startswith("npu-smi could not open the NPUs (dcmi error -8005): ")
    assert expected in message


def test_dcmi_8020_device_in_use(npu_smi_fixture):
    output = npu_smi_fixture("cann-container-image-issue-46-info-dcmi-8020.txt")
    assert explain_failure(output, 255, NOT_IN_GROUP) == (
        "another container or process holds the NPU (dcmi error -8020, the device is used): "
        "stop it, or use an NPU nobody else holds")


def test_missing_driver_library(npu_smi_fixture):
    output = npu_smi_fixture("hami-issue-615-info-missing-libc_sec.txt")
    assert explain_failure(output, 127).startswith(
        "npu-smi cannot load libc_sec.so: the driver is not installed completely")


def test_permission_denied():
    output = "open /dev/davinci_manager failed: Permission denied\n"
    assert explain_failure(output, 1, NOT_IN_GROUP) == (
        "npu-smi was refused access: fleet is neither root nor in the HwHiAiUser group, so it "
        "may not open /dev/davinci_manager: run as root (become: true) or add fleet to "
        "HwHiAiUser")


def test_unknown_failure_quotes_the_first_line(npu_smi_fixture):
    output = "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\nSomething new went wrong\n"
    assert explain_failure(output, 2) == "npu-smi failed with exit code 2: Something new went wrong"
    assert explain_failure("", 0) == "npu-smi printed no device table: (no output)"
    usage = npu_smi_fixture("arthurchiao-gpu-notes-2-info-help.txt")
    assert explain_failure(usage, 0, {"davinci_manager": "missing"}) == (
        "npu-smi printed no device table: Usage: npu-smi info <watch|proc|-h|-m|-l|-t type> "
        "[Options...]; the NPU driver is not loaded: /dev/davinci_manager does not exist. "
        "Install the driver and firmware (role npu_driver), and reboot if the installer asks")
