#!/usr/bin/python
# Copyright: ascend-fleet developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""host_manifest: record on a host what is installed and active, with a history of changes."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: host_manifest
short_description: Record what is installed and active on a host, with a history of changes
version_added: 0.1.0
description:
  - Keeps a JSON manifest on the host (by default C(/etc/ascend-fleet/manifest.json)) saying
    which version of each component of the stack is installed (C(installed)), which release is
    active (C(active_release)) and every change made to them (C(history)), each with when it
    happened (UTC, ISO 8601), who made it, which component, from which version to which, and
    why.
  - Each call records one component (O(component) with O(version) and O(details)) and/or the
    active release (O(active_release)). A history entry is added only when something changed,
    so roles call it on every run; calling it again with the same values changes nothing and
    writes nothing.
  - A missing manifest is an empty one. The file is written atomically (a temporary file
    renamed over it), mode C(0644), owned by root when the module runs as root. It holds no
    secrets.
  - The fleet version report of the collection reads these manifests.
author:
  - ascend-fleet developers (!UNKNOWN)
options:
  path:
    description:
      - The manifest file. Its directory is created (mode C(0755)) when missing.
    type: path
    default: /etc/ascend-fleet/manifest.json
  component:
    description:
      - The component to record, for example C(driver), C(firmware), C(cann), C(toolchain),
        C(python_stack), C(release).
      - At least one of O(component) and O(active_release) is required.
    type: str
  version:
    description:
      - The version (or state) of O(component) now installed.
      - Required when O(component) is given and O(state=present).
    type: str
  details:
    description:
      - Extra facts about the component, for example the path of a virtualenv or the packages
        installed. They are part of the record, so a change of O(details) alone is a change too.
      - Recorded as given (JSON values); an omitted O(details) is recorded as C({}).
    type: dict
  state:
    description:
      - V(present) records O(component) as installed with O(version) and O(details).
      - V(absent) records that O(component) is no longer installed (it leaves C(installed)).
    type: str
    choices: [present, absent]
    default: present
  active_release:
    description:
      - The release now active on the host (the name of a file in C(releases/)).
    type: str
  actor:
    description:
      - Who made the change, as the history will say. Roles pass the controller user, for
        example C(lookup('ansible.builtin.env', 'USER')).
    type: str
    required: true
  reason:
    description:
      - Why the change was made, for example V(install), V(upgrade) or V(rollback).
      - By default V(install) when the component was not recorded, V(remove) for O(state=absent)
        and V(update) otherwise.
    type: str
  history_limit:
    description:
      - How many history entries to keep; the oldest are dropped when a change is recorded.
      - V(0) keeps no history.
    type: int
    default: 500
extends_documentation_fragment:
  - ascend_fleet.vllm.attributes
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    details: Reports whether the manifest would change and returns it as it would be; writes
      nothing.
  diff_mode:
    support: full
    details: Shows the component entry (and the active release) before and after.
notes:
  - C(since) in a component's entry is when its current version was recorded; a change of its
    details keeps it.
  - A history entry for a change of details alone has the same C(from) and C(to) and lists the
    changed keys of O(details) as C(details_changed).
  - When the manifest exists with other permissions, the module sets them (C(0644), root) and
    reports a change.
"""

EXAMPLES = r"""
- name: Record the toolchain
  ascend_fleet.vllm.host_manifest:
    component: toolchain
    version: "11"
    details:
      env_file: /etc/ascend-fleet/toolchain.env
      packages: {gcc-11: 11.3.0-12, g++-11: 11.3.0-12, cmake: 3.25.1-1}
    actor: "{{ lookup('ansible.builtin.env', 'USER') }}"
  become: true

- name: Record an upgrade of the driver, and the release now active
  ascend_fleet.vllm.host_manifest:
    component: driver
    version: 25.5.1
    active_release: v0.18.0
    actor: "{{ lookup('ansible.builtin.env', 'USER') }}"
    reason: upgrade
  become: true

- name: Record that a release was rolled back
  ascend_fleet.vllm.host_manifest:
    active_release: v0.13.0
    actor: "{{ lookup('ansible.builtin.env', 'USER') }}"
    reason: rollback
  become: true

- name: Record that the previous venv was removed
  ascend_fleet.vllm.host_manifest:
    component: python_stack_v0.13.0
    state: absent
    actor: "{{ lookup('ansible.builtin.env', 'USER') }}"
  become: true
"""

RETURN = r"""
manifest:
  description:
    - The whole manifest after the change (in check mode, as it would be).
  returned: always
  type: dict
  contains:
    installed:
      description: One entry per installed component, by component name.
      type: dict
      sample:
        toolchain:
          version: "11"
          details: {env_file: /etc/ascend-fleet/toolchain.env}
          since: "2025-06-01T08:30:00Z"
    active_release:
      description: The active release; null until one is recorded.
      type: str
      sample: v0.18.0
    history:
      description:
        - The changes, oldest first. Each has C(when) (UTC, ISO 8601), C(who), C(component)
          (C(active_release) for a change of the active release), C(from) and C(to) (versions;
          null when not installed) and C(reason); C(details_changed) when only details changed.
      type: list
      elements: dict
      sample:
        - when: "2025-06-01T08:30:00Z"
          who: fleet-admin
          component: toolchain
          from: null
          to: "11"
          reason: install
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._manifest import (
    ManifestError,
    apply,
    dump,
    load,
)


def read_manifest(module, path):
    """The manifest at `path`; the empty one when the file does not exist."""
    if not os.path.exists(path):
        return load("")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        module.fail_json(msg=f"cannot read the manifest {path}: {to_native(error)}")
    try:
        return load(text)
    except ManifestError as error:
        module.fail_json(msg=f"{path} is not a host manifest: {error}. Nothing was changed. Fix "
                             "it, or move it aside to start a new manifest (its history is "
                             "then in the moved file only)")
    return None  # not reached: fail_json exits


def write_manifest(module, path, text):
    """Write `text` to `path` atomically: a temporary file in the same directory, renamed."""
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, 0o755)
        except OSError as error:
            module.fail_json(msg=f"cannot create {directory}: {to_native(error)}")
    try:
        handle, temporary = tempfile.mkstemp(prefix=".manifest.", dir=directory)
        module.add_cleanup_file(temporary)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as error:
        module.fail_json(msg=f"cannot write a temporary file in {directory}: {to_native(error)}")
    module.atomic_move(temporary, path)


def main():
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "default": "/etc/ascend-fleet/manifest.json"},
            "component": {"type": "str"},
            "version": {"type": "str"},
            "details": {"type": "dict"},
            "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
            "active_release": {"type": "str"},
            "actor": {"type": "str", "required": True},
            "reason": {"type": "str"},
            "history_limit": {"type": "int", "default": 500},
        },
        required_one_of=[("component", "active_release")],
        required_by={"version": "component", "details": "component"},
        supports_check_mode=True,
    )
    params = module.params
    if params["component"] is not None and params["state"] == "present" \
            and params["version"] is None:
        module.fail_json(msg=f"version is required to record component {params['component']} "
                             "as installed (state=present): give the version now installed, "
                             "or state=absent to record that it was removed")
    if params["history_limit"] < 0:
        module.fail_json(msg=f"history_limit is {params['history_limit']}: give 0 (keep no "
                             "history) or more")
    path = params["path"]
    manifest = read_manifest(module, path)
    result, added, changes = apply(
        manifest, component=params["component"], version=params["version"],
        details=params["details"], state=params["state"],
        active_release=params["active_release"], actor=params["actor"],
        reason=params["reason"], history_limit=params["history_limit"])
    changed = bool(added)
    if changed and not module.check_mode:
        write_manifest(module, path, dump(result))
    diff = {"before": changes["before"], "after": changes["after"],
            "before_header": path, "after_header": path}
    if os.path.exists(path):
        owner = "root" if os.geteuid() == 0 else None
        file_args = module.load_file_common_arguments(
            {"path": path, "mode": "0644", "owner": owner, "group": owner})
        changed = module.set_fs_attributes_if_different(file_args, changed, diff)
    output = {"changed": changed, "manifest": result}
    if module._diff:
        output["diff"] = diff
    module.exit_json(**output)


if __name__ == "__main__":
    main()
