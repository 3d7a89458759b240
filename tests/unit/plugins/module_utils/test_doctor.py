"""The preflight doctor's judgement, on hosts described the way the preflight role gathers them."""

import copy

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.module_utils import _doctor

RELEASE = {
    "name": "v0.18.0",
    "versions": {"driver": "25.5.1", "firmware": "7.8.0.6.201", "cann": "8.5.1",
                 "torch": "2.9.0", "torch_npu": "2.9.0.post1", "vllm": "0.18.0",
                 "vllm_ascend": "0.18.0"},
}
HCCS_8 = {str(a): {str(b): "HCCS" for b in range(8) if b != a} for a in range(8)}
DF = "Mounted on     Avail\n/        81865814016\n/dev 67108864\n/data disk  1073741824\n"


def healthy_host(**changes):
    """A converged, healthy 8 x 910B3 node running v0.18.0."""
    host = {
        "release": RELEASE,
        "expect_installed": True,
        "npu": {"count": 8, "driver_version": "25.5.1",
                "devices": [{"npu_id": n, "name": "910B3", "health": "OK"} for n in range(8)],
                "topology": {"links": copy.deepcopy(HCCS_8)}},
        "stack": {
            "driver": {"version": "25.5.1"}, "firmware": {"version": "7.8.0.6.201"},
            "cann": {"active": "8.5.1", "installed": ["8.5.1"], "kernels": {"8.5.1": "8.5.1"}},
            "nnal": {"active": "8.5.1"},
            "gcc": {"default": "12.2.0", "installed": {"11": "11.3.0", "12": "12.2.0"}},
            "packages": {"torch": "2.9.0+cpu", "torch_npu": "2.9.0.post1", "vllm": "0.18.0",
                         "vllm_ascend": "0.18.0", "triton_ascend": None},
        },
        "compat": {"violations": []},
        "allowed_chips": ["910B1", "910B2", "910B2C", "910B3", "910B4"],
        "expected_cards": 8,
        "service_user": "vllm",
        "service_user_entry": ["x", "999", "998", "", "/home/vllm", "/bin/false"],
        "npu_group": "HwHiAiUser",
        "npu_group_entry": ["x", "1000", "vllm"],
        "cann_env_file": "/etc/ascend-fleet/cann.env",
        "cann_env_file_exists": True,
        "disk_plan": [{"path": "/usr/local/Ascend", "need_gb": 20, "for": "CANN"}],
        "df": DF,
        "planned_ports": [{"port": 8000, "unit": "vllm-ascend@qwen.service"}],
        "listening": "LISTEN 0 4096 0.0.0.0:22 0.0.0.0:*\n",
        "services": {},
        "device_groups": [{"name": "a", "devices": [0, 1, 2, 3], "tensor_parallel_size": 4},
                          {"name": "b", "devices": [4, 5, 6, 7], "tensor_parallel_size": 4}],
    }
    host.update(changes)
    return host


def by_check(results):
    return {r["check"]: r for r in results}


def test_a_healthy_converged_host_passes_every_check():
    results = _doctor.preflight_checks(healthy_host())
    assert [r["status"] for r in results] == ["ok"] * len(results)
    assert _doctor.blocking_failures(results) == []


def test_a_card_in_warning_blocks_and_names_the_card():
    host = healthy_host()
    host["npu"]["devices"][3]["health"] = "Warning"
    result = by_check(_doctor.preflight_checks(host))["card health"]
    assert result["status"] == "fail" and result["blocking"]
    assert result["detail"] == "NPU 3 Warning"
    assert "npu-smi info -t health -i" in result["fix"]


def test_a_bare_host_is_todo_before_site_yml_and_fails_the_doctor():
    bare_stack = {"driver": None, "cann": {},
                  "gcc": {"default": "12.2.0", "installed": {"12": "12.2.0"}}}
    bare = healthy_host(npu=None, npu_error="npu-smi not found: is the driver installed?",
                        stack=bare_stack, npu_group_entry=None, service_user_entry=None,
                        cann_env_file_exists=False)
    before_install = _doctor.preflight_checks({**bare, "expect_installed": False})
    assert _doctor.blocking_failures(before_install) == []
    statuses = by_check(before_install)
    for check in ("npu-smi", "versions", "CANN environment", "NNAL", "gcc 9-11", "NPU group"):
        assert statuses[check]["status"] == "todo", check
    doctor = by_check(_doctor.preflight_checks(bare))
    assert doctor["npu-smi"]["status"] == "fail"
    assert "no NPU driver installed" in doctor["npu-smi"]["detail"]
    assert doctor["gcc 9-11"]["status"] == "fail"
    assert "vllm_ascend_C" in doctor["gcc 9-11"]["detail"]


def test_driver_installed_but_npu_smi_failing_blocks_even_before_install():
    host = healthy_host(npu=None, npu_error="dcmi module initialize failed. ret is -8005",
                        expect_installed=False)
    result = by_check(_doctor.preflight_checks(host))["npu-smi"]
    assert result["status"] == "fail" and result["blocking"]
    assert "-8005" in result["detail"] and "reboot" in result["fix"]


def test_version_drift_and_compat_violations_are_both_reported():
    host = healthy_host(compat={"violations": ["vllm-ascend 0.18.0 needs torch_npu 2.9.0.post1; "
                                               "this host has 2.8.0: reinstall ..."]})
    host["stack"]["cann"]["active"] = "8.3.RC2"
    host["stack"]["cann"]["kernels"]["8.3.RC2"] = "8.3.RC2"
    result = by_check(_doctor.preflight_checks(host))["versions"]
    assert result["status"] == "fail"
    assert "cann 8.3.RC2 (release v0.18.0 pins 8.5.1)" in result["detail"]
    assert "needs torch_npu 2.9.0.post1" in result["detail"]


def test_local_version_labels_do_not_count_as_drift():
    host = healthy_host()
    host["stack"]["packages"]["vllm"] = "0.18.0+empty"
    assert by_check(_doctor.preflight_checks(host))["versions"]["status"] == "ok"


def test_a_vllm_without_release_version_is_the_invalidversion_error():
    host = healthy_host()
    host["stack"]["packages"]["vllm"] = "dev"
    assert "InvalidVersion" in by_check(_doctor.preflight_checks(host))["versions"]["detail"]


@pytest.mark.parametrize(("groups", "expected"), [
    ([{"name": "a", "devices": [0, 1, 2]}], "tensor parallel size 3 must be a power of two"),
    ([{"name": "a", "devices": [0, 1], "tensor_parallel_size": 4}], "divides its 2 card(s)"),
    ([{"name": "a", "devices": [0, 1]}, {"name": "b", "devices": [1, 2]}],
     "b: NPU 1 is also in a"),
    ([{"name": "a", "devices": [8, 9]}], "a: NPU [8, 9] not on this host"),
    ([{"name": "a", "devices": []}], "a: no devices"),
])
def test_bad_device_groups_are_refused(groups, expected):
    result = by_check(_doctor.preflight_checks(healthy_host(device_groups=groups)))
    assert result["device groups"]["status"] == "fail"
    assert expected in result["device groups"]["detail"]


def test_cards_of_a_group_must_share_hccs():
    host = healthy_host(device_groups=[{"name": "a", "devices": [0, 4]}])
    host["npu"]["topology"]["links"]["0"]["4"] = "PIX"
    assert "0-4 PIX" in by_check(_doctor.preflight_checks(host))["device groups"]["detail"]


def test_a_port_held_by_another_program_blocks_but_its_own_unit_does_not():
    taken = healthy_host(listening="LISTEN 0 4096 0.0.0.0:8000 0.0.0.0:*\n")
    assert by_check(_doctor.preflight_checks(taken))["ports"]["status"] == "fail"
    own = healthy_host(listening="LISTEN 0 4096 [::]:8000 [::]:*\n",
                       services={"vllm-ascend@qwen.service": {"state": "running"}})
    assert by_check(_doctor.preflight_checks(own))["ports"]["status"] == "ok"


def test_short_disk_names_path_free_and_need():
    host = healthy_host(disk_plan=[{"path": "/data disk/models", "need_gb": 2, "for": "model"}])
    result = by_check(_doctor.preflight_checks(host))["disk space"]
    assert result["status"] == "fail"
    assert result["detail"] == "/data disk/models: 1.0 GiB free, 2 GiB needed (model)"


def test_service_user_outside_the_npu_group():
    host = healthy_host(npu_group_entry=["x", "1000", "HwHiAiUser"])
    result = by_check(_doctor.preflight_checks(host))["NPU group"]
    assert result["status"] == "fail"
    assert "usermod -aG HwHiAiUser vllm" in result["fix"]
    primary = healthy_host(npu_group_entry=["x", "998", ""])
    assert by_check(_doctor.preflight_checks(primary))["NPU group"]["status"] == "ok"


def test_missing_kernels_for_the_active_cann_is_the_500001_error():
    host = healthy_host()
    host["stack"]["cann"]["kernels"] = {"8.5.1": None}
    assert "500001" in by_check(_doctor.preflight_checks(host))["kernels/ops"]["detail"]


def test_wrong_chip_and_card_count():
    host = healthy_host(expected_cards=16)
    host["npu"]["devices"][0]["name"] = "910A"
    detail = by_check(_doctor.preflight_checks(host))["cards and chip"]["detail"]
    assert "chip 910A is not one of" in detail
    assert "8 card(s) answer, 16 expected" in detail


def test_table_shows_fix_only_for_findings():
    lines = _doctor.render_table(_doctor.preflight_checks(healthy_host(npu=None)))
    assert lines[0].startswith("check")
    assert any("FAIL" in line and "fix:" in line for line in lines)
    assert all("fix:" not in line for line in lines if " OK " in line)
