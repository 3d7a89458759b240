"""The host manifest: what is installed and active on a host, and the history of its changes.

Pure Python, standard library only: this runs on managed nodes (Python 3.8+) and in unit tests.
The manifest is one JSON document:

    {"installed": {"<component>": {"version": "...", "details": {...}, "since": "<UTC>"}},
     "active_release": "<release name>" | null,
     "history": [{"when": "<UTC>", "who": "...", "component": "...",
                  "from": "<old version>" | null, "to": "<new version>" | null,
                  "reason": "..."}]}

- load(text): parse and check a manifest (empty text is the empty manifest)
- dump(manifest): its file content (sorted keys, 2-space indent, final newline)
- apply(manifest, ...): the manifest after one change, the history entries it added, and the
  before/after of what changed (for a diff); nothing is added when nothing changed
- utc_now(): the current time as the manifest writes it

A history entry whose version stayed the same but whose details changed lists the changed
detail keys as `details_changed`. The history keeps the newest `history_limit` entries.
"""

from __future__ import annotations

import copy
import datetime
import json

ACTIVE_RELEASE = "active_release"
DEFAULT_HISTORY_LIMIT = 500


class ManifestError(Exception):
    """The manifest text is not a manifest."""


def empty():
    """A manifest with nothing installed, no active release and no history."""
    return {"installed": {}, "active_release": None, "history": []}


def utc_now():
    """Now, in UTC, ISO 8601 to the second: 2025-01-31T12:00:00Z."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def load(text):
    """The manifest in `text`; empty text is the empty manifest. Raises ManifestError."""
    if not text.strip():
        return empty()
    try:
        manifest = json.loads(text)
    except ValueError as error:
        raise ManifestError(f"it is not JSON ({error})") from None
    if not isinstance(manifest, dict):
        raise ManifestError(f"it holds a JSON {type(manifest).__name__}, not an object")
    result = empty()
    result.update(manifest)
    if not isinstance(result["installed"], dict):
        raise ManifestError('its "installed" is not an object')
    for name, entry in result["installed"].items():
        if not isinstance(entry, dict) or "version" not in entry:
            raise ManifestError(f'its "installed" entry {name!r} has no "version"')
    if not isinstance(result["history"], list):
        raise ManifestError('its "history" is not a list')
    if result["active_release"] is not None and not isinstance(result["active_release"], str):
        raise ManifestError('its "active_release" is neither a string nor null')
    return result


def dump(manifest):
    """The file content of `manifest`: stable, so the same manifest always gives the same bytes."""
    return json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def plain(value):
    """`value` as it reads back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def default_reason(before, after):
    """The reason of a change when none is given: install, remove or update."""
    if before is None:
        return "install"
    if after is None:
        return "remove"
    return "update"


def entry_change(old, new):
    """How a component entry changed: (from version, to version, changed detail keys)."""
    before = None if old is None else old.get("version")
    after = None if new is None else new.get("version")
    if old is None or new is None or before != after:
        return before, after, None
    old_details, new_details = old.get("details") or {}, new.get("details") or {}
    missing = object()
    keys = sorted(key for key in set(old_details) | set(new_details)
                  if old_details.get(key, missing) != new_details.get(key, missing))
    return before, after, keys


def apply(manifest, component=None, version=None, details=None, state="present",
          active_release=None, actor="unknown", reason=None, now=None,
          history_limit=DEFAULT_HISTORY_LIMIT):
    """Record one change in a copy of `manifest`.

    Sets (state present) or removes (state absent) installed[component], and sets the active
    release when `active_release` is given. Returns (manifest, added, diff): the new manifest
    (`manifest` itself, untouched, when nothing changed), the history entries added (empty when
    nothing changed) and {"before": {...}, "after": {...}} holding only what changed.
    """
    now = now or utc_now()
    result = copy.deepcopy(manifest)
    added, before, after = [], {}, {}

    def record(name, old, new, details_changed=None):
        entry = {"when": now, "who": actor, "component": name, "from": old, "to": new,
                 "reason": reason or default_reason(old, new)}
        if details_changed:
            entry["details_changed"] = details_changed
        added.append(entry)

    if component is not None:
        installed = result["installed"]
        old = installed.get(component)
        if state == "absent":
            new = None
        else:
            new = {"version": version, "details": plain(details or {}),
                   "since": old["since"] if old and old.get("version") == version
                   and "since" in old else now}
        old_view = None if old is None else {k: old.get(k) for k in ("version", "details")}
        new_view = None if new is None else {k: new[k] for k in ("version", "details")}
        if old_view != new_view:
            if new is None:
                del installed[component]
            else:
                installed[component] = new
            record(component, *entry_change(old, new))
            before.setdefault("installed", {})[component] = old
            after.setdefault("installed", {})[component] = new

    if active_release is not None and active_release != result["active_release"]:
        before[ACTIVE_RELEASE] = result["active_release"]
        after[ACTIVE_RELEASE] = active_release
        record(ACTIVE_RELEASE, result["active_release"], active_release)
        result[ACTIVE_RELEASE] = active_release

    if not added:
        return manifest, [], {"before": {}, "after": {}}
    history = result["history"] + added
    result["history"] = history[-history_limit:] if history_limit > 0 else []
    return result, added, {"before": before, "after": after}
