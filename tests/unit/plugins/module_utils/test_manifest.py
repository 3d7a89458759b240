"""The host manifest's logic: load, apply one change, dump."""

import json
import types

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._manifest import (
    ManifestError,
    apply,
    dump,
    empty,
    load,
    utc_now,
)

T1, T2, T3 = "2025-06-01T08:30:00Z", "2025-06-02T09:00:00Z", "2025-06-03T10:00:00Z"
ENV = {"env_file": "/etc/ascend-fleet/toolchain.env"}


def change(manifest=None, now=T1, **kwargs):
    """apply() at `now`; the manifest, the entries added and the diff, as attributes."""
    result, added, diff = apply(empty() if manifest is None else manifest, now=now, **kwargs)
    return types.SimpleNamespace(manifest=result, added=added, diff=diff)


def toolchain(version="11", details=None, **kwargs):
    """change() of the toolchain component, by `admin`."""
    return change(component="toolchain", version=version,
                  details=ENV if details is None else details, actor="admin", **kwargs)


# --- load / dump --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "  \n"])
def test_empty_text_is_the_empty_manifest(text):
    assert load(text) == {"installed": {}, "active_release": None, "history": []}


def test_load_fills_missing_keys_and_keeps_unknown_ones():
    manifest = load('{"installed": {"cann": {"version": "8.5.1"}}, "note": "kept"}')
    assert manifest == {"installed": {"cann": {"version": "8.5.1"}}, "active_release": None,
                        "history": [], "note": "kept"}


@pytest.mark.parametrize("text, problem", [
    ("{not json", "it is not JSON"),
    ("[]", "it holds a JSON list, not an object"),
    ('{"installed": []}', 'its "installed" is not an object'),
    ('{"installed": {"cann": {"path": "/x"}}}', "its \"installed\" entry 'cann' has no"),
    ('{"history": {}}', 'its "history" is not a list'),
    ('{"active_release": 3}', 'its "active_release" is neither a string nor null'),
])
def test_load_refuses_what_is_not_a_manifest(text, problem):
    with pytest.raises(ManifestError, match="^" + problem.replace("(", r"\(")):
        load(text)


def test_dump_is_stable_and_reads_back():
    manifest = toolchain().manifest
    text = dump(manifest)
    assert text.endswith("}\n") and text.startswith('{\n  "active_release": null,')
    assert load(text) == manifest
    assert dump(load(text)) == text


def test_utc_now_format():
    now = utc_now()
    assert len(now) == 20 and now.endswith("Z") and now[10] == "T"


# --- recording a component ----------------------------------------------------------------------


def test_first_install():
    run = toolchain()
    assert run.manifest["installed"] == {
        "toolchain": {"version": "11", "details": ENV, "since": T1}}
    assert run.manifest["history"] == run.added == [
        {"when": T1, "who": "admin", "component": "toolchain", "from": None, "to": "11",
         "reason": "install"}]
    assert run.diff == {
        "before": {"installed": {"toolchain": None}},
        "after": {"installed": {"toolchain": run.manifest["installed"]["toolchain"]}}}


def test_the_same_again_changes_nothing():
    first = toolchain().manifest
    again = toolchain(now=T2, manifest=first)
    assert again.added == [] and again.manifest is first
    assert again.diff == {"before": {}, "after": {}}


def test_the_input_manifest_is_never_modified():
    first = toolchain().manifest
    snapshot = json.loads(json.dumps(first))
    toolchain(version="10", now=T2, manifest=first)
    assert first == snapshot


def test_upgrade_records_from_and_to():
    first = toolchain(version="10").manifest
    run = toolchain(now=T2, manifest=first, reason="upgrade")
    assert run.manifest["installed"]["toolchain"]["since"] == T2
    assert run.added == [{"when": T2, "who": "admin", "component": "toolchain", "from": "10",
                          "to": "11", "reason": "upgrade"}]
    assert run.manifest["history"] == first["history"] + run.added
    assert run.diff["before"]["installed"]["toolchain"]["version"] == "10"
    assert run.diff["after"]["installed"]["toolchain"]["version"] == "11"


def test_default_reason_of_a_new_version_is_update():
    first = toolchain(version="10").manifest
    assert toolchain(now=T2, manifest=first).added[0]["reason"] == "update"


def test_details_alone_change_keeps_since_and_names_the_keys():
    first = toolchain(details={"env_file": "/a", "packages": {"cmake": "3.25.1-1"}}).manifest
    run = toolchain(details={"packages": {"cmake": "3.25.1-2"}, "venv": "/v"}, now=T2,
                    manifest=first)
    assert run.manifest["installed"]["toolchain"] == {
        "version": "11", "details": {"packages": {"cmake": "3.25.1-2"}, "venv": "/v"},
        "since": T1}
    assert run.added == [{"when": T2, "who": "admin", "component": "toolchain", "from": "11",
                          "to": "11", "reason": "update",
                          "details_changed": ["env_file", "packages", "venv"]}]


def test_details_are_stored_as_json_reads_them():
    manifest = toolchain(details={"packages": ("cmake", "ninja-build"), "jobs": 8}).manifest
    assert manifest["installed"]["toolchain"]["details"] == {
        "packages": ["cmake", "ninja-build"], "jobs": 8}
    again = toolchain(details={"packages": ["cmake", "ninja-build"], "jobs": 8}, now=T2,
                      manifest=load(dump(manifest)))
    assert again.added == []


def test_omitted_details_are_empty():
    manifest = change(component="cann", version="8.5.1", actor="admin").manifest
    assert manifest["installed"]["cann"] == {"version": "8.5.1", "details": {}, "since": T1}


def test_other_components_are_left_alone():
    first = change(component="driver", version="25.5.1", actor="ops").manifest
    run = toolchain(now=T2, manifest=first)
    assert run.manifest["installed"]["driver"] == first["installed"]["driver"]
    assert list(run.diff["after"]["installed"]) == ["toolchain"]


def test_remove():
    first = toolchain().manifest
    run = change(first, component="toolchain", state="absent", actor="ops", now=T2)
    assert run.manifest["installed"] == {}
    assert run.added == [{"when": T2, "who": "ops", "component": "toolchain", "from": "11",
                          "to": None, "reason": "remove"}]
    assert run.diff["after"] == {"installed": {"toolchain": None}}


def test_removing_what_is_not_there_changes_nothing():
    manifest = empty()
    run = change(manifest, component="cann", state="absent", actor="ops")
    assert run.added == [] and run.manifest is manifest


# --- the active release -------------------------------------------------------------------------


def test_active_release_set_then_rolled_back():
    first = change(active_release="v0.18.0", actor="ops")
    assert first.manifest["active_release"] == "v0.18.0"
    assert first.added == [{"when": T1, "who": "ops", "component": "active_release",
                            "from": None, "to": "v0.18.0", "reason": "install"}]
    assert first.diff == {"before": {"active_release": None},
                          "after": {"active_release": "v0.18.0"}}
    back = change(first.manifest, active_release="v0.13.0", actor="ops", reason="rollback",
                  now=T2)
    assert back.manifest["active_release"] == "v0.13.0"
    assert back.added[0]["from"] == "v0.18.0" and back.added[0]["reason"] == "rollback"
    same = change(back.manifest, active_release="v0.13.0", actor="ops", now=T3)
    assert same.added == [] and same.manifest is back.manifest


def test_component_and_active_release_together():
    run = toolchain(active_release="v0.18.0", reason="install")
    assert [entry["component"] for entry in run.added] == ["toolchain", "active_release"]
    assert {entry["when"] for entry in run.added} == {T1}
    assert set(run.diff["after"]) == {"installed", "active_release"}
    assert run.manifest["active_release"] == "v0.18.0"


def test_no_active_release_given_keeps_it():
    first = change(active_release="v0.18.0", actor="ops").manifest
    assert toolchain(now=T2, manifest=first).manifest["active_release"] == "v0.18.0"


# --- the history bound --------------------------------------------------------------------------


def test_history_keeps_the_newest_entries():
    manifest = empty()
    for version in range(1, 8):
        manifest = toolchain(version=str(version), now=f"T{version}", manifest=manifest,
                             history_limit=3).manifest
    assert [entry["to"] for entry in manifest["history"]] == ["5", "6", "7"]


def test_history_limit_zero_keeps_none():
    run = toolchain(history_limit=0)
    assert run.manifest["history"] == [] and len(run.added) == 1
    assert run.manifest["installed"]["toolchain"]["version"] == "11"


def test_no_change_does_not_trim_the_history():
    manifest = empty()
    for version in ("9", "10", "11"):
        manifest = toolchain(version=version, manifest=manifest).manifest
    run = toolchain(version="11", manifest=manifest, history_limit=1)
    assert run.added == [] and len(run.manifest["history"]) == 3
