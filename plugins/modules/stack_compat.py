#!/usr/bin/python
# Copyright: ascend-fleet developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""stack_compat: resolve a vllm-ascend release in the compatibility matrix, check a stack."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: stack_compat
short_description: Resolve a vLLM Ascend release and check installed versions against it
version_added: 0.1.0
description:
  - Looks up O(vllm_ascend) in the compatibility matrix the collection carries as data (every
    release of vllm-ascend's versioning policy, the post releases on PyPI, Ascend/pytorch's
    torch_npu to CANN table, the NPU driver and firmware each CANN pairs with, the supported
    chips), each row with its source.
  - Returns the resolved release (vLLM, Python, CANN, torch, torch_npu, Triton Ascend, the driver
    and firmware that pair with the CANN, the chips) and, for every installed version given, the
    violations, one sentence each naming what the release needs, what the host has and the fix.
  - Fails when there are violations, unless O(fail_on_violation=false).
  - Fails, whatever O(fail_on_violation), when O(vllm_ascend) or O(cann) is not in the matrix
    (naming the known versions nearest to it) or a value is not a version.
  - Python package versions compare as PEP 440 public versions, so a local part is ignored
    (V(0.22.1+empty) is vLLM 0.22.1, V(2.10.0+cpu) is torch 2.10.0). CANN, driver and firmware
    versions compare in Huawei's order (8.0.RC3 < 8.0.0 < 8.1.RC1; 24.1.rc2 < 24.1.rc2.2 <
    24.1.0).
  - Changes nothing; it behaves the same in check mode.
author:
  - ascend-fleet developers (!UNKNOWN)
requirements:
  - packaging (the Python library) for the interpreter that runs the module
options:
  vllm_ascend:
    description:
      - The vllm-ascend release to resolve, like V(0.23.0), V(0.13.0rc3) or V(v0.23.0).
    type: str
    required: true
  vllm:
    description:
      - Installed vLLM version, like V(0.23.0) or V(0.23.0+empty) (built with
        E(VLLM_TARGET_DEVICE=empty)).
    type: str
  torch:
    description:
      - Installed torch version, like V(2.10.0) or V(2.10.0+cpu).
    type: str
  torch_npu:
    description:
      - Installed torch_npu version, like V(2.10.0.post4).
      - Also checked against Ascend/pytorch's table of the CANN versions each torch_npu is built
        for, when O(cann) is given.
    type: str
  cann:
    description:
      - Active CANN toolkit version, like V(8.5.0) or V(8.3.RC2) (C(version=) of
        C(ascend_toolkit_install.info)).
    type: str
  driver:
    description:
      - Installed NPU driver version, like V(24.1.rc2.2) (C(Version=) of
        C(/usr/local/Ascend/driver/version.info)).
      - Checked against the drivers that pair with the release's CANN; older than all of them is
        a violation, newer but not a known pair a warning.
    type: str
  firmware:
    description:
      - Installed NPU firmware version, like V(7.1.0.11.220) (C(Version=) of
        C(/usr/local/Ascend/firmware/version.info)).
    type: str
  python:
    description:
      - Python version of the release's virtualenv, like V(3.11.7).
    type: str
  chip:
    description:
      - NPU chip name as npu-smi prints it, like V(910B3) (C(name) of a device in the facts of
        M(ascend_fleet.vllm.npu_info)).
      - The first-generation Ascend 910 (V(910A), V(910B), V(910ProB)) is a violation; Atlas
        300I Duo (V(310P3)) a warning, since vllm-ascend supports it experimentally only.
    type: str
  driver_compatible_fw:
    description:
      - The driver's C(compatible_version_fw) from its version.info, like V([7.0.0,7.2.99]).
      - With O(driver) and O(firmware), a firmware outside this range is a violation.
    type: str
  firmware_compatible_drv:
    description:
      - The firmware's C(compatible_version_drv) from its version.info, like
        V([23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]) (a trailing dot means any patch of that
        version).
      - With O(driver) and O(firmware), a driver outside this range is a violation.
    type: str
  fail_on_violation:
    description:
      - Fail when there are violations. With V(false) the module returns them and succeeds, for
        a report.
    type: bool
    default: true
extends_documentation_fragment:
  - ascend_fleet.vllm.attributes.read_only
  - ascend_fleet.vllm.attributes
  - ansible.builtin.action_common_attributes
notes:
  - The module needs the C(packaging) library. The controller has it; a managed node may not,
    so run the task on the controller (C(delegate_to) V(localhost)) and feed it the versions
    gathered from the host (the examples show how).
  - Where sources disagree on a release (vllm-ascend's policy, its wheel's requirements, its
    installation page), the release lists both under C(disagreements) and either value passes
    the check; the policy wins unless the release's own requirements say otherwise.
seealso:
  - name: vLLM Ascend versioning policy (release compatibility matrix)
    description: The source of the release rows.
    link: https://github.com/vllm-project/vllm-ascend/blob/main/docs/source/community/versioning_policy.md
  - name: Ascend/pytorch compatibility
    description: The source of the torch_npu to CANN table.
    link: https://github.com/Ascend/pytorch/blob/HEAD/COMPATIBILITY.en.md
  - module: ascend_fleet.vllm.npu_info
"""

EXAMPLES = r"""
- name: Resolve a release (what to install)
  ascend_fleet.vllm.stack_compat:
    vllm_ascend: "0.23.0"
  delegate_to: localhost
  register: __stack_compat_release

- name: Read the NPUs of the host (driver version, chip names)
  ascend_fleet.vllm.npu_info:
  become: true

# __packages and __cann: versions read from the host beforehand (pip list, the toolkit's
# ascend_toolkit_install.info).
- name: Check the installed stack of the host against the release, on the controller
  ascend_fleet.vllm.stack_compat:
    vllm_ascend: "0.23.0"
    vllm: "{{ __packages['vllm'] }}"
    torch: "{{ __packages['torch'] }}"
    torch_npu: "{{ __packages['torch-npu'] }}"
    cann: "{{ __cann }}"
    driver: "{{ ansible_facts['npu']['driver_version'] }}"
    chip: "{{ ansible_facts['npu']['devices'][0]['name'] }}"
    python: "{{ ansible_facts['python_version'] }}"
  delegate_to: localhost

- name: Report violations without failing (a doctor report)
  ascend_fleet.vllm.stack_compat:
    vllm_ascend: "0.18.0"
    torch_npu: "2.9.0.post1+git4c901a4"
    cann: "8.5.0"
    fail_on_violation: false
  delegate_to: localhost
  register: __stack_compat_report

- name: Check a driver and firmware against each other's version.info ranges
  ascend_fleet.vllm.stack_compat:
    vllm_ascend: "0.9.1"
    driver: "24.1.rc1"
    firmware: "7.1.0.11.220"
    driver_compatible_fw: "[7.0.0,7.2.99]"
    firmware_compatible_drv: "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"
  delegate_to: localhost
"""

RETURN = r"""
release:
  description: The resolved release.
  returned: success
  type: dict
  contains:
    vllm_ascend:
      description: The vllm-ascend version, as the matrix writes it.
      type: str
      sample: 0.23.0
    vllm:
      description: The vLLM version to install with it.
      type: str
      sample: 0.23.0
    python:
      description: Python versions the release supports (a PEP 440 specifier).
      type: str
      sample: ">=3.10,<3.13"
    cann:
      description: The CANN version the release is tested with.
      type: str
      sample: 9.1.0
    torch:
      description: The torch version it pins.
      type: str
      sample: 2.10.0
    torch_npu:
      description: The torch_npu version it pins (the winner where sources disagree).
      type: str
      sample: 2.10.0.post4
    triton_ascend:
      description: The triton-ascend version it pins; null when it needs none.
      type: str
      sample: 3.2.2
    mooncake:
      description: The Mooncake version the policy names; null when it names none.
      type: str
      sample: 0.3.11.post1
    accepted:
      description: Fields that more than one value passes, with those values (the vLLM versions
        a row names, and both sides of a disagreement).
      type: dict
      sample: {"torch_npu": ["2.9.0.post1+git4c901a4", "2.9.0"]}
    disagreements:
      description: Where another source gives the release another value than vllm-ascend's
        policy.
      type: list
      elements: dict
      contains:
        field:
          description: The field, like C(torch_npu).
          type: str
        policy:
          description: The policy's value.
          type: str
        value:
          description: The other source's value.
          type: str
        source:
          description: The other source.
          type: str
        winner:
          description: The value the release resolves to.
          type: str
        why:
          description: Why that value wins.
          type: str
    driver:
      description:
        - The NPU drivers (Ascend HDK) that pair with the release's CANN; null when the matrix
          records none for it.
        - A version ending in C(.x) stands for it and its patches.
      type: dict
      contains:
        recommended:
          description: The driver the source pairs the CANN with first.
          type: str
          sample: 26.1.0
        min:
          description: The oldest paired driver; an older one is a violation.
          type: str
          sample: 25.5.x
        known:
          description: Every paired driver.
          type: list
          elements: str
          sample: ["26.1.0", "25.5.x", "25.7.rc1.x", "26.0.rc1.x"]
        source:
          description: Where the pairing comes from.
          type: str
    firmware:
      description: The firmware of the paired Ascend HDK releases the matrix knows; null when it
        knows none.
      type: dict
      contains:
        known:
          description: Firmware versions, oldest first.
          type: list
          elements: str
          sample: ["7.8.0.6.201"]
        by_driver:
          description: Driver version to the firmware of its HDK release.
          type: dict
          sample: {"25.5.1": "7.8.0.6.201"}
        source:
          description: Where the pairing comes from.
          type: str
    chips:
      description: The chip families, with C(support) one of C(supported), C(experimental),
        C(unsupported), and the chip names npu-smi prints for them.
      type: list
      elements: dict
      sample: [{"family": "Atlas A2 (Ascend 910B)", "support": "supported",
                "names": ["910B1", "910B2", "910B2C", "910B3", "910B4", "910B4-1"]}]
    sources:
      description: The source of each part (C(release), C(disagreements), C(torch_npu_cann),
        C(driver), C(firmware), C(chips)).
      type: dict
    notes:
      description: Where the matrix's own tables differ about the release (say, Ascend/pytorch
        pairs its CANN with other torch_npu builds), or say nothing (no driver pairing).
      type: list
      elements: str
violations:
  description: One sentence per mismatch, naming what the release needs, what the host has and
    the fix; empty when everything given matches.
  returned: always
  type: list
  elements: str
  sample:
    - "vllm-ascend 0.23.0 needs torch_npu 2.10.0.post4; this host has 2.9.0: reinstall the
      python_stack for release v0.23.0."
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._compat import (
    CompatError,
    check,
)
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._versions import (
    PACKAGING_IMPORT_ERROR,
)

# The options that name installed versions, passed to check() as they are.
VERSION_OPTIONS = (
    "vllm", "torch", "torch_npu", "cann", "driver", "firmware", "python", "chip",
    "driver_compatible_fw", "firmware_compatible_drv",
)


def main():
    module = AnsibleModule(
        argument_spec={
            "vllm_ascend": {"type": "str", "required": True},
            "vllm": {"type": "str"},
            "torch": {"type": "str"},
            "torch_npu": {"type": "str"},
            "cann": {"type": "str"},
            "driver": {"type": "str"},
            "firmware": {"type": "str"},
            "python": {"type": "str"},
            "chip": {"type": "str"},
            "driver_compatible_fw": {"type": "str"},
            "firmware_compatible_drv": {"type": "str"},
            "fail_on_violation": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    if PACKAGING_IMPORT_ERROR is not None:
        module.fail_json(
            changed=False,
            msg=missing_required_lib("packaging") + ". Or run this task on the controller, which "
            "has it: delegate_to: localhost.",
            exception=PACKAGING_IMPORT_ERROR,
        )
    params = module.params
    try:
        result = check(params["vllm_ascend"],
                       **{option: params[option] for option in VERSION_OPTIONS})
    except CompatError as error:
        module.fail_json(changed=False, msg=str(error))
    for warning in result["warnings"]:
        module.warn(warning)
    violations = result["violations"]
    if violations and params["fail_on_violation"]:
        module.fail_json(changed=False, msg=" ".join(violations), release=result["release"],
                         violations=violations)
    module.exit_json(changed=False, release=result["release"], violations=violations)


if __name__ == "__main__":
    main()
