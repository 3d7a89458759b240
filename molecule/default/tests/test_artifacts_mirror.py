"""The artifacts role's HTTP mirror source: downloads checked against their sha256 before use."""

import subprocess
import time

import pytest
from fleet_helpers import changed_count, checksums, node_exec, run_playbook

NODE = "atlas-molecule-1"
PORT = 8765
RELEASE = "v0.18.0"
PLAYBOOK = "molecule/default/artifacts_from_mirror.yml"
DRIVER = "Ascend-hdk-910b-npu-driver_25.5.1_linux-x86-64.run"


@pytest.fixture(scope="module")
def mirror():
    """An HTTP server on the node serving the release's verified artifacts."""
    served = f"/var/cache/ascend-fleet/artifacts/{RELEASE}"
    server = subprocess.Popen(["podman", "exec", NODE, "python3", "-m", "http.server", str(PORT),
                               "--bind", "127.0.0.1", "--directory", served],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(50):
        if "200" in node_exec(NODE, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                              f"http://127.0.0.1:{PORT}/SHA256SUMS"):
            break
        time.sleep(0.2)
    yield f"http://127.0.0.1:{PORT}/"
    node_exec(NODE, "pkill", "-f", f"http.server {PORT}")
    server.wait(timeout=10)


def fetch(mirror_url, host_dir, **extra):
    return run_playbook(PLAYBOOK, extra_vars={
        "ascend_fleet_release": RELEASE, "artifacts_mirror_url": mirror_url,
        "artifacts_host_dir": host_dir, **extra})


def test_artifacts_come_from_the_mirror_and_a_rerun_changes_nothing(host, mirror):
    run = fetch(mirror, "/tmp/from-mirror")
    assert run.returncode == 0, run.stdout[-3000:]
    for file, digest in checksums(RELEASE).items():
        assert host.file(f"/tmp/from-mirror/{file}").sha256sum == digest, file
    assert host.file(f"/tmp/from-mirror/{DRIVER}").mode == 0o750
    assert changed_count(fetch(mirror, "/tmp/from-mirror").stdout, NODE) == 0


def test_a_download_with_the_wrong_sha256_is_not_kept(host, mirror):
    sums = {**checksums(RELEASE), DRIVER: "1" * 64}
    run = fetch(mirror, "/tmp/bad-mirror", ascend_fleet_artifact_checksums=sums)
    assert run.returncode != 0
    assert "did not match" in run.stdout
    assert not host.file(f"/tmp/bad-mirror/{DRIVER}").exists
