"""host_manifest on real files in a temporary directory; only the module's exit and the clock are
mocked."""

import json
import os
import stat

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.module_utils import _manifest
from ansible_collections.ascend_fleet.vllm.plugins.modules import host_manifest

NOW = "2025-06-01T08:30:00Z"
ENV = {"env_file": "/etc/ascend-fleet/toolchain.env", "packages": {"gcc-11": "11.3.0-12"}}
TOOLCHAIN = {"component": "toolchain", "version": "11", "details": ENV, "actor": "admin"}


@pytest.fixture
def path(tmp_path):
    """Where the manifest goes: in a directory that does not exist yet."""
    return tmp_path / "etc" / "ascend-fleet" / "manifest.json"


@pytest.fixture
def run_module(run_module, monkeypatch, path):
    """Run host_manifest (path preset, the clock at NOW, diff mode unless diff=False); returns
    result, failed and warnings."""
    monkeypatch.setattr(_manifest, "utc_now", lambda: NOW)

    def run(check_mode=False, diff=True, **params):
        return run_module(host_manifest.main, check_mode=check_mode,
                          **{"path": str(path), **params}, _ansible_diff=diff)

    return run


def file_state(path):
    """Content, inode and mtime of the file: what must not move when nothing changes."""
    info = path.stat()
    return path.read_text(), info.st_ino, info.st_mtime_ns


# --- recording ----------------------------------------------------------------------------------


def test_first_record_writes_the_manifest(run_module, path):
    run = run_module(**TOOLCHAIN)
    assert not run.failed and run.result["changed"] is True
    entry = {"version": "11", "details": ENV, "since": NOW}
    assert run.result["manifest"] == {
        "installed": {"toolchain": entry}, "active_release": None,
        "history": [{"when": NOW, "who": "admin", "component": "toolchain", "from": None,
                     "to": "11", "reason": "install"}]}
    assert json.loads(path.read_text()) == run.result["manifest"]
    assert path.read_text() == _manifest.dump(run.result["manifest"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o755
    assert run.result["diff"]["before"] == {"installed": {"toolchain": None}}
    assert run.result["diff"]["after"] == {"installed": {"toolchain": entry}}
    assert run.result["diff"]["before_header"] == str(path)
    assert os.listdir(path.parent) == ["manifest.json"]  # no temporary file left


def test_the_same_again_writes_nothing(run_module, path):
    first = run_module(**TOOLCHAIN)
    before = file_state(path)
    again = run_module(**TOOLCHAIN)
    assert not again.failed and again.result["changed"] is False
    assert again.result["manifest"] == first.result["manifest"]
    assert again.result["diff"]["before"] == again.result["diff"]["after"] == {}
    assert file_state(path) == before


def test_upgrade_appends_history(run_module, path):
    run_module(**{**TOOLCHAIN, "version": "10"})
    run = run_module(**TOOLCHAIN, reason="upgrade", active_release="v0.18.0")
    history = json.loads(path.read_text())["history"]
    assert [(e["component"], e["from"], e["to"], e["reason"]) for e in history] == [
        ("toolchain", None, "10", "install"), ("toolchain", "10", "11", "upgrade"),
        ("active_release", None, "v0.18.0", "upgrade")]
    assert run.result["diff"]["before"]["installed"]["toolchain"]["version"] == "10"
    assert run.result["diff"]["after"]["active_release"] == "v0.18.0"


def test_active_release_alone(run_module, path):
    run = run_module(active_release="v0.18.0", actor="ops")
    assert run.result["changed"] is True
    assert json.loads(path.read_text())["active_release"] == "v0.18.0"


def test_absent_removes_the_component(run_module, path):
    run_module(**TOOLCHAIN)
    run = run_module(component="toolchain", state="absent", actor="ops")
    assert run.result["changed"] is True
    manifest = json.loads(path.read_text())
    assert manifest["installed"] == {}
    assert manifest["history"][-1]["to"] is None


def test_history_limit(run_module, path):
    for version in ("9", "10", "11"):
        run_module(**{**TOOLCHAIN, "version": version}, history_limit=2)
    assert [e["to"] for e in json.loads(path.read_text())["history"]] == ["10", "11"]


def test_other_permissions_are_set_back(run_module, path):
    run_module(**TOOLCHAIN)
    path.chmod(0o600)
    checked = run_module(check_mode=True, **TOOLCHAIN)
    assert checked.result["changed"] is True and stat.S_IMODE(path.stat().st_mode) == 0o600
    run = run_module(**TOOLCHAIN)
    assert run.result["changed"] is True and stat.S_IMODE(path.stat().st_mode) == 0o644
    assert run.result["diff"]["before"]["mode"] == "0600"


def test_no_diff_unless_asked(run_module):
    assert "diff" not in run_module(diff=False, **TOOLCHAIN).result


# --- check mode ---------------------------------------------------------------------------------


@pytest.mark.parametrize("params", [
    TOOLCHAIN,
    {**TOOLCHAIN, "active_release": "v0.18.0", "reason": "install"},
    {"active_release": "v0.18.0", "actor": "ops"},
    {"component": "cann", "state": "absent", "actor": "ops"},
])
def test_check_mode_gives_the_same_result_and_writes_nothing(run_module, path, params):
    checked = run_module(check_mode=True, **params)
    assert not path.exists() and not path.parent.exists()
    normal = run_module(**params)
    assert checked.result == normal.result
    assert checked.failed is normal.failed is False


def test_check_mode_on_an_existing_manifest(run_module, path):
    run_module(**TOOLCHAIN)
    before = file_state(path)
    upgrade = {**TOOLCHAIN, "version": "10", "reason": "downgrade"}
    checked = run_module(check_mode=True, **upgrade)
    assert file_state(path) == before
    normal = run_module(**upgrade)
    assert checked.result == normal.result and normal.result["changed"] is True
    same = run_module(check_mode=True, **upgrade)
    assert same.result["changed"] is False


# --- failures -----------------------------------------------------------------------------------


def test_a_file_that_is_not_a_manifest_is_left_alone(run_module, path):
    path.parent.mkdir(parents=True)
    path.write_text("[1, 2]\n")
    run = run_module(**TOOLCHAIN)
    assert run.failed
    assert run.result["msg"] == (
        f"{path} is not a host manifest: it holds a JSON list, not an object. Nothing was "
        "changed. Fix it, or move it aside to start a new manifest (its history is then in the "
        "moved file only)")
    assert path.read_text() == "[1, 2]\n"


def test_version_is_needed_to_record_a_component(run_module, path):
    run = run_module(component="toolchain", actor="ops")
    assert run.failed and not path.exists()
    assert run.result["msg"].startswith("version is required to record component toolchain")


@pytest.mark.parametrize("params, words", [
    ({"component": "toolchain", "version": "11"}, "missing required arguments: actor"),
    ({"actor": "ops"}, "one of the following is required: component, active_release"),
    ({"version": "11", "active_release": "v1", "actor": "ops"},
     "missing parameter(s) required by 'version': component"),
    ({**TOOLCHAIN, "history_limit": -1}, "history_limit is -1"),
])
def test_wrong_options(run_module, path, params, words):
    run = run_module(**params)
    assert run.failed and words in run.result["msg"]
    assert not path.exists()


def test_unreadable_path(run_module, path):
    path.mkdir(parents=True)
    run = run_module(**TOOLCHAIN)
    assert run.failed and run.result["msg"].startswith(f"cannot read the manifest {path}: ")
