"""The simulated `npu-smi`: the real tool's output formats, driven by the node's state.

The state (ascend_sim.state) gives the cards; the driver and firmware versions come from the
version files the installers write, so without a driver npu-smi fails the way the real one does
when the driver is not loaded. Everything is printed on stdout, errors included, as npu-smi does.
Messages for a bad card id or command are plausible stand-ins (the real wording is not on record).
"""

import os
import sys

from ascend_sim import state as sim_state

DRIVER_VERSION_FILE = "usr/local/Ascend/driver/version.info"
FIRMWARE_VERSION_FILE = "usr/local/Ascend/firmware/version.info"
DCMI_INIT_FAILED = "dcmi module initialize failed. ret is -8005"
# layout name -> (width of the NPU/Chip column, width of the npu-smi version field)
LAYOUTS = {"wide": (27, 25), "narrow": (22, 34)}
PROCESS_NAME_MAX = 15  # npu-smi shows the kernel's comm, at most 15 characters
CTRLCPU_PCT = 6  # control CPU load of an idle card, as recorded
MCU_TEMP_OFFSET = 3  # board sensors (LM75, MCU) read a few degrees below the chip
AICORE_FREQ_MHZ, AICORE_IDLE_FREQ_MHZ = 1800, 800
# What `-t health` reports for a card that is not OK (a stand-in: real codes depend on the fault).
FAULT_CODE, FAULT_INFO = "80E01801", "node type=SOC, sensor type=Temperature"

TOP_USAGE = """Usage: npu-smi <Command|-h|-v> [Options...]

npu-smi Command:
      -h            This command's help information
      --help        This command's help information
      -v            Show npu-smi version information
      info          Show hardware details
      set           Modify device configuration properties
      clear         Clear device information
      upgrade       Upgrade MCU firmware"""

INFO_USAGE = """Usage: npu-smi info <watch|proc|-h|-m|-l|-t type> [Options...]

Commands:
       watch          Show all device's status in scrolling format
       proc           Show device's matrix process status in scrolling format
       -h, --help     Show this help text and exit
       -m             Show all device's mapping information
       -l             Show all device's topology information
       -t type        Show information for type
                      type: board, flash, memory, usages, sensors, temp, power, volt, mac-addr,
                            common, health, product, ecc, ip, sys-time, i2c_check, work-mode,
                            ecc-enable, p2p-enable, ssh-enable, license, customized-info,
                            device-share, nve-level, aicpu-config, pcie-err, mcu-monitor,
                            err-count, boot-area, vnpu-mode, info-vnpu, vnpu-svm, cpu-num-cfg,
                            first-power-on-date, proc-mem, phyid-remap, vnpu-cfg-recover, key-manage,
                            template-info, pkcs-enable, p2p-mem-cfg, pwm-mode, pwm-duty-ratio,
                            boot-select, topo.

Options:
       -i %d          Card ID
       -c %d          Chip ID
       -p %d          Chip Physical ID"""  # noqa: E501 - the real tool's text, verbatim

# The -t types the real tool knows: the list in its usage text, between "type:" and "Options".
INFO_TYPES = tuple(name.strip(" .\n") for name in
                   INFO_USAGE.split("type: ", 1)[1].split("\n\n", 1)[0].split(","))

TOPO_LEGEND = """Legend:

  X    = Self
  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, such as QPI, UPI.
  PHB  = Path traversing PCIe and the PCIe host bridge of a CPU.
  PIX  = Path traversing a single PCIe switch
  PXB  = Path traversing multiple PCIe switches
  HCCS = Connection traversing HCCS.
  NA   = Unknown relationship."""


class NpuSmiError(Exception):
    """Ends the command: the message is printed on stdout and the exit code is 1."""


def read_version(root, relative):
    """The Version= value of a version.info file under root, or None when there is none."""
    try:
        text = (sim_state.root_dir(root) / relative).read_text()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "Version" and value.strip():
            return value.strip()
    return None


def kv(key, value):
    """One key/value line: 8 spaces, the key padded to 31, then ': value'."""
    return f"        {key:<31}: {value}"


def _pct(used, total):
    return int(used * 100 / total + 0.5) if total else 0


def _usage(used, total, width):
    return f"{used!s:<5}/ {total!s:<{width}}"


def _cell(text, width):
    return " " + str(text).ljust(width - 1)


def _row(*cells):
    """A table row from (text, width) cells: `| text   | text   |`."""
    return "|" + "|".join(_cell(text, width) for text, width in cells) + "|"


def shown_hbm(state, card, procs):
    """HBM use as npu-smi shows it: the idle use plus what the card's processes hold."""
    used = card["hbm_used_mb"]
    if state.get("hbm_includes_processes", True):
        used += sum(int(p["memory_mb"]) for p in procs if p["npu_id"] == card["npu_id"])
    return min(used, card["hbm_total_mb"])


def render_info(state, procs, driver, smi_version):
    """The `npu-smi info` table: two rows per card, then the process table."""
    col1, version_width = LAYOUTS[state.get("layout", "wide")]
    width = col1 + 71
    dashes = f"+{'-' * col1}+{'-' * 15}+{'-' * 52}+"
    equals = dashes.replace("-", "=")
    lines = [
        f"+{'-' * (width - 2)}+",
        f"| npu-smi {smi_version:<{version_width}}Version: "
        f"{driver:<{width - 20 - version_width}}|",
        dashes,
        _row(("NPU   Name", col1), ("Health", 15),
             ("Power(W)    Temp(C)           Hugepages-Usage(page)", 52)),
        _row(("Chip", col1), ("Bus-Id", 15),
             ("AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)", 52)),
        equals,
    ]
    for card in state["cards"]:
        lines.append(_row(
            (f"{card['npu_id']:<6}{card['name']}", col1), (card["health"], 15),
            (f"{card['power_w']:<12.1f}{card['temp_c']:<18}"
             f"{_usage(card['hugepages_used'], card['hugepages_total'], 14)}", 52)))
        lines.append(_row(
            (card["chip_id"], col1), (card["bus_id"], 15),
            (f"{card['aicore_pct']:<12}"
             f"{_usage(card['memory_used_mb'], card['memory_total_mb'], 11)}"
             f"{_usage(shown_hbm(state, card, procs), card['hbm_total_mb'], 14)}", 52)))
        lines.append(equals)
    lines += [dashes,
              _row(("NPU     Chip", col1), ("Process id", 15), ("Process name", 26))
              + _cell("Process memory(MB)", 25) + "|",
              equals]
    for card in state["cards"]:
        own = [p for p in procs if p["npu_id"] == card["npu_id"]]
        for proc in own:
            lines.append(_row((f"{proc['npu_id']:<8}{proc['chip_id']}", col1),
                              (proc["pid"], 15), (str(proc["name"])[:PROCESS_NAME_MAX], 26))
                         + _cell(proc["memory_mb"], 25) + "|")
        if not own:
            message = f"No running processes found in NPU {card['npu_id']}"
            lines.append(f"| {message:<{width - 3}}|")
        lines.append(equals)
    return lines


def render_mapping(state):
    """`npu-smi info -m`: each card's NPU chip and its MCU."""
    lines = ["        " + "".join(f"{h:<31}" for h in ("NPU ID", "Chip ID", "Chip Logic ID"))
             + f"{'Chip Name':<30}"]
    for logic_id, card in enumerate(state["cards"]):
        npu = f"        {card['npu_id']:<31}"
        lines.append(f"{npu}{card['chip_id']:<31}{logic_id:<31}Ascend {card['name']}")
        lines.append(f"{npu}{card['chip_id'] + 1:<31}{'-':<31}{'Mcu':<30}")
    return lines


def render_list(state):
    """`npu-smi info -l`."""
    lines = [kv("Total Count", len(state["cards"]))]
    for card in state["cards"]:
        lines += ["", kv("NPU ID", card["npu_id"]), kv("Chip Count", 1)]
    return lines


def render_topo(state):
    """`npu-smi info -t topo`: the link matrix with each card's CPU affinity, then the legend."""
    names = [f"NPU{card['npu_id']}" for card in state["cards"]]
    topo = state["topology"]
    lines = ["\t   " + "".join(f"{name:<11}" for name in names) + "CPU Affinity"]
    for name, links, affinity in zip(names, topo["links"], topo["cpu_affinity"]):
        lines.append(f"{name:<11}" + "".join(f"{link:<11}" for link in links) + affinity)
    return [*lines, "", *TOPO_LEGEND.splitlines()]


def render_type(kind, state, card, chip, procs, driver, firmware):
    """Key/value output of `npu-smi info -t <kind> -i <card> [-c <chip>]`."""
    npu, temp, power = card["npu_id"], card["temp_c"], f"{card['power_w']:.1f}"
    hbm = _pct(shown_hbm(state, card, procs), card["hbm_total_mb"])
    aicore = card["aicore_pct"]
    healthy = card["health"] == "OK"
    head = [kv("NPU ID", npu), kv("Chip Count", 1), ""]
    if kind == "board" and chip is not None:
        return [kv("NPU ID", npu), kv("Chip ID", chip), kv("Chip Type", "Ascend"),
                kv("Chip Name", card["name"])]
    if kind == "board":
        board = state["board"]
        return [kv(key, value) for key, value in (
            ("NPU ID", npu), ("Product Name", board["product_name"]), ("Model", "NA"),
            ("Manufacturer", "Huawei"), ("Serial Number", card["serial_number"]),
            ("Software Version", driver), ("Firmware Version", firmware or "NA"),
            ("Compatibility", "OK"), ("Board ID", board["board_id"]), ("PCB ID", "A"),
            ("BOM ID", 1), ("PCIe Bus Info", card["bus_id"]), ("Slot ID", npu),
            ("Class ID", "NA"), ("PCI Vendor ID", "0x19E5"),
            ("PCI Device ID", board["pci_device_id"]), ("Subsystem Vendor ID", "0x19E5"),
            ("Subsystem Device ID", board["subsystem_device_id"]), ("Chip Count", 1))]
    if kind == "health":
        first = [kv("Health Status", card["health"])] if chip is not None else [
            kv("NPU ID", npu), kv("Health", card["health"])]
        return [*first, kv("Error Code", "NA" if healthy else FAULT_CODE),
                kv("Error Information", "NA" if healthy else FAULT_INFO)]
    if kind == "usages":
        return head + [kv(key, value) for key, value in (
            ("DDR Capacity(MB)", card["memory_total_mb"]),
            ("DDR Usage Rate(%)", _pct(card["memory_used_mb"], card["memory_total_mb"])),
            ("DDR Hugepages Total(page)", card["hugepages_total"]),
            ("DDR Hugepages Usage Rate(%)",
             _pct(card["hugepages_used"], card["hugepages_total"])),
            ("HBM Capacity(MB)", card["hbm_total_mb"]), ("HBM Usage Rate(%)", hbm),
            ("Aicore Usage Rate(%)", aicore), ("Aivector Usage Rate(%)", aicore),
            ("Aicpu Usage Rate(%)", 0), ("Ctrlcpu Usage Rate(%)", CTRLCPU_PCT),
            ("DDR Bandwidth Usage Rate(%)", 0), ("HBM Bandwidth Usage Rate(%)", 0),
            ("NPU Utilization(%)", aicore), ("Aicube Usage Rate(%)", aicore), ("Chip ID", 0))]
    if kind == "temp":
        return [*head, kv("NPU Temperature (C)", temp), kv("Chip ID", 0), "",
                kv("LM75A_TE (C)", temp - MCU_TEMP_OFFSET),
                kv("LM75B_TE (C)", temp - MCU_TEMP_OFFSET), kv("Chip Name", "MCU")]
    if kind == "power":
        return [*head, kv("NPU Real-time Power(W)", power), kv("Chip ID", 0)]
    aicores = sim_state.CHIPS.get(state.get("chip"), {}).get("aicore_count", 20)
    return head + [kv(key, value) for key, value in (
        ("Chip ID", 0), ("Memory Usage Rate(%)", _pct(card["memory_used_mb"],
                                                      card["memory_total_mb"])),
        ("HBM Usage Rate(%)", hbm), ("Aicore Usage Rate(%)", aicore),
        ("Aicore Freq(MHZ)", AICORE_FREQ_MHZ),
        ("Aicore curFreq(MHZ)", AICORE_FREQ_MHZ if aicore else AICORE_IDLE_FREQ_MHZ),
        ("Aicore Count", aicores), ("Temperature(C)", temp), ("NPU Real-time Power(W)", power),
    )] + ["", kv("Chip Name", "mcu"), kv("Temperature(C)", temp - MCU_TEMP_OFFSET)]


CARD_TYPES = ("board", "health", "usages", "temp", "power", "common")


def _options(args):
    """Parse `-i N -c N -p N` pairs into a dict of ints."""
    options = {}
    pairs = iter(args)
    for flag in pairs:
        value = next(pairs, None)
        if flag not in ("-i", "-c", "-p") or value is None or not value.isdigit():
            raise NpuSmiError(f"Error parameter of {flag}\n{INFO_USAGE}")
        options[flag] = int(value)
    return options


def info(args, root):
    """`npu-smi info ...`: every form needs a loaded driver, then reads the state."""
    if args[:1] in (["-h"], ["--help"]):
        return INFO_USAGE.splitlines()
    driver = read_version(root, DRIVER_VERSION_FILE)
    if driver is None:
        raise NpuSmiError(DCMI_INIT_FAILED)
    state = sim_state.load(root)
    procs = sim_state.processes(root, state)
    if not args:
        return render_info(state, procs, driver, state.get("npu_smi_version") or driver)
    if args == ["-m"]:
        return render_mapping(state)
    if args == ["-l"]:
        return render_list(state)
    if args[0] != "-t" or len(args) < 2:
        if args[0] in ("watch", "proc"):
            raise NpuSmiError(f"This device does not support {args[0]}")
        raise NpuSmiError(f"Error parameter of {args[0]}\n{INFO_USAGE}")
    kind, options = args[1], _options(args[2:])
    if kind not in INFO_TYPES:
        raise NpuSmiError(f"Error parameter of -t\n{INFO_USAGE}")
    if kind == "topo":
        return render_topo(state)
    if kind not in CARD_TYPES:
        raise NpuSmiError(f"This device does not support querying {kind}")
    if "-i" not in options:
        raise NpuSmiError(f"Error parameter of -i\n{INFO_USAGE}")
    card = next((c for c in state["cards"] if c["npu_id"] == options["-i"]), None)
    if card is None:
        raise NpuSmiError(f"Error: NPU ID {options['-i']} does not exist.")
    chip = options.get("-c")
    if chip not in (None, card["chip_id"]):
        raise NpuSmiError(f"Error: chip ID {chip} of NPU ID {card['npu_id']} does not exist.")
    firmware = read_version(root, FIRMWARE_VERSION_FILE)
    return render_type(kind, state, card, chip, procs, driver, firmware)


def smi_version(root):
    """npu-smi's own version: the state's npu_smi_version, else the driver's version."""
    try:
        override = sim_state.load(root).get("npu_smi_version")
    except sim_state.StateError:
        override = None
    version = override or read_version(root, DRIVER_VERSION_FILE)
    if version is None:
        raise NpuSmiError(DCMI_INIT_FAILED)
    return version


def run(argv, root=None):
    """Run npu-smi with argv (without the program name); returns (exit code, stdout text)."""
    try:
        if not argv or argv[0] in ("-h", "--help"):
            lines = TOP_USAGE.splitlines()
        elif argv[0] == "-v":
            lines = [f"npu-smi version: {smi_version(root)}"]
        elif argv[0] == "info":
            lines = info(list(argv[1:]), root)
        elif argv[0] in ("set", "clear", "upgrade"):
            raise NpuSmiError(f"The simulated npu-smi does not support '{argv[0]}'.")
        else:
            raise NpuSmiError(f"Error command: {argv[0]}\n{TOP_USAGE}")
    except (NpuSmiError, sim_state.StateError) as error:
        return 1, f"{error}\n"
    return 0, "\n".join(lines) + "\n"


def main(argv=None):
    """Entry point of simulator/bin/npu-smi; the root comes from $ASCEND_SIM_ROOT (default /)."""
    code, text = run(sys.argv[1:] if argv is None else argv, os.environ.get("ASCEND_SIM_ROOT"))
    sys.stdout.write(text)
    return code
