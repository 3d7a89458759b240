"""The simulated npu-smi prints the recorded real outputs byte for byte for states equal to them.

Fixtures are real outputs (tests/fixtures/npu-smi). Every file is read the same way: the header
(`# source:` / `# note:` lines) is dropped and the rest is split into sections at marker lines
(`# ...` comments and `[root@...]$` prompts); blank lines before a marker only separate sections.
"""

import json
import os
import pathlib
import subprocess
import sys

from ascend_sim import npu_smi
from ascend_sim import state as sim_state

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "npu-smi"
NPU_SMI = pathlib.Path(__file__).resolve().parents[1] / "bin" / "npu-smi"


def fixture(name, marker="", nth=0):
    """The text of one section of a fixture (the whole body when the file has no markers)."""
    sections, marker_line, lines = [], "", []
    body = FIXTURES.joinpath(name).read_text().split("\n")[:-1]
    while body and body[0].startswith(("# source:", "# note:")):
        body.pop(0)
    for line in body:
        if line.startswith(("# ", "[root@")):
            sections.append((marker_line, lines))
            marker_line, lines = line, []
        else:
            lines.append(line)
    sections.append((marker_line, lines))
    matches = [lines for found, lines in sections if marker in found and (found or not marker)]
    lines = matches[nth]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def make_node(root, state, driver, firmware=None):
    """Write a node: its state and the version files the installers would have written."""
    sim_state.save(root, state)
    for component, version in (("driver", driver), ("firmware", firmware)):
        if version:
            path = root / f"usr/local/Ascend/{component}/version.info"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"Version={version}\n")


def set_cards(state, **columns):
    """Set one field of every card from a list, e.g. set_cards(state, power_w=[...])."""
    for key, values in columns.items():
        assert len(values) == len(state["cards"])
        for card, value in zip(state["cards"], values):
            card[key] = value


def npu_smi_out(root, *argv):
    code, text = npu_smi.run(list(argv), root)
    assert code == 0, text
    return text


def test_init_defaults_reproduce_the_8x910b3_800i_a2(tmp_path, ascend_sim):
    assert ascend_sim("init", "--root", tmp_path, "--chip", "910B3", "--cards", 8) == 0
    make_node(tmp_path, sim_state.load(tmp_path), driver="24.1.rc1.b030")
    expected = fixture("ms-swift-npu-support-info-8x910B3.txt")
    out = npu_smi_out(tmp_path, "info")
    # The recorded table stops after the cards; the real tool goes on with the process table.
    assert out[:len(expected)] == expected
    assert out[len(expected):].splitlines()[1].startswith("| NPU     Chip              |")
    assert npu_smi_out(tmp_path, "info", "-t", "topo") == fixture(
        "ms-swift-npu-support-topo-8x910B3.txt")


def test_container_with_davinci4_only(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--chip", "910B4", "--cards", 1, "--first-npu-id", 4)
    ascend_sim("set", "--root", tmp_path, "--power", "4=94.1", "--temp", "4=43")
    make_node(tmp_path, sim_state.load(tmp_path), driver="25.2.0")
    assert npu_smi_out(tmp_path, "info") == fixture("vllm-ascend-issue-5044-info-1card.txt")


def test_live_processes_add_to_hbm_use(tmp_path):
    state = sim_state.build_state("910B4", 4, first_npu_id=4)
    set_cards(state, bus_id=[f"0000:{bus}:00.0" for bus in ("81", "41", "82", "42")],
              power_w=[89.2, 87.7, 88.6, 86.2], temp_c=[39, 40, 38, 40],
              hbm_used_mb=[2773, 2772, 2773, 2774])
    make_node(tmp_path, state, driver="23.0.6")
    live = tmp_path / sim_state.PROCESS_DIR
    live.mkdir(parents=True)
    for npu_id, pid, memory in ((4, 498807, 26323), (5, 499212, 26323), (6, 499213, 26323),
                                (7, 499214, 26322)):
        live.joinpath(f"vllm-{npu_id}.json").write_text(json.dumps(
            {"npu_id": npu_id, "chip_id": 0, "pid": pid, "name": "python", "memory_mb": memory}))
    assert npu_smi_out(tmp_path, "info") == fixture("vllm-ascend-issue-843-info.txt")


def test_sixteen_cards(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--chip", "910B2C", "--cards", 16)
    state = sim_state.load(tmp_path)
    set_cards(state,
              power_w=[93.1, 95.0, 93.4, 96.6, 92.9, 107.0, 99.9, 98.9,
                       95.4, 94.4, 98.7, 96.6, 95.0, 97.5, 99.2, 96.2],
              temp_c=[55, 54, 55, 56, 57, 56, 55, 56, 54, 55, 55, 57, 57, 57, 52, 55],
              hbm_used_mb=[3418, 3392, 3392, 3391, 3392, 3393, 3392, 3392,
                           3392, 3392, 3392, 3393, 3391, 3393, 3392, 3392])
    make_node(tmp_path, state, driver="24.1.rc2.2")
    assert npu_smi_out(tmp_path, "info") == fixture("vllm-ascend-issue-629-info.txt")


def old_910_state():
    """The recorded old Ascend 910 hosts: 32 GB HBM, 15 GB DDR, PCI order C1, 81, 41, 01, ..."""
    state = sim_state.build_state("910B4", 8)
    set_cards(state, bus_id=[f"0000:{bus}:00.0"
                             for bus in ("C1", "81", "41", "01", "C2", "82", "42", "02")],
              hbm_used_mb=[0] * 8)
    return state


def test_old_910_narrow_layout_with_warnings_and_processes(tmp_path, ascend_sim):
    state = old_910_state()
    state.update(layout="narrow", hbm_includes_processes=False)
    set_cards(state, name=["xxx"] * 8, hugepages_used=[1232] * 8, hugepages_total=[1232] * 8,
              power_w=[70.5, 71.2, 69.0, 206.9, 70.2, 64.9, 69.4, 203.2],
              temp_c=[42, 36, 35, 39, 39, 37, 40, 42],
              memory_used_mb=[4252, 4666, 4317, 3616, 3708, 4346, 4261, 4521],
              memory_total_mb=[15137, 15137, 15137, 15039, 15137, 15137, 15137, 15039])
    make_node(tmp_path, state, driver="24.1.RC2")
    pids = ((37656, 37664, 37640, 37648), (37665, 37641, 37649, 37657),
            (37658, 37650, 37666, 37642), (37643, 37651, 37659, 37667),
            (37668, 37644, 37652, 37660), (37653, 37661, 37669, 37645),
            (37646, 37654, 37662, 37670), (37671, 37647, 37655, 37663))
    processes = [f"--process={npu}:{pid}:hlt_host_devmm_:686"
                 for npu, card_pids in enumerate(pids) for pid in card_pids]
    assert ascend_sim("set", "--root", tmp_path, "--health", "3=Warning",
                      "--health", "7=warning", *processes) == 0
    assert npu_smi_out(tmp_path, "info") == fixture(
        "gpustack-test-910A-24.1.RC2-info-warning.txt")


def test_old_910_wide_layout_with_ddr(tmp_path):
    state = old_910_state()
    set_cards(state, name=["910B"] * 8, power_w=[65.7, 62.3, 64.9, 62.9, 67.1, 63.5, 64.2, 63.0],
              temp_c=[38, 33, 34, 40, 38, 33, 33, 37],
              memory_used_mb=[2382, 2378, 2382, 2384, 2385, 2355, 2384, 2355],
              memory_total_mb=[15038] * 8)
    make_node(tmp_path, state, driver="24.1.0")
    assert npu_smi_out(tmp_path, "info") == fixture("longllovers-910A-doc-info-24.1.0.txt")


def test_key_value_outputs(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--chip", "910B3", "--cards", 8)
    ascend_sim("set", "--root", tmp_path, "--power", "0=103.5", "--temp", "0=39")
    state = sim_state.load(tmp_path)
    state["board"]["product_name"] = "IT21HMDC_Bin5"
    make_node(tmp_path, state, driver="25.5.1", firmware="7.8.0.6.201")
    name = "yunionio-telegraf-npu_smi_test-board-usages-temp-power-list.txt"
    for kind in ("usages", "board", "temp", "power"):
        out = npu_smi_out(tmp_path, "info", "-t", kind, "-i", "0")
        assert out == fixture(name, kind + "Output")
    assert npu_smi_out(tmp_path, "info", "-l") == fixture(name, "listOutput")


def test_mapping_and_chip_board(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--chip", "910B4", "--cards", 2)
    make_node(tmp_path, sim_state.load(tmp_path), driver="25.2.0")
    name = "index-56395277568-910B4-info-m-and-board-c0.txt"
    expected = fixture(name, "npu-smi info -m").splitlines()
    out = npu_smi_out(tmp_path, "info", "-m").splitlines()
    assert out[:4] == expected[:4]
    # The recorded doc cut the last line's padding short; every other Mcu line is padded to 30.
    assert out[4].startswith(expected[4]) and len(out[4]) == len(out[2])
    assert npu_smi_out(tmp_path, "info", "-t", "board", "-i", "0", "-c", "0") == fixture(
        name, "npu-smi info -t board -i 0 -c 0")


def test_health_version_and_help(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--cards", 2)
    ascend_sim("set", "--root", tmp_path, "--health", "1=Alarm")
    make_node(tmp_path, sim_state.load(tmp_path), driver="24.1.rc2.2")
    assert npu_smi_out(tmp_path, "info", "-t", "health", "-i", "0") == "".join(
        npu_smi.kv(key, value) + "\n"
        for key, value in (("NPU ID", 0), ("Health", "OK"), ("Error Code", "NA"),
                           ("Error Information", "NA")))
    alarm = npu_smi_out(tmp_path, "info", "-t", "health", "-i", "1", "-c", "0").splitlines()
    assert alarm[0] == npu_smi.kv("Health Status", "Alarm")
    assert alarm[1] != npu_smi.kv("Error Code", "NA")
    assert npu_smi_out(tmp_path, "-v") == "npu-smi version: 24.1.rc2.2\n"
    ascend_sim("set", "--root", tmp_path, "--npu-smi-version", "24.1.rc2")
    assert npu_smi_out(tmp_path, "-v") == "npu-smi version: 24.1.rc2\n"
    assert npu_smi_out(tmp_path, "info").splitlines()[1].startswith(
        "| npu-smi 24.1.rc2                 Version: 24.1.rc2.2 ")
    assert npu_smi_out(tmp_path, "info", "-h") == fixture("arthurchiao-gpu-notes-2-info-help.txt")


def test_usages_and_common_follow_the_state(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--cards", 2)
    ascend_sim("set", "--root", tmp_path, "--aicore", "1=73", "--process", "1:4242:vllm:30000")
    make_node(tmp_path, sim_state.load(tmp_path), driver="24.1.rc2.2")
    usages = npu_smi_out(tmp_path, "info", "-t", "usages", "-i", "1")
    assert npu_smi.kv("HBM Usage Rate(%)", 51) in usages  # (3314 + 30000) / 65536
    assert npu_smi.kv("Aicore Usage Rate(%)", 73) in usages
    common = npu_smi_out(tmp_path, "info", "-t", "common", "-i", "1")
    assert npu_smi.kv("Aicore curFreq(MHZ)", 1800) in common
    assert npu_smi.kv("Aicore Count", 20) in common


def test_processes_on_some_cards_only(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--cards", 2)
    ascend_sim("set", "--root", tmp_path, "--process", "1:4242:a-very-long-process-name:1000")
    make_node(tmp_path, sim_state.load(tmp_path), driver="24.1.rc2.2")
    lines = npu_smi_out(tmp_path, "info").splitlines()
    hbm_cells = [line.split("|")[3] for line in lines if "0000:C" in line]
    assert hbm_cells == [" 0           0    / 0          3318 / 65536         ",
                         " 0           0    / 0          4314 / 65536         "]
    assert lines[-4].startswith("| No running processes found in NPU 0 ")
    assert lines[-2] == ("| 1       0                 | 4242          | a-very-long-pro          "
                         "| 1000                    |")


def test_without_driver_dcmi_fails(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path)
    for argv in (["info"], ["info", "-t", "board", "-i", "0"], ["info", "-l"], ["-v"]):
        assert npu_smi.run(argv, tmp_path) == (1, "dcmi module initialize failed. ret is -8005\n")


def test_bad_ids_types_and_commands(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--cards", 4, "--first-npu-id", 4)
    make_node(tmp_path, sim_state.load(tmp_path), driver="24.1.rc2.2")
    code, text = npu_smi.run(["info", "-t", "board", "-i", "99"], tmp_path)
    assert (code, text) == (1, "Error: NPU ID 99 does not exist.\n")
    assert npu_smi.run(["info", "-t", "board", "-i", "0"], tmp_path)[0] == 1
    code, text = npu_smi.run(["info", "-t", "nonsense", "-i", "4"], tmp_path)
    assert code == 1 and text.startswith("Error parameter of -t\nUsage: npu-smi info ")
    code, text = npu_smi.run(["info", "-t", "board", "-i", "x"], tmp_path)
    assert code == 1 and text.startswith("Error parameter of -i\n")
    code, text = npu_smi.run(["frobnicate"], tmp_path)
    assert code == 1 and text.startswith("Error command: frobnicate\nUsage: npu-smi ")
    assert npu_smi.run(["info", "-t", "board", "-i", "4"], tmp_path)[0] == 0


def test_bin_npu_smi_runs_standalone(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--chip", "910B3", "--cards", 8)
    make_node(tmp_path, sim_state.load(tmp_path), driver="24.1.rc1.b030")
    env = {**os.environ, "ASCEND_SIM_ROOT": str(tmp_path)}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, str(NPU_SMI), "info", "-t", "topo"], env=env,
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == fixture("ms-swift-npu-support-topo-8x910B3.txt")
    assert os.access(NPU_SMI, os.X_OK)
