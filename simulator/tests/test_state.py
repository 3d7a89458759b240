"""`ascend-sim init` and `set`: the node state they write, and how they refuse bad input."""

import json
import os

import pytest
from ascend_sim import state as sim_state

STATE = sim_state.STATE_FILE


def read(root):
    return json.loads((root / STATE).read_text())


def test_init_writes_an_idle_800i_a2(tmp_path, ascend_sim):
    assert ascend_sim("init", "--root", tmp_path, "--chip", "910B3", "--cards", 8) == 0
    state = read(tmp_path)
    assert state["model"] == "Atlas 800I A2" and state["chip"] == "910B3"
    assert [card["npu_id"] for card in state["cards"]] == list(range(8))
    card = state["cards"][0]
    assert card == {
        "npu_id": 0, "chip_id": 0, "name": "910B3", "health": "OK", "bus_id": "0000:C1:00.0",
        "power_w": 101.8, "temp_c": 43, "hugepages_used": 0, "hugepages_total": 0,
        "aicore_pct": 0, "memory_used_mb": 0, "memory_total_mb": 0, "hbm_used_mb": 3318,
        "hbm_total_mb": 65536, "serial_number": "1025C9048791"}
    links = state["topology"]["links"]
    assert all(links[a][b] == ("X" if a == b else "HCCS") for a in range(8) for b in range(8))
    assert state["topology"]["cpu_affinity"] == [
        "144-167", "144-167", "96-119", "96-119", "0-23", "0-23", "48-71", "48-71"]
    assert state["processes"] == [] and state["installer_faults"] == []
    assert "driver" not in json.dumps(state).lower()  # the driver version is never state


def test_chip_sizes_and_physical_ids(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--chip", "910b4", "--cards", 4, "--first-npu-id", 4)
    cards = read(tmp_path)["cards"]
    assert [card["npu_id"] for card in cards] == [4, 5, 6, 7]
    assert {(card["name"], card["hbm_total_mb"], card["hbm_used_mb"]) for card in cards} == {
        ("910B4", 32768, 2854), ("910B4", 32768, 2855)}
    assert [card["bus_id"][5:7] for card in cards] == ["01", "02", "41", "42"]
    ascend_sim("init", "--root", tmp_path, "--chip", "910B2C", "--cards", 16, "--force")
    cards = read(tmp_path)["cards"]
    assert len(cards) == 16 and cards[15]["bus_id"] == "0000:C9:00.0"
    assert len(set(read(tmp_path)["topology"]["cpu_affinity"])) == 8


def test_init_is_deterministic_and_seedable():
    assert sim_state.build_state("910B3", 8) == sim_state.build_state("910B3", 8)
    seeded = sim_state.build_state("910B3", 8, seed=7)
    assert seeded == sim_state.build_state("910B3", 8, seed=7)
    assert seeded != sim_state.build_state("910B3", 8)
    assert seeded != sim_state.build_state("910B3", 8, seed=8)


@pytest.mark.parametrize("argv, message", [
    (["--chip", "910C"], "allowed values: 910B1, 910B2, 910B2C, 910B3, 910B4"),
    (["--cards", "0"], "cards must be 1..16"),
    (["--cards", "17"], "cards must be 1..16"),
    (["--cards", "8", "--first-npu-id", "12"], "NPU ids stay within 0..15"),
])
def test_init_rejects_bad_hardware(tmp_path, ascend_sim, capsys, argv, message):
    try:
        code = ascend_sim("init", "--root", tmp_path, *argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / STATE).exists()


def test_init_keeps_an_existing_state_unless_forced(tmp_path, ascend_sim, capsys):
    ascend_sim("init", "--root", tmp_path, "--cards", 2)
    assert ascend_sim("init", "--root", tmp_path, "--cards", 4) == 2
    assert "--force" in capsys.readouterr().err
    assert len(read(tmp_path)["cards"]) == 2
    assert ascend_sim("init", "--root", tmp_path, "--cards", 4, "--force") == 0
    assert len(read(tmp_path)["cards"]) == 4


def test_root_defaults_to_the_environment(tmp_path, ascend_sim, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_ROOT", str(tmp_path))
    assert ascend_sim("init", "--cards", 1) == 0
    assert read(tmp_path)["cards"][0]["npu_id"] == 0


def test_set_changes_cards_processes_and_faults(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--cards", 4, "--first-npu-id", 4)
    assert ascend_sim("set", "--root", tmp_path, "--health", "5=Critical", "--health", "6=unknown",
                      "--hbm-used", "4=10000", "--aicore", "4=88", "--temp", "7=71",
                      "--power", "7=250.26", "--process", "4:1234:python:2048",
                      "--fail-installer", "driver", "--fail-installer", "nnal",
                      "--npu-smi-version", "24.1.rc2") == 0
    state = read(tmp_path)
    cards = {card["npu_id"]: card for card in state["cards"]}
    assert (cards[5]["health"], cards[6]["health"]) == ("Critical", "UNKNOWN")
    assert (cards[4]["hbm_used_mb"], cards[4]["aicore_pct"]) == (10000, 88)
    assert (cards[7]["temp_c"], cards[7]["power_w"]) == (71, 250.3)
    assert state["processes"] == [
        {"npu_id": 4, "chip_id": 0, "pid": 1234, "name": "python", "memory_mb": 2048}]
    assert state["installer_faults"] == ["driver", "nnal"]
    assert state["npu_smi_version"] == "24.1.rc2"
    assert ascend_sim("set", "--root", tmp_path, "--clear-processes", "--process",
                      "5:99:vllm:1", "--clear-installer-fault", "driver",
                      "--npu-smi-version", "") == 0
    state = read(tmp_path)
    assert [proc["pid"] for proc in state["processes"]] == [99]
    assert state["installer_faults"] == ["nnal"] and state["npu_smi_version"] is None


@pytest.mark.parametrize("argv, message", [
    (["--health", "0=Sick"], "--health '0=Sick': 'Sick' is not one of OK, Warning, Alarm"),
    (["--health", "9=OK"], "--health '9': no card with that NPU id; this node has NPU 0, 1"),
    (["--health", "0"], "--health '0': expected N=OK|Warning|Alarm|Critical|UNKNOWN"),
    (["--hbm-used", "1=70000"], "--hbm-used '1=70000': '70000' is not an integer in 0..65536"),
    (["--aicore", "0=101"], "--aicore '0=101': '101' is not an integer in 0..100"),
    (["--temp", "0=hot"], "--temp '0=hot': 'hot' is not an integer"),
    (["--power", "1=-5"], "--power '1=-5'"),
    (["--process", "0:12:python"], "--process '0:12:python': expected N:PID:NAME:MB"),
    (["--process", "0:abc:python:1"], "--process '0:abc:python:1': 'abc' is not an integer"),
    (["--fail-installer", "bios"], "invalid choice: 'bios'"),
    (["--health", "0=Warning", "--aicore", "1=500"], "--aicore '1=500'"),
])
def test_set_rejects_bad_input_and_keeps_the_state(tmp_path, ascend_sim, capsys, argv, message):
    ascend_sim("init", "--root", tmp_path, "--cards", 2)
    before = (tmp_path / STATE).read_bytes()
    try:
        code = ascend_sim("set", "--root", tmp_path, *argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert (tmp_path / STATE).read_bytes() == before


def test_set_without_state_says_how_to_create_it(tmp_path, ascend_sim, capsys):
    assert ascend_sim("set", "--root", tmp_path, "--health", "0=OK") == 2
    assert "run `ascend-sim init` first" in capsys.readouterr().err


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path, ascend_sim):
    ascend_sim("init", "--root", tmp_path, "--cards", 1)
    ascend_sim("set", "--root", tmp_path, "--aicore", "0=5")
    directory = tmp_path / STATE
    assert os.listdir(directory.parent) == ["state.json"]
    assert directory.stat().st_mode & 0o777 == 0o644


def test_live_processes_need_a_running_pid_on_a_real_root(tmp_path):
    state = sim_state.build_state("910B3", 2)
    state["processes"] = [{"npu_id": 0, "chip_id": 0, "pid": 7, "name": "static",
                           "memory_mb": 1}]
    live = tmp_path / sim_state.PROCESS_DIR
    live.mkdir(parents=True)
    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitpid(gone, 0)
    for name, pid in (("alive", os.getpid()), ("gone", gone)):
        live.joinpath(f"{name}.json").write_text(json.dumps(
            {"npu_id": 1, "chip_id": 0, "pid": pid, "name": name, "memory_mb": 100}))
    live.joinpath("broken.json").write_text("{")
    names = [proc["name"] for proc in sim_state.processes(tmp_path, state, check_pids=True)]
    assert names == ["static", "alive"]
    names = [proc["name"] for proc in sim_state.processes(tmp_path, state)]
    assert names == ["static", "alive", "gone"]  # a test root: pids are taken as alive
