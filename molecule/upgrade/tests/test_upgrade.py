"""From release N-1 (converged) to N: failures first, each leaving the host as it was, then the
upgrade itself, then a driver upgrade under the default reboot policy. The tests run in file
order and build on each other."""

import subprocess

import pytest
import yaml
from fleet_helpers import REPO, SIM, changed_count, checksums, node_exec, run_playbook

NODE = "atlas-upgrade-1"
OLD, NEW = "v0.18.0", "v0.23.0"


def release(name):
    return yaml.safe_load((REPO / "releases" / f"{name}.yml").read_text())


def stack_state(host):
    """What must not move when an upgrade is refused or fails."""
    return {
        "driver": host.file("/usr/local/Ascend/driver/version.info").content_string,
        "cann": host.file("/usr/local/Ascend/ascend-toolkit/latest").linked_to,
        "cann_env": host.file("/etc/ascend-fleet/cann.env").linked_to,
        "current": host.file("/opt/ascend-fleet/current").linked_to,
        "cann_trees": host.check_output("ls /usr/local/Ascend"),
    }


def upgrade(*args, **extra_vars):
    return run_playbook("site.yml", *args, extra_vars={"ascend_fleet_release": NEW, **extra_vars})


@pytest.fixture
def unchanged(host):
    """Asserts, after the test, that the host's stack is where it was before."""
    before = stack_state(host)
    yield
    assert stack_state(host) == before


def test_a_wrong_sha256_stops_before_anything_changes(unchanged):
    sums = checksums(NEW)
    toolkit = next(file for file in sums if file.startswith("Ascend-cann-toolkit_"))
    sums[toolkit] = "0" * 64
    run = upgrade(ascend_fleet_artifact_checksums=sums)
    assert run.returncode != 0
    assert f"{toolkit}" in run.stdout and f"expects {'0' * 64}" in run.stdout
    assert "Nothing was changed" in run.stdout


def test_a_failing_installer_stops_with_its_log_and_leaves_the_stack(unchanged):
    node_exec(NODE, "ascend-sim", "set", "--fail-installer", "toolkit")
    try:
        run = upgrade()
    finally:
        node_exec(NODE, "ascend-sim", "set", "--clear-installer-fault", "toolkit")
    assert run.returncode != 0
    assert f"Ascend-cann-toolkit_{release(NEW)['versions']['cann']}" in run.stdout
    assert "[ERROR]" in run.stdout


def test_a_sick_card_refuses_the_upgrade(unchanged):
    node_exec(NODE, "ascend-sim", "set", "--health", "2=Alarm")
    try:
        run = upgrade()
    finally:
        node_exec(NODE, "ascend-sim", "set", "--health", "2=OK")
    assert run.returncode != 0
    assert "[card health] NPU 2 Alarm" in run.stdout


def test_the_upgrade_installs_n_beside_n_minus_1(host):
    run = upgrade()
    assert run.returncode == 0, run.stdout[-4000:]
    old, new = release(OLD)["versions"], release(NEW)["versions"]
    assert host.file("/usr/local/Ascend/ascend-toolkit/latest").linked_to == \
        f"/usr/local/Ascend/cann-{new['cann']}"
    assert host.file(f"/usr/local/Ascend/cann-{old['cann']}").is_directory
    assert host.file("/etc/ascend-fleet/cann.env").linked_to == \
        f"/etc/ascend-fleet/cann/{new['cann']}.env"
    assert host.file("/opt/ascend-fleet/current").linked_to == f"/opt/ascend-fleet/releases/{NEW}"
    for name in (OLD, NEW):
        assert host.file(f"/opt/ascend-fleet/releases/{name}/venv/bin/python").exists
    again = upgrade()
    assert changed_count(again.stdout, NODE) == 0


def test_the_manifest_tells_the_history(host):
    manifest = yaml.safe_load(host.file("/etc/ascend-fleet/manifest.json").content_string)
    cann = [(e["from"], e["to"]) for e in manifest["history"] if e["component"] == "cann"]
    assert cann[-1] == (release(OLD)["versions"]["cann"], release(NEW)["versions"]["cann"])
    assert all(e["who"] and e["when"] for e in manifest["history"])


def test_a_driver_upgrade_stops_for_a_reboot_by_default(host, tmp_path):
    """A release like N with a newer HDK (test data): the driver installs, then the host stops."""
    spec = release(NEW)
    spec["name"] = "v0.23.0-next-hdk"
    spec["versions"]["driver"] = "25.5.2"
    for artifact in spec["artifacts"]:
        if artifact["component"] == "driver":
            artifact["version"] = "25.5.2"
            artifact["files"] = {arch: file.replace("25.5.1", "25.5.2")
                                 for arch, file in artifact["files"].items()}
    releases = tmp_path / "releases"
    releases.mkdir()
    (releases / f"{spec['name']}.yml").write_text(yaml.safe_dump(spec))
    out = tmp_path / "artifacts"
    subprocess.run([str(SIM), "artifacts", "--release", str(releases / f"{spec['name']}.yml"),
                    "--out", str(out)], check=True, capture_output=True)
    run = run_playbook("site.yml", extra_vars={
        "ascend_fleet_release": spec["name"], "preflight_releases_dir": str(releases),
        "ascend_fleet_artifacts_dir": str(out), "npu_driver_reboot": "stop"})
    assert run.returncode != 0
    assert "needs a reboot for the NPU driver/firmware to take effect" in run.stdout
    assert "Version=25.5.2\n" in host.file("/usr/local/Ascend/driver/version.info").content_string
    assert host.file("/run/ascend-fleet/reboot-required").exists
