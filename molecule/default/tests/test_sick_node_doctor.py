"""The doctor (playbooks/preflight.yml) on the converged node, then on the node made sick.

pytest runs files in name order: this one comes last on purpose, as it changes the node, in
this order: clean (passes and changes nothing, in check mode too), one card in Warning plus a
CANN that is not the release's (both reported with fixes; the host fails), no driver (reported
as such).
"""

import json
import subprocess

import pytest
import yaml
from fleet_helpers import REPO, SIM, changed_count, node_exec, run_playbook

NODE = "atlas-molecule-1"
OTHER_CANN = "8.3.RC2"


def doctor(tmp_path):
    run = run_playbook("playbooks/preflight.yml",
                       extra_vars={"preflight_report_dir": str(tmp_path)})
    report = json.loads((tmp_path / "preflight.json").read_text())
    return run, {r["check"]: r for r in report["hosts"][NODE]}


def test_site_in_check_mode_reports_nothing_to_change():
    run = run_playbook("site.yml", "--check", "--diff")
    assert run.returncode == 0, run.stdout[-3000:]
    assert changed_count(run.stdout, NODE) == 0


def test_doctor_passes_on_the_converged_node(tmp_path):
    run, checks = doctor(tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]
    assert {name: r["status"] for name, r in checks.items()} == dict.fromkeys(checks, "ok")
    assert changed_count(run.stdout, NODE) == 0
    markdown = (tmp_path / "preflight.md").read_text()
    assert f"## {NODE}: ready" in markdown


@pytest.fixture
def other_cann_installer(tmp_path):
    """The toolkit installer of another CANN version, built by the simulator, copied to the node."""
    release = yaml.safe_load((REPO / "releases" / "v0.18.0.yml").read_text())
    release["artifacts"] = [
        {"component": "toolkit", "version": OTHER_CANN,
         "files": {"x86_64": f"Ascend-cann-toolkit_{OTHER_CANN}_linux-x86_64.run",
                   "aarch64": f"Ascend-cann-toolkit_{OTHER_CANN}_linux-aarch64.run"}}]
    release_file = tmp_path / "other.yml"
    release_file.write_text(yaml.safe_dump(release))
    subprocess.run([str(SIM), "artifacts", "--release", str(release_file), "--out",
                    str(tmp_path / "out")], check=True, capture_output=True)
    installer = next((tmp_path / "out").glob("*.run"))
    subprocess.run(["podman", "cp", str(installer), f"{NODE}:/root/{installer.name}"], check=True)
    return f"/root/{installer.name}"


def test_doctor_reports_a_sick_card_and_a_foreign_cann(tmp_path, other_cann_installer):
    node_exec(NODE, "ascend-sim", "set", "--health", "3=Warning")
    node_exec(NODE, other_cann_installer, "--install", "--quiet")  # it switches the active CANN
    run, checks = doctor(tmp_path)
    assert run.returncode != 0
    assert checks["card health"]["status"] == "fail"
    assert checks["card health"]["detail"] == "NPU 3 Warning"
    assert "npu-smi info -t health" in checks["card health"]["fix"]
    assert checks["versions"]["status"] == "fail"
    assert f"cann {OTHER_CANN} (release v0.18.0 pins 8.5.1)" in checks["versions"]["detail"]
    assert "site.yml" in checks["versions"]["fix"]
    assert f"{NODE} is not fit to go on" in run.stdout


def test_doctor_says_when_the_driver_is_gone(tmp_path):
    node_exec(NODE, "/usr/local/Ascend/driver/script/uninstall.sh")
    run, checks = doctor(tmp_path)
    assert run.returncode != 0
    assert checks["npu-smi"]["status"] == "fail"
    assert "no NPU driver installed" in checks["npu-smi"]["detail"]
    assert "npu_driver" in checks["npu-smi"]["fix"]
