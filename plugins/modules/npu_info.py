#!/usr/bin/python
# Copyright: ascend-fleet developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""npu_info: the Ascend NPUs of a host, as npu-smi reports them, in ansible_facts.npu."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: npu_info
short_description: Gather facts about the Ascend NPUs of a host from npu-smi
version_added: 0.1.0
description:
  - Runs C(npu-smi info) and returns, as C(ansible_facts.npu), the NPUs (model, health, HBM,
    power, temperature, bus id), the processes holding them and the driver version.
  - When C(npu-smi info -t topo) answers, also the link matrix between the cards (HCCS, PCIe)
    and the CPU cores near each card.
  - With O(board=true), also each card's board details from C(npu-smi info -t board -i N),
    such as the serial number and the driver (Software Version) and firmware versions.
  - Read-only; it behaves the same in check mode.
  - When npu-smi is missing or fails, the module fails with the likely cause in plain words
    (the driver is not installed or not loaded, the user is not root, or the user is not in the
    C(HwHiAiUser) group), naming the one that applies when it can tell.
author:
  - ascend-fleet developers (!UNKNOWN)
options:
  npu_smi_path:
    description:
      - Path of the npu-smi executable.
      - By default it is looked up on E(PATH) and in the sbin directories (the driver installs
        it as C(/usr/local/sbin/npu-smi)).
    type: path
  board:
    description:
      - Also run C(npu-smi info -t board -i N) for every card and add its output to each of the
        card's devices as C(board).
    type: bool
    default: false
  topology:
    description:
      - Read the link matrix and CPU affinity with C(npu-smi info -t topo).
      - When npu-smi cannot report them (some models do not), the module warns and leaves
        C(topology) out of the facts.
    type: bool
    default: true
extends_documentation_fragment:
  - ascend_fleet.vllm.attributes.read_only
  - ascend_fleet.vllm.attributes.facts
  - ascend_fleet.vllm.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
notes:
  - NPU ids are the physical ids npu-smi prints; a container given only C(/dev/davinci4) sees
    NPU 4.
  - On 910B (Atlas A2) every card has one chip, so C(count) is the number of cards. Cards with
    several chips (Atlas A3, Atlas 300I Duo) list one device per chip.
  - Users other than root need to be in the C(HwHiAiUser) group to query the NPUs.
"""

EXAMPLES = r"""
- name: Read the NPUs
  ascend_fleet.vllm.npu_info:
  become: true

- name: Require eight healthy NPUs
  ansible.builtin.assert:
    that:
      - ansible_facts['npu']['count'] == 8
      - ansible_facts['npu']['devices'] | rejectattr('health', 'eq', 'OK') | list | length == 0
    fail_msg: >-
      expected 8 healthy NPUs, found {{ ansible_facts['npu']['devices']
      | map(attribute='health') | list }}

- name: Read board details too (driver and firmware version per card)
  ascend_fleet.vllm.npu_info:
    board: true
  become: true

- name: Show the firmware version of the first card
  ansible.builtin.debug:
    msg: "{{ ansible_facts['npu']['devices'][0]['board']['firmware_version'] }}"

- name: Use a given npu-smi and skip the topology
  ascend_fleet.vllm.npu_info:
    npu_smi_path: /usr/local/sbin/npu-smi
    topology: false
  become: true
"""

RETURN = r"""
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: dict
  contains:
    npu:
      description: The NPUs of the host as npu-smi reports them.
      returned: always
      type: dict
      contains:
        count:
          description: Number of NPU devices (chips) npu-smi lists.
          returned: always
          type: int
          sample: 8
        driver_version:
          description: Driver version from the table header (C(Version:)); null if not shown.
          returned: always
          type: str
          sample: 24.1.rc2.2
        npu_smi_version:
          description: Version of npu-smi itself, from the table header; null if not shown.
          returned: always
          type: str
          sample: 24.1.rc2.2
        devices:
          description:
            - One entry per NPU device (chip), in npu-smi's order.
            - Values npu-smi shows as C(-) or C(NA) are null, as are columns a model lacks
              (310P cards have no HBM column).
          returned: always
          type: list
          elements: dict
          contains:
            npu_id:
              description: NPU (card) id as npu-smi prints it (physical id).
              type: int
              sample: 4
            chip_id:
              description: Chip id on the card.
              type: int
              sample: 0
            device_id:
              description: Device id printed next to the chip id on multi-chip layouts (C(Device)
                on 310P, C(Phy-ID) on A3); null on 910B.
              type: int
              sample: null
            name:
              description: Model name.
              type: str
              sample: 910B3
            health:
              description: Health as printed, one of C(OK), C(Warning), C(Alarm), C(Critical),
                C(UNKNOWN).
              type: str
              sample: OK
            bus_id:
              description: PCIe bus id.
              type: str
              sample: "0000:C1:00.0"
            power_w:
              description: Power draw in watts.
              type: float
              sample: 101.8
            temp_c:
              description: Chip temperature in degrees Celsius.
              type: int
              sample: 43
            aicore_pct:
              description: AI Core use in percent.
              type: int
              sample: 0
            hbm_used_mb:
              description: HBM in use, MB.
              type: int
              sample: 3318
            hbm_total_mb:
              description: HBM size, MB.
              type: int
              sample: 65536
            memory_used_mb:
              description: DDR memory in use, MB (0 on 910B, which has none).
              type: int
              sample: 0
            memory_total_mb:
              description: DDR memory size, MB.
              type: int
              sample: 0
            board:
              description:
                - Output of C(npu-smi info -t board -i <npu_id>) with snake_case keys, for
                  example C(software_version) (the driver), C(firmware_version),
                  C(serial_number), C(product_name), C(pcie_bus_info), C(pci_device_id).
                - Null when npu-smi could not report it (the module warns).
              returned: when O(board=true)
              type: dict
              sample:
                software_version: 25.5.1
                firmware_version: 7.8.0.6.201
                serial_number: 1025C9048791
                pci_device_id: "0xD802"
        processes:
          description: Processes holding NPU memory, one per row of npu-smi's process table.
          returned: always
          type: list
          elements: dict
          contains:
            npu_id:
              description: NPU id.
              type: int
              sample: 4
            chip_id:
              description: Chip id on the card.
              type: int
              sample: 0
            pid:
              description: Process id (as seen on the host).
              type: int
              sample: 498807
            name:
              description: Process name; null when npu-smi prints none.
              type: str
              sample: python
            memory_mb:
              description: NPU memory the process holds, MB.
              type: int
              sample: 26323
        topology:
          description:
            - Link matrix and CPU affinity from C(npu-smi info -t topo). Keys are NPU ids as
              strings.
            - C(links) maps each NPU to every other NPU and the link between them (C(HCCS),
              C(PIX), C(PXB), C(PHB), C(SYS), C(NA)); C(cpu_affinity) gives the CPU cores
              near each NPU (null where npu-smi shows none).
          returned: when O(topology=true) and npu-smi reports it
          type: dict
          sample:
            devices: [0, 1]
            links: {"0": {"1": HCCS}, "1": {"0": HCCS}}
            cpu_affinity: {"0": 144-167, "1": 144-167}
"""

import grp
import os
import pwd

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._npu_smi import (
    DAVINCI_MANAGER,
    NpuSmiError,
    explain_failure,
    first_line,
    parse_details,
    parse_info,
    parse_topology,
)

RUN_GROUP = "HwHiAiUser"


def host_access():
    """What explain_failure needs to know: this user, its groups, the NPU device node."""
    uid = os.geteuid()
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    try:
        gid = grp.getgrnam(RUN_GROUP).gr_gid
    except KeyError:
        in_group = None
    else:
        in_group = gid == os.getegid() or gid in os.getgroups()
    if not os.path.exists(DAVINCI_MANAGER):
        node = "missing"
    elif os.access(DAVINCI_MANAGER, os.R_OK | os.W_OK):
        node = "ok"
    else:
        node = "denied"
    return {"user": user, "root": uid == 0, "in_group": in_group, "davinci_manager": node}


def find_npu_smi(module):
    """The npu-smi to run: npu_smi_path, else the one on PATH; fails when there is none."""
    path = module.params["npu_smi_path"]
    if path is None:
        path = module.get_bin_path("npu-smi")
        if path is None:
            module.fail_json(msg="npu-smi was not found on PATH or in the sbin directories: the "
                                 "NPU driver is not installed (role npu_driver installs it), or "
                                 "set npu_smi_path to where it is")
        return path
    if not os.path.exists(path):
        module.fail_json(msg=f"npu_smi_path {path} does not exist: the NPU driver is not "
                             "installed, or npu-smi is elsewhere")
    if not os.access(path, os.X_OK):
        user = host_access()["user"]
        module.fail_json(msg=f"{path} is not executable by {user}: run as root (become: true)")
    return path


def read_info(module, npu_smi):
    """`npu-smi info`, parsed; fails with an explanation when it does not give the table."""
    rc, out, err = module.run_command([npu_smi, "info"])
    if rc == 0:
        try:
            return parse_info(out)
        except NpuSmiError:
            pass
    module.fail_json(msg=explain_failure(out + err, rc, host_access()),
                     rc=rc, stdout=out, stderr=err)


def read_topology(module, npu_smi):
    """`npu-smi info -t topo`, parsed; None (with a warning) when it gives no matrix."""
    rc, out, err = module.run_command([npu_smi, "info", "-t", "topo"])
    topology = parse_topology(out) if rc == 0 else None
    if topology is None:
        module.warn("npu-smi info -t topo gave no link matrix, so the facts have no topology: "
                    + first_line(out + err))
    return topology


def add_boards(module, npu_smi, devices):
    """Add `board` (`npu-smi info -t board -i N`, parsed) to every device of each card."""
    boards = {}
    for npu_id in sorted({device["npu_id"] for device in devices}):
        rc, out, err = module.run_command([npu_smi, "info", "-t", "board", "-i", str(npu_id)])
        boards[npu_id] = parse_details(out) if rc == 0 else {}
        if not boards[npu_id]:
            boards[npu_id] = None
            module.warn(f"npu-smi info -t board -i {npu_id} gave no board details: "
                        + first_line(out + err))
    for device in devices:
        device["board"] = boards[device["npu_id"]]


def main():
    module = AnsibleModule(
        argument_spec={
            "npu_smi_path": {"type": "path"},
            "board": {"type": "bool", "default": False},
            "topology": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    npu_smi = find_npu_smi(module)
    info = read_info(module, npu_smi)
    npu = {
        "count": len(info["devices"]),
        "driver_version": info["driver_version"],
        "npu_smi_version": info["npu_smi_version"],
        "devices": info["devices"],
        "processes": info["processes"],
    }
    if module.params["board"]:
        add_boards(module, npu_smi, npu["devices"])
    if module.params["topology"]:
        topology = read_topology(module, npu_smi)
        if topology is not None:
            npu["topology"] = topology
    module.exit_json(changed=False, ansible_facts={"npu": npu})


if __name__ == "__main__":
    main()
