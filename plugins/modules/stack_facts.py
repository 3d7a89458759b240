#!/usr/bin/python
# Copyright: ascend-fleet developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""stack_facts: the installed Ascend stack of a host, from its version files, in
ansible_facts.ascend_stack."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: stack_facts
short_description: Gather the installed versions of the Ascend stack of a host
version_added: 0.1.0
description:
  - Reads the version files the Huawei installers write and returns, as
    C(ansible_facts.ascend_stack), the NPU driver and firmware, the install record
    C(/etc/ascend_install.info), every installed CANN toolkit with the active one, the
    kernels/ops package of each toolkit, NNAL (ATB), the gcc compilers and the versions of the
    Python packages of a virtualenv.
  - Understands both CANN layouts side by side. Up to CANN 8.3 each toolkit is
    C(<install_path>/ascend-toolkit/<version>) and C(ascend-toolkit/latest) links to one of
    them (or is a directory of per-component links). From CANN 8.5 each toolkit is
    C(<install_path>/cann-<version>), C(<install_path>/cann) links to one of them and
    C(ascend-toolkit/latest) links to C(<install_path>/cann).
  - Python packages are read with C(importlib.metadata) by the virtualenv's interpreter; nothing
    is imported, so a broken torch or torch_npu cannot break the module.
  - Read-only; it behaves the same in check mode.
author:
  - ascend-fleet developers (!UNKNOWN)
options:
  install_path:
    description:
      - Where the CANN packages are installed (their C(--install-path)).
      - The driver and firmware are looked for where C(/etc/ascend_install.info) says they are,
        then here.
    type: path
    default: /usr/local/Ascend
  venv:
    description:
      - A Python virtualenv whose packages to report.
      - Its C(bin/python) runs unless O(python) is given. Without O(venv) and O(python), the
        C(python3) found on E(PATH) is read.
      - When the interpreter does not exist, C(python) is null, every package is null and the
        module warns.
    type: path
  python:
    description:
      - The Python interpreter whose version and packages to report.
    type: path
  packages:
    description:
      - Distribution names to report the installed version of. C(-) and C(_) spellings are the
        same distribution (C(torch-npu), C(torch_npu)).
      - Each is reported under its name in lower case with C(_) for C(-) and C(.).
    type: list
    elements: str
    default: [torch, torch_npu, vllm, vllm_ascend, triton_ascend]
  gcc:
    description:
      - Report the version of C(gcc) and C(cc) (C(-dumpfullversion)) and of every C(gcc-N)
        found in the directories of E(PATH).
    type: bool
    default: true
extends_documentation_fragment:
  - ascend_fleet.vllm.attributes.read_only
  - ascend_fleet.vllm.attributes.facts
  - ascend_fleet.vllm.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
notes:
  - CANN versions are sorted as CANN orders them, release candidates before the release
    (8.0.RC3 < 8.0.0 < 8.1.RC1).
  - A Python that exists but cannot run the inline C(importlib.metadata) script (for example a
    virtualenv whose base interpreter was removed) makes the module fail with its error output.
"""

EXAMPLES = r"""
- name: Read the installed stack and the packages of the current release's venv
  ascend_fleet.vllm.stack_facts:
    venv: /opt/ascend-fleet/releases/current/venv

- name: Require CANN 8.5.1 active, with its kernels/ops package
  ansible.builtin.assert:
    that:
      - ansible_facts['ascend_stack']['cann']['active'] == '8.5.1'
      - ansible_facts['ascend_stack']['cann']['kernels']['8.5.1'] is not none
    fail_msg: >-
      CANN {{ ansible_facts['ascend_stack']['cann']['active'] }} is active, 8.5.1 expected
      (installed: {{ ansible_facts['ascend_stack']['cann']['installed'] }})

- name: Read a non-default install path, some extra packages, and no compilers
  ascend_fleet.vllm.stack_facts:
    install_path: /opt/Ascend
    python: /usr/bin/python3.11
    packages: [torch, torch-npu, transformers]
    gcc: false
"""

RETURN = r"""
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: dict
  contains:
    ascend_stack:
      description: The installed Ascend stack.
      returned: always
      type: dict
      contains:
        driver:
          description:
            - The driver's C(driver/version.info); null when no driver is installed.
            - C(compatible_firmware) is the raw C(compatible_version_fw) range.
          returned: always
          type: dict
          sample: {version: 24.1.rc2.2, package_version: 24.1.rc2.2,
                   innerversion: V100R001C18SPC001B233, compatible_firmware: "[7.0.0,7.2.99]",
                   install_path: /usr/local/Ascend}
        firmware:
          description:
            - The firmware's C(firmware/version.info); null when no firmware is installed.
            - C(compatible_driver) is the raw C(compatible_version_drv) ranges.
          returned: always
          type: dict
          sample: {version: 7.1.0.11.220, package_version: 23.0.7,
                   compatible_driver: "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]",
                   install_path: /usr/local/Ascend}
        install_info:
          description: C(/etc/ascend_install.info) as a dict; null when absent.
          returned: always
          type: dict
          sample: {UserName: HwHiAiUser, UserGroup: HwHiAiUser,
                   Driver_Install_Path_Param: /usr/local/Ascend}
        cann:
          description: The CANN toolkits.
          returned: always
          type: dict
          contains:
            installed:
              description: Every installed toolkit version, oldest first.
              type: list
              elements: str
              sample: [8.3.RC2, 8.5.1]
            active:
              description: The version C(ascend-toolkit/set_env.sh) selects; null when none.
              type: str
              sample: 8.5.1
            layout:
              description: C(toolkit-versioned) (C(ascend-toolkit/<version>), up to 8.3) or
                C(cann-prefixed) (C(cann-<version>), from 8.5) for the active toolkit (else the
                newest); null when none is installed.
              type: str
              sample: cann-prefixed
            paths:
              description: The directory of each installed toolkit.
              type: dict
              sample: {8.3.RC2: /usr/local/Ascend/ascend-toolkit/8.3.RC2,
                       8.5.1: /usr/local/Ascend/cann-8.5.1}
            kernels:
              description: For each installed toolkit, the version of its kernels/ops package,
                null when that is not installed.
              type: dict
              sample: {8.3.RC2: 8.3.RC2, 8.5.1: null}
            set_env:
              description: The toolkit C(set_env.sh) files that exist.
              type: list
              elements: str
              sample: [/usr/local/Ascend/ascend-toolkit/set_env.sh]
        nnal:
          description: NNAL (ATB); null when not installed.
          returned: always
          type: dict
          contains:
            installed:
              description: Installed ATB versions, oldest first.
              type: list
              elements: str
              sample: [8.5.1]
            active:
              description: The version C(nnal/atb/latest) leads to.
              type: str
              sample: 8.5.1
            version:
              description: Full build version of the active ATB.
              type: str
              sample: 8.5.1.B030
            set_env:
              description: C(nnal/atb/set_env.sh) when it exists, else null.
              type: str
              sample: /usr/local/Ascend/nnal/atb/set_env.sh
        gcc:
          description: The C compilers; returned when O(gcc=true).
          returned: when O(gcc=true)
          type: dict
          contains:
            default:
              description: Version of the C(gcc) on E(PATH); null when there is none.
              type: str
              sample: 12.2.0
            cc:
              description: Version of C(cc); null when there is none.
              type: str
              sample: 12.2.0
            installed:
              description: Version of each C(gcc-N), keyed by N.
              type: dict
              sample: {"11": 11.3.0, "12": 12.2.0}
        python:
          description: The interpreter read, with its version; null when it does not exist.
          returned: always
          type: dict
          sample: {executable: /opt/ascend-fleet/releases/v0.18.0/venv/bin/python,
                   version: 3.11.2}
        packages:
          description: Installed version of each of O(packages); null when absent.
          returned: always
          type: dict
          sample: {torch: 2.9.0, torch_npu: 2.9.0.post1, vllm: 0.18.0, vllm_ascend: 0.18.0,
                   triton_ascend: null}
"""

import json
import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._stack import (
    PACKAGES_SCRIPT,
    package_key,
    read_stack,
)

# Prefix of every path the module reads: "" on a host; tests point it at a temporary tree.
NODE_ROOT = ""
GCC_N = re.compile(r"gcc-(\d+)")


def compiler_version(module, path):
    """`<path> -dumpfullversion -dumpversion` (gcc before 7 knows only the second); None when
    path is None or the compiler fails."""
    if path is None:
        return None
    rc, out = module.run_command([path, "-dumpfullversion", "-dumpversion"])[:2]
    if rc != 0:
        return None
    return out.strip() or None


def read_gcc(module):
    """gcc and cc on PATH and every gcc-N in PATH's directories (the first of each N)."""
    versioned = {}
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = sorted(os.listdir(directory or "."))
        except OSError:
            continue
        for name in names:
            match = GCC_N.fullmatch(name)
            path = os.path.join(directory, name)
            if match and match.group(1) not in versioned and os.access(path, os.X_OK):
                versioned[match.group(1)] = path
    return {
        "default": compiler_version(module, module.get_bin_path("gcc")),
        "cc": compiler_version(module, module.get_bin_path("cc")),
        "installed": {number: compiler_version(module, versioned[number])
                      for number in sorted(versioned, key=int)},
    }


def interpreter(module):
    """The Python to read: python, else venv/bin/python, else python3 on PATH; None (with a
    warning when one was named) when it does not exist."""
    params = module.params
    if params["python"]:
        path = params["python"]
    elif params["venv"]:
        path = os.path.join(params["venv"], "bin", "python")
    else:
        return module.get_bin_path("python3")
    if os.access(path, os.X_OK):
        return path
    module.warn(f"{path} does not exist or is not executable, so the facts have no Python "
                "version and every package is null")
    return None


def read_python(module, names):
    """(python, packages) of the interpreter, read by PACKAGES_SCRIPT in a child process."""
    python = interpreter(module)
    if python is None:
        return None, {package_key(name): None for name in names}
    rc, out, err = module.run_command([python, "-E", "-c", PACKAGES_SCRIPT, *names])
    try:
        found = json.loads(out) if rc == 0 else None
    except ValueError:
        found = None
    if found is None:
        module.fail_json(msg=f"{python} could not list its packages with importlib.metadata "
                             "(Python 3.8 or newer is needed): " + (err or out).strip(),
                         rc=rc, stdout=out, stderr=err)
    packages = {package_key(name): found["packages"][name] for name in names}
    return {"executable": python, "version": found["version"]}, packages


def main():
    module = AnsibleModule(
        argument_spec={
            "install_path": {"type": "path", "default": "/usr/local/Ascend"},
            "venv": {"type": "path"},
            "python": {"type": "path"},
            "packages": {"type": "list", "elements": "str",
                         "default": ["torch", "torch_npu", "vllm", "vllm_ascend",
                                     "triton_ascend"]},
            "gcc": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    stack = read_stack(NODE_ROOT, module.params["install_path"])
    if module.params["gcc"]:
        stack["gcc"] = read_gcc(module)
    stack["python"], stack["packages"] = read_python(module, module.params["packages"])
    module.exit_json(changed=False, ansible_facts={"ascend_stack": stack})


if __name__ == "__main__":
    main()
