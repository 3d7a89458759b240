"""The preflight doctor's judgement: what a host has, against what its release and plan need.

Pure Python. `preflight_checks(host)` takes the facts the preflight role gathered for one host and
returns one result per check: `check`, `status`, `detail`, `fix`, `blocking`.

Status is one of:
- ok: as it should be;
- todo: not there yet, and site.yml will put it there (only when the host is not expected to be
  installed yet: `expect_installed` false, as site.yml runs preflight on bare hosts);
- warn: worth knowing, not blocking;
- fail: wrong. `blocking` says whether the host must stop here.

Where a check prevents one of the errors users meet at serving time (ASCEND.md, section 7), its
detail quotes that error, so a user who searches for it lands here.
"""

from __future__ import annotations

HEALTHY = "OK"
GCC_RANGE = ("9", "10", "11")


def _result(check, status, detail, fix="", blocking=None):
    if blocking is None:
        blocking = status == "fail"
    return {"check": check, "status": status, "detail": detail, "fix": fix, "blocking": blocking}


def _missing(host, check, detail, fix):
    """Something not installed: site.yml will install it, unless the host should have it now."""
    if host.get("expect_installed"):
        return _result(check, "fail", detail, fix)
    return _result(check, "todo", detail + " (site.yml installs it)", fix, blocking=False)


def public_version(version):
    """`0.22.1+empty` -> `0.22.1`: PEP 440 local labels do not change the release."""
    return str(version).split("+", 1)[0] if version is not None else None


def check_npu_smi(host):
    npu, stack = host.get("npu"), host.get("stack") or {}
    if npu:
        return _result("npu-smi", "ok", f"{npu.get('count', 0)} NPU(s), driver "
                       f"{npu.get('driver_version')}")
    error = host.get("npu_error") or "npu-smi did not answer"
    if not stack.get("driver"):
        return _missing(host, "npu-smi", f"no NPU driver installed: {error}",
                        "install the release's driver and firmware (site.yml, npu_driver role)")
    return _result("npu-smi", "fail", f"the driver is installed but npu-smi fails: {error}",
                   "reboot if the driver was just installed (the installer asks for it); "
                   "otherwise check `dmesg` for the driver and run npu-smi as root")


def check_health(host):
    devices = (host.get("npu") or {}).get("devices") or []
    if not devices:
        return _result("card health", "todo" if not host.get("expect_installed") else "fail",
                       "no card answered", "see the npu-smi check",
                       blocking=bool(host.get("expect_installed")))
    sick = [d for d in devices if d.get("health") != HEALTHY]
    if not sick:
        return _result("card health", "ok", f"all {len(devices)} card(s) OK")
    names = ", ".join(f"NPU {d.get('npu_id')} {d.get('health')}" for d in sick)
    return _result("card health", "fail", names,
                   "inspect with `npu-smi info -t health -i <id>`; reseat or replace the card; "
                   "no upgrade or serving on this host until every card shows OK")


def check_cards(host):
    devices = (host.get("npu") or {}).get("devices") or []
    if not devices:
        return _result("cards and chip", "todo", "unknown until npu-smi answers", blocking=False)
    allowed = host.get("allowed_chips") or []
    chips = sorted({str(d.get("name")) for d in devices})
    problems = []
    wrong = [c for c in chips if not any(c.startswith(a) for a in allowed)]
    if wrong:
        problems.append(f"chip {', '.join(wrong)} is not one of {', '.join(allowed)}")
    expected = host.get("expected_cards")
    if expected and len(devices) != expected:
        problems.append(f"{len(devices)} card(s) answer, {expected} expected")
    if problems:
        return _result("cards and chip", "fail", "; ".join(problems),
                       "check the inventory (preflight_expected_cards, preflight_allowed_chips) "
                       "against the hardware; a missing card needs `npu-smi info` and a reseat")
    return _result("cards and chip", "ok", f"{len(devices)} x {', '.join(chips)}")


def installed_versions(stack):
    """The host's versions of each release component (None where absent)."""
    stack = stack or {}
    packages = stack.get("packages") or {}
    return {
        "driver": (stack.get("driver") or {}).get("version"),
        "firmware": (stack.get("firmware") or {}).get("version"),
        "cann": (stack.get("cann") or {}).get("active"),
        **{name: public_version(packages.get(name))
           for name in ("torch", "torch_npu", "vllm", "vllm_ascend", "triton_ascend")},
    }


def check_versions(host):
    release = host.get("release") or {}
    wanted = release.get("versions") or {}
    have = installed_versions(host.get("stack"))
    drift, absent = [], []
    for component, version in wanted.items():
        current = have.get(component)
        if current is None:
            absent.append(f"{component} {version}")
        elif public_version(current) != public_version(version):
            drift.append(f"{component} {current} (release {release.get('name')} pins {version})")
    violations = list((host.get("compat") or {}).get("violations") or [])
    vllm = have.get("vllm")
    if vllm and not vllm[0].isdigit():
        violations.append(f"vllm reports version {vllm!r}, which vllm-ascend cannot parse "
                          "(`InvalidVersion`): install a released vllm or set VLLM_VERSION")
    fix = (f"converge the host to release {release.get('name')} (site.yml), or choose the "
           "release it runs in the inventory (ascend_fleet_release)")
    if drift or violations:
        detail = "; ".join(drift + violations)
        if host.get("expect_installed"):
            return _result("versions", "fail", detail, fix)
        return _result("versions", "todo", detail + " (site.yml installs the release)", fix,
                       blocking=False)
    if absent:
        return _missing(host, "versions", "not installed: " + ", ".join(absent), fix)
    return _result("versions", "ok", f"release {release.get('name')}: " + ", ".join(
        f"{k} {v}" for k, v in wanted.items()))


def check_cann_env(host):
    cann = (host.get("stack") or {}).get("cann") or {}
    if not cann.get("active"):
        return _missing(host, "CANN environment", "no active CANN toolkit",
                        "install the release's CANN (cann role)")
    if not host.get("cann_env_file_exists"):
        return _missing(host, "CANN environment",
                        f"{host.get('cann_env_file')} missing: units would start without "
                        "set_env.sh (`ImportError: libascend_hal.so: cannot open shared object "
                        "file`)", "run the cann role: it captures set_env.sh into that file")
    return _result("CANN environment", "ok", f"CANN {cann['active']}, {host.get('cann_env_file')}")


def check_nnal(host):
    stack = host.get("stack") or {}
    if "nnal" not in ((host.get("release") or {}).get("components") or ["nnal"]):
        return _result("NNAL", "ok", "the release has no NNAL")
    if not (stack.get("nnal") or {}).get("active"):
        return _missing(host, "NNAL", "NNAL (ATB) not installed (`ImportError: libatb.so` or "
                        "`Failed to infer device type` when serving)", "run the cann role")
    return _result("NNAL", "ok", f"NNAL {stack['nnal'].get('active')}")


def check_kernels(host):
    cann = (host.get("stack") or {}).get("cann") or {}
    active = cann.get("active")
    if not active:
        return _missing(host, "kernels/ops", "no active CANN toolkit", "run the cann role")
    if not (cann.get("kernels") or {}).get(active):
        return _missing(host, "kernels/ops", f"no kernels/ops package for CANN {active} "
                        "(`AclSetCompileopt ... 500001` when serving)",
                        f"install the kernels/ops package of CANN {active} (cann role)")
    return _result("kernels/ops", "ok", f"kernels/ops for CANN {active}")


def check_gcc(host):
    gcc = (host.get("stack") or {}).get("gcc") or {}
    in_range = sorted(v for v in (gcc.get("installed") or {}) if str(v) in GCC_RANGE)
    if in_range:
        return _result("gcc 9-11", "ok", f"gcc-{in_range[-1]} available for builds "
                       f"(system default {gcc.get('default')})")
    return _missing(host, "gcc 9-11", f"no gcc 9-11 (system default {gcc.get('default')}): "
                    "vllm-ascend's custom ops fail to build (`Failed to import vllm_ascend_C`)",
                    "run the toolchain role (installs gcc-11 beside the system's compiler)")


def check_npu_group(host):
    """`npu_group_entry` / `service_user_entry`: getent rows (group: x, gid, members; passwd: x,
    uid, gid, ...), or None when absent."""
    user, group = host.get("service_user"), host.get("npu_group", "HwHiAiUser")
    group_entry, user_entry = host.get("npu_group_entry"), host.get("service_user_entry")
    if not group_entry:
        return _missing(host, "NPU group", f"group {group} does not exist",
                        "install the driver (it creates the group) or run the npu_driver role")
    members = [m for m in str(group_entry[2] if len(group_entry) > 2 else "").split(",") if m]
    primary = bool(user_entry) and str(user_entry[2]) == str(group_entry[1])
    if user in members or primary:
        return _result("NPU group", "ok", f"{user} is in {group}")
    who = f"service user {user}" + ("" if user_entry else " (not created yet)")
    return _missing(host, "NPU group", f"{who} is not in {group}: vLLM would see no NPU "
                    "(`torch.npu.is_available()` is False)",
                    f"add {user} to {group} (`usermod -aG {group} {user}`; the serve role does it)")


def parse_df(text):
    """{mount point: available bytes} from `df -B1 --output=target,avail`."""
    mounts = {}
    for line in str(text or "").splitlines()[1:]:
        target, _sep, avail = line.rpartition(" ")
        if target.strip() and avail.isdigit():
            mounts[target.strip()] = int(avail)
    return mounts


def free_bytes(path, mounts):
    """Free bytes of the filesystem holding `path` (the longest mount point above it)."""
    above = [m for m in mounts if path == m or path.startswith(m.rstrip("/") + "/")]
    return mounts[max(above, key=len)] if above else None


def check_disk(host):
    """`disk_plan`: [{path, need_gb, for}]; `df`: the output of `df -B1 --output=target,avail`."""
    mounts = parse_df(host.get("df"))
    rows = [{**d, "free": free_bytes(d["path"], mounts)} for d in host.get("disk_plan") or []]
    short = [d for d in rows if d["free"] is not None and d["free"] < d["need_gb"] * 2**30]
    if short:
        detail = "; ".join(f"{d['path']}: {d['free'] / 2**30:.1f} GiB free, {d['need_gb']} GiB "
                           f"needed ({d.get('for', '')})" for d in short)
        return _result("disk space", "fail", detail,
                       "free space there (old releases, old models), or point the paths at a "
                       "larger filesystem")
    known = [f"{d['path']}: {d['free'] / 2**30:.1f} GiB free" for d in rows if d["free"]]
    return _result("disk space", "ok", "; ".join(known) or "nothing to check")


def listening_ports(ss_output):
    """Ports from `ss -Htln` lines (local address is the 4th column: `0.0.0.0:22`, `[::]:22`)."""
    ports = set()
    for line in str(ss_output or "").splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].rpartition(":")[2].isdigit():
            ports.add(int(fields[3].rpartition(":")[2]))
    return ports


def check_ports(host):
    """`planned_ports`: [{port, unit}]; `listening`: `ss -Htln` output; `services`: Ansible's
    service facts (a port held by its own running unit is fine)."""
    listening = listening_ports(host.get("listening"))
    running = {name for name, svc in (host.get("services") or {}).items()
               if svc.get("state") == "running"}
    planned = host.get("planned_ports") or []
    taken = [p for p in planned if int(p["port"]) in listening and p.get("unit") not in running]
    if taken:
        detail = ", ".join(f"{p['port']} (planned for {p.get('unit') or 'a service'})"
                           for p in taken)
        return _result("ports", "fail", f"already in use by another program: {detail}",
                       "stop what listens there (`ss -ltnp` shows it) or plan other ports")
    return _result("ports", "ok", f"free or held by their own units: "
                   f"{[int(p['port']) for p in planned]}" if planned else "no ports planned")


def _is_power_of_two(number):
    return number > 0 and number & (number - 1) == 0


def group_problems(groups, npu_ids, links):
    """Problems of device groups: unknown cards, overlaps, TP size, cards not on HCCS together."""
    problems, seen = [], {}
    for group in groups:
        name, devices = group.get("name"), [int(d) for d in group.get("devices") or []]
        tp = int(group.get("tensor_parallel_size") or len(devices) or 1)
        unknown = [d for d in devices if npu_ids and d not in npu_ids]
        if not devices:
            problems.append(f"{name}: no devices")
        if unknown:
            problems.append(f"{name}: NPU {unknown} not on this host (it has {sorted(npu_ids)})")
        for device in devices:
            if device in seen:
                problems.append(f"{name}: NPU {device} is also in {seen[device]}")
            seen.setdefault(device, name)
        if devices and (len(devices) % tp or not _is_power_of_two(tp)):
            problems.append(f"{name}: tensor parallel size {tp} must be a power of two that "
                            f"divides its {len(devices)} card(s)")
        slow = [(a, b) for i, a in enumerate(devices) for b in devices[i + 1:]
                if links and links.get(str(a), {}).get(str(b), "HCCS") != "HCCS"]
        if slow:
            pairs = ", ".join(f"{a}-{b} {links[str(a)][str(b)]}" for a, b in slow)
            problems.append(f"{name}: cards not linked by HCCS ({pairs})")
    return problems


def check_device_groups(host):
    groups = host.get("device_groups") or []
    if not groups:
        return _result("device groups", "ok", "no device groups planned")
    npu = host.get("npu") or {}
    if not npu.get("devices"):
        return _result("device groups", "todo", "checked once npu-smi answers", blocking=False)
    npu_ids = {int(d["npu_id"]) for d in npu["devices"]}
    links = (npu.get("topology") or {}).get("links") or {}
    problems = group_problems(groups, npu_ids, links)
    if problems:
        return _result("device groups", "fail", "; ".join(problems),
                       "fix the host's device groups in the inventory (serve instances)")
    return _result("device groups", "ok", ", ".join(
        f"{g.get('name')}: {g.get('devices')}" for g in groups))


ALL_CHECKS = (check_npu_smi, check_health, check_cards, check_versions, check_cann_env,
              check_nnal, check_kernels, check_gcc, check_npu_group, check_disk, check_ports,
              check_device_groups)


def preflight_checks(host):
    """Every check for one host, in a fixed order."""
    return [check(host) for check in ALL_CHECKS]


def blocking_failures(results):
    return [r for r in results if r["status"] == "fail" and r["blocking"]]


def render_table(results, width=100):
    """A fixed-width table of one host's results, for the console."""
    lines = [f"{'check':<17} {'status':<6} detail / fix"]
    for r in results:
        text = r["detail"] + (f" -> fix: {r['fix']}" if r["status"] != "ok" and r["fix"] else "")
        lines.append(f"{r['check']:<17} {r['status'].upper():<6} {text}"[:width * 3])
    return lines
