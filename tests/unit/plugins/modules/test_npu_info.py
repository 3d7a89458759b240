"""npu_info against recorded npu-smi outputs, with AnsibleModule.run_command mocked."""

import grp
import os
import pwd
import types

import pytest
from ansible.module_utils import basic
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._npu_smi import (
    DAVINCI_MANAGER,
    parse_info,
    parse_topology,
)
from ansible_collections.ascend_fleet.vllm.plugins.modules import npu_info

NPU_SMI = "/usr/local/sbin/npu-smi"
TELEGRAF = "yunionio-telegraf-npu_smi_test-board-usages-temp-power-list.txt"
NOT_IN_GROUP = {"user": "fleet", "root": False, "in_group": False, "davinci_manager": "denied"}


def recorded(info, topo=None, boards=None):
    """The answers of a fake npu-smi: argv (after the program) -> (rc, stdout, stderr)."""
    answers = {("info",): (0, info, "")}
    if topo is not None:
        answers["info", "-t", "topo"] = (0, topo, "")
    for npu, text in (boards or {}).items():
        answers["info", "-t", "board", "-i", str(npu)] = (0, text, "")
    return answers


@pytest.fixture
def run_npu_info(monkeypatch, run_module):
    """Run the module on recorded answers; returns result, failed, calls and warnings."""

    def run(answers, check_mode=False, bin_path=NPU_SMI, **params):
        calls = []

        def run_command(module, args, **kwargs):
            calls.append(list(args))
            return answers.get(tuple(args[1:]), (1, "Error: command not recorded\n", ""))

        monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
        monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda module, name: bin_path)
        done = run_module(npu_info.main, check_mode=check_mode, **params)
        done.calls = calls
        return done

    return run


@pytest.fixture
def access_of(monkeypatch):
    """Make host_access() report the given dict (what a failing host looks like)."""
    def set_access(access):
        monkeypatch.setattr(npu_info, "host_access", lambda: dict(access))
    return set_access


# --- facts ------------------------------------------------------------------------------------


def test_facts_of_an_eight_card_host(npu_smi_fixture, run_npu_info):
    info = npu_smi_fixture("ms-swift-npu-support-info-8x910B3.txt")
    topo = npu_smi_fixture("ms-swift-npu-support-topo-8x910B3.txt")
    run = run_npu_info(recorded(info, topo))
    assert not run.failed and run.result["changed"] is False
    npu = run.result["ansible_facts"]["npu"]
    assert npu["count"] == 8
    assert npu["driver_version"] == npu["npu_smi_version"] == "24.1.rc1.b030"
    assert npu["devices"] == parse_info(info)["devices"]
    assert npu["devices"][0]["hbm_total_mb"] == 65536
    assert npu["processes"] == []
    assert npu["topology"] == parse_topology(topo)
    assert npu["topology"]["cpu_affinity"]["7"] == "48-71"
    assert "board" not in npu["devices"][0]
    assert run.calls == [[NPU_SMI, "info"], [NPU_SMI, "info", "-t", "topo"]]
    assert run.warnings == []


def test_physical_ids_and_processes(npu_smi_fixture, run_npu_info):
    run = run_npu_info(recorded(npu_smi_fixture("vllm-ascend-issue-843-info.txt")),
                       topology=False)
    npu = run.result["ansible_facts"]["npu"]
    assert npu["count"] == 4
    assert [device["npu_id"] for device in npu["devices"]] == [4, 5, 6, 7]
    assert [(p["npu_id"], p["pid"], p["memory_mb"]) for p in npu["processes"]] == [
        (4, 498807, 26323), (5, 499212, 26323), (6, 499213, 26323), (7, 499214, 26322)]
    assert "topology" not in npu
    assert run.calls == [[NPU_SMI, "info"]]


@pytest.mark.parametrize("params", [{}, {"board": True}, {"topology": False}])
def test_check_mode_gives_the_same_result(npu_smi_fixture, run_npu_info, params):
    answers = recorded(npu_smi_fixture("vllm-ascend-issue-5044-info-1card.txt"),
                       "\t   NPU4       CPU Affinity\nNPU4       X          0-23\n",
                       {4: npu_smi_fixture(TELEGRAF, "-t board")})
    normal = run_npu_info(answers, **params)
    checked = run_npu_info(answers, check_mode=True, **params)
    assert checked.result == normal.result
    assert checked.calls == normal.calls
    assert normal.result["changed"] is False and not normal.failed


def test_topology_not_supported_warns_and_leaves_it_out(npu_smi_fixture, run_npu_info):
    unsupported = npu_smi_fixture("openyuanrong-functionsystem-topo-4xPXB-and-unsupported.txt",
                                  "topoInfoNotSupport")
    run = run_npu_info(recorded(npu_smi_fixture("vllm-ascend-issue-843-info.txt"), unsupported))
    assert not run.failed
    assert "topology" not in run.result["ansible_facts"]["npu"]
    assert run.warnings == ["npu-smi info -t topo gave no link matrix, so the facts have no "
                            "topology: This device does not support querying topo."]


def test_topology_command_failing_warns(npu_smi_fixture, run_npu_info):
    run = run_npu_info(recorded(npu_smi_fixture("vllm-ascend-issue-843-info.txt")))
    assert "topology" not in run.result["ansible_facts"]["npu"]
    assert run.warnings[0].endswith("topology: Error: command not recorded")


def test_board_details_per_card(npu_smi_fixture, run_npu_info):
    board = npu_smi_fixture(TELEGRAF, "-t board")
    answers = recorded(npu_smi_fixture("openyuanrong-functionsystem-info-A3-8x2chips.txt"),
                       boards={npu: board for npu in range(8)})
    run = run_npu_info(answers, board=True, topology=False)
    devices = run.result["ansible_facts"]["npu"]["devices"]
    assert len(devices) == 16
    # One query per card, shared by the card's two chips.
    assert run.calls[1:] == [[NPU_SMI, "info", "-t", "board", "-i", str(npu)] for npu in range(8)]
    assert {device["board"]["software_version"] for device in devices} == {"25.5.1"}
    assert devices[0]["board"]["firmware_version"] == "7.8.0.6.201"
    assert devices[15]["board"]["serial_number"] == "1025C9048791"


def test_board_that_cannot_be_read(npu_smi_fixture, run_npu_info):
    answers = recorded(npu_smi_fixture("vllm-ascend-issue-843-info.txt"),
                       boards={4: npu_smi_fixture(TELEGRAF, "-t board")})
    run = run_npu_info(answers, board=True, topology=False)
    devices = run.result["ansible_facts"]["npu"]["devices"]
    assert devices[0]["board"]["pci_device_id"] == "0xD802"
    assert [device["board"] for device in devices[1:]] == [None, None, None]
    assert run.warnings == [
        f"npu-smi info -t board -i {npu} gave no board details: Error: command not recorded"
        for npu in (5, 6, 7)]


def test_npu_smi_path_is_used(npu_smi_fixture, run_npu_info, tmp_path):
    npu_smi = tmp_path / "npu-smi"
    npu_smi.write_text("#!/bin/sh\n")
    npu_smi.chmod(0o755)
    info = npu_smi_fixture("vllm-ascend-issue-5044-info-1card.txt")
    run = run_npu_info(recorded(info), bin_path=None, npu_smi_path=str(npu_smi), topology=False)
    assert run.calls == [[str(npu_smi), "info"]]
    assert run.result["ansible_facts"]["npu"]["count"] == 1


# --- failures ---------------------------------------------------------------------------------


def test_npu_smi_not_installed(run_npu_info):
    run = run_npu_info({}, bin_path=None)
    assert run.failed and run.calls == []
    assert run.result["msg"] == (
        "npu-smi was not found on PATH or in the sbin directories: the NPU driver is not "
        "installed (role npu_driver installs it), or set npu_smi_path to where it is")


def test_npu_smi_path_missing(run_npu_info, tmp_path):
    run = run_npu_info({}, npu_smi_path=str(tmp_path / "npu-smi"))
    assert run.failed
    assert run.result["msg"] == (f"npu_smi_path {tmp_path / 'npu-smi'} does not exist: the NPU "
                                 "driver is not installed, or npu-smi is elsewhere")


def test_npu_smi_path_not_executable(run_npu_info, access_of, tmp_path):
    npu_smi = tmp_path / "npu-smi"
    npu_smi.write_text("#!/bin/sh\n")
    npu_smi.chmod(0o644)
    access_of(NOT_IN_GROUP)
    run = run_npu_info({}, npu_smi_path=str(npu_smi))
    assert run.failed
    assert run.result["msg"] == f"{npu_smi} is not executable by fleet: run as root (become: true)"


def test_driver_not_loaded(npu_smi_fixture, run_npu_info, access_of):
    output = npu_smi_fixture("vllm-ascend-issue-2698-info-dcmi-8005.txt")
    access_of({"user": "root", "root": True, "in_group": None, "davinci_manager": "missing"})
    run = run_npu_info({("info",): (255, output, "")})
    assert run.failed
    assert run.result["msg"] == (
        "npu-smi could not open the NPUs (dcmi error -8005): the NPU driver is not loaded: "
        "/dev/davinci_manager does not exist. Install the driver and firmware (role npu_driver), "
        "and reboot if the installer asks")
    assert run.result["rc"] == 255 and run.result["stdout"] == output
    assert run.calls == [[NPU_SMI, "info"]]


def test_user_not_in_the_group(npu_smi_fixture, run_npu_info, access_of):
    output = npu_smi_fixture("vllm-ascend-issue-2698-info-dcmi-8005.txt")
    access_of(NOT_IN_GROUP)
    run = run_npu_info({("info",): (255, output, "")})
    assert run.result["msg"].endswith(
        "fleet is neither root nor in the HwHiAiUser group, so it may not open "
        "/dev/davinci_manager: run as root (become: true) or add fleet to HwHiAiUser")


def test_device_held_by_another_container_even_with_exit_code_0(npu_smi_fixture, run_npu_info,
                                                                access_of):
    output = npu_smi_fixture("cann-container-image-issue-46-info-dcmi-8020.txt")
    access_of({"user": "root", "root": True, "in_group": None, "davinci_manager": "ok"})
    run = run_npu_info({("info",): (0, output, "")})
    assert run.failed
    assert run.result["msg"].startswith("another container or process holds the NPU")


def test_driver_libraries_missing(npu_smi_fixture, run_npu_info, access_of):
    output = npu_smi_fixture("hami-issue-615-info-missing-libc_sec.txt")
    access_of({})
    run = run_npu_info({("info",): (127, "", output)})
    assert run.result["msg"].startswith("npu-smi cannot load libc_sec.so")
    assert run.result["stderr"] == output


def test_output_that_is_not_a_table(npu_smi_fixture, run_npu_info, access_of):
    access_of({"davinci_manager": "ok"})
    run = run_npu_info({("info",): (0, npu_smi_fixture("arthurchiao-gpu-notes-2-info-help.txt"),
                                    "")})
    assert run.failed
    assert run.result["msg"] == ("npu-smi printed no device table: Usage: npu-smi info "
                                 "<watch|proc|-h|-m|-l|-t type> [Options...]")


# --- what the module finds out about the host -------------------------------------------------


@pytest.mark.parametrize("uid, groups, node, expected", [
    (0, [0], "ok", {"user": "root", "root": True, "in_group": True, "davinci_manager": "ok"}),
    (1000, [1000], "denied",
     {"user": "fleet", "root": False, "in_group": False, "davinci_manager": "denied"}),
    (1000, [1000, 1234], "ok",
     {"user": "fleet", "root": False, "in_group": True, "davinci_manager": "ok"}),
    (1000, [1000], "missing",
     {"user": "fleet", "root": False, "in_group": False, "davinci_manager": "missing"}),
])
def test_host_access(monkeypatch, uid, groups, node, expected):
    names = {0: "root", 1000: "fleet"}
    real_exists, real_access = os.path.exists, os.access
    monkeypatch.setattr(os, "geteuid", lambda: uid)
    monkeypatch.setattr(os, "getegid", lambda: groups[0])
    monkeypatch.setattr(os, "getgroups", lambda: groups)
    monkeypatch.setattr(pwd, "getpwuid", lambda u: types.SimpleNamespace(pw_name=names[u]))
    gid = 0 if uid == 0 else 1234
    monkeypatch.setattr(grp, "getgrnam", lambda name: types.SimpleNamespace(gr_gid=gid))
    monkeypatch.setattr(os.path, "exists", lambda path: node != "missing"
                        if path == DAVINCI_MANAGER else real_exists(path))
    monkeypatch.setattr(os, "access", lambda path, mode: node == "ok"
                        if path == DAVINCI_MANAGER else real_access(path, mode))
    assert npu_info.host_access() == expected


def test_host_access_without_the_group(monkeypatch):
    def no_group(name):
        raise KeyError(name)
    monkeypatch.setattr(grp, "getgrnam", no_group)
    assert npu_info.host_access()["in_group"] is None
