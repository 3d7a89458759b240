"""Resolve a vllm-ascend release in the compatibility matrix and check a host's stack against it.

- resolve(vllm_ascend): the release's row with the winning values of DISAGREEMENTS applied, the
  driver and firmware that pair with its CANN, the supported chips, the sources, and notes on
  what the sources do not say the same about it.
- check(vllm_ascend, **installed): resolve(), then compare each installed version given (vllm,
  torch, torch_npu, cann, driver, firmware, python, chip, and the driver's and firmware's
  compatible ranges) with the release and the other tables. Returns `release`, `violations`
  (one sentence each: what the release needs, what the host has, the fix) and `warnings`
  (what the data cannot decide).

An unknown vllm-ascend or CANN version, or a value that is not a version, raises CompatError
naming the known versions nearest to it. Python package versions compare as PEP 440 public
versions (a `+local` part is ignored), CANN/driver/firmware in Huawei's order (see _versions).
"""

from __future__ import annotations

from ansible_collections.ascend_fleet.vllm.plugins.module_utils._compat_matrix import (
    CANN_DRIVERS,
    CHIPS,
    DISAGREEMENTS,
    HDK_FIRMWARE,
    RELEASE_FIELDS,
    RELEASES,
    TORCH_NPU_ACTIVE,
    TORCH_NPU_CANN,
)
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._versions import (
    AscendRange,
    AscendVersion,
    VersionError,
    below,
    display,
    floor_key,
    in_specifier,
    matches,
    neighbours,
    pep440,
    public,
)

__all__ = ["CompatError", "check", "known_cann", "known_releases", "resolve"]

MATRIX_FILE = "plugins/module_utils/_compat_matrix.py"


class CompatError(ValueError):
    """A version the matrix does not know, or a value that is not a version."""


# --- lookups ----------------------------------------------------------------------------------


def _releases():
    """{PEP 440 version: matrix row} of every known vllm-ascend release."""
    return {pep440(row["vllm_ascend"]): row for row in RELEASES}


def known_releases():
    """The vllm-ascend versions of the matrix, oldest first (strings as the matrix writes them)."""
    return [_releases()[version]["vllm_ascend"] for version in sorted(_releases())]


def known_cann():
    """Every CANN version any table of the matrix names, oldest first."""
    names = {row["cann"] for row in RELEASES}
    names.update(row[2] for row in TORCH_NPU_CANN)  # (torch_npu, PyTorch, CANN, source)
    names.update(row[0] for row in CANN_DRIVERS)  # (CANN, drivers, source)
    return sorted(names, key=AscendVersion)


def _nearest(what, value, known):
    """`what value is not in the matrix; the nearest known are ...`: a sentence for CompatError."""
    lower, higher = neighbours(value, known)
    parts = []
    if lower:
        parts.append(", ".join(str(v) for v in lower) + " below")
    if higher:
        parts.append(", ".join(str(v) for v in higher) + " above")
    return (f"{what} {value} is not in the compatibility matrix; the nearest known are "
            f"{' and '.join(parts)}: use one of them, or add it with its source to {MATRIX_FILE}")


def _read(reader, what, value):
    """`reader(value)`, turning a VersionError into a CompatError that names the input."""
    try:
        return reader(value)
    except VersionError as error:
        raise CompatError(f"{what}: {error}") from None


def _cann(value):
    """The AscendVersion of a known CANN version; CompatError naming the nearest otherwise."""
    version = _read(AscendVersion, "cann", value)
    known = [AscendVersion(name) for name in known_cann()]
    if version not in known:
        raise CompatError(_nearest("CANN", version, known))
    return version


def _torch_npu_by_cann():
    """{CANN key: [torch_npu, ...]} of Ascend/pytorch's table."""
    table = {}
    for torch_npu, _torch, cann, _source in TORCH_NPU_CANN:
        table.setdefault(AscendVersion(cann), []).append(torch_npu)
    return table


def _cann_for_torch_npu(torch_npu):
    """The CANN versions Ascend/pytorch's table builds `torch_npu` for (public versions equal)."""
    wanted = public(torch_npu)
    return [cann for build, _torch, cann, _source in TORCH_NPU_CANN if public(build) == wanted]


def _lowest(patterns):
    """The pattern whose lowest match sorts first."""
    return min(patterns, key=floor_key)


def _driver_patterns(cann):
    """(driver patterns, source) that CANN_DRIVERS gives for `cann`, or (None, None)."""
    for name, drivers, source in CANN_DRIVERS:
        if AscendVersion(name) == AscendVersion(cann):
            return drivers, source
    return None, None


def _driver_pairing(cann):
    """What CANN_DRIVERS and HDK_FIRMWARE say for `cann`: (driver, firmware) dicts or Nones."""
    drivers, source = _driver_patterns(cann)
    if drivers is None:
        return None, None
    driver = {
        "recommended": display(drivers[0]),
        "min": display(_lowest(drivers)),
        "known": [display(pattern) for pattern in drivers],
        "source": source,
    }
    hdks = [(hdk, fw, src) for hdk, fw, src in HDK_FIRMWARE
            if any(matches(hdk.rstrip("."), pattern) for pattern in drivers)]
    if not hdks:
        return driver, None
    firmware = {
        "known": sorted({fw for _hdk, fw, _source in hdks}, key=AscendVersion),
        "by_driver": {display(hdk): fw for hdk, fw, _source in hdks},
        "source": "; ".join(sorted({source for _hdk, _fw, source in hdks})),
    }
    return driver, firmware


# --- resolve ----------------------------------------------------------------------------------


def resolve(vllm_ascend):
    """The release of `vllm_ascend` (like 0.23.0 or v0.23.0): a dict, see the module's RETURN."""
    version = _read(public, "vllm_ascend", vllm_ascend)
    row = _releases().get(version)
    if row is None:
        raise CompatError(_nearest("vllm-ascend", version, list(_releases())))
    release = {field: row[field] for field in RELEASE_FIELDS}
    release["vllm"] = row["vllm"][0]
    accepted = {"vllm": list(row["vllm"])}
    disagreements = []
    for other in DISAGREEMENTS:
        if pep440(other["vllm_ascend"]) != version:
            continue
        field = other["field"]
        accepted.setdefault(field, [row[field]]).append(other["value"])
        if other["wins"]:
            release[field] = other["value"]
        disagreements.append({
            "field": field,
            "policy": row[field],
            "value": other["value"],
            "source": other["source"],
            "winner": other["value"] if other["wins"] else row[field],
            "why": other["why"],
        })
    driver, firmware = _driver_pairing(release["cann"])
    release.update({
        "accepted": {field: values for field, values in accepted.items() if len(values) > 1},
        "disagreements": disagreements,
        "driver": driver,
        "firmware": firmware,
        "chips": [{"family": chip["family"], "support": chip["support"],
                   "names": list(chip["names"])} for chip in CHIPS],
        "sources": {
            "release": row["source"],
            "disagreements": [item["source"] for item in disagreements],
            "torch_npu_cann": TORCH_NPU_ACTIVE,
            "driver": driver["source"] if driver else None,
            "firmware": firmware["source"] if firmware else None,
            "chips": CHIPS[0]["source"],
        },
    })
    release["notes"] = _notes(release)
    return release


def _notes(release):
    """Where the matrix's tables do not say the same about `release`, or say nothing."""
    notes = []
    cann = AscendVersion(release["cann"])
    listed = _torch_npu_by_cann().get(cann)
    torch_npu = release["torch_npu"]
    if listed and public(torch_npu) not in {public(build) for build in listed}:
        elsewhere = _cann_for_torch_npu(torch_npu)
        built_for = (f"which it builds for CANN {', '.join(elsewhere)}" if elsewhere
                     else "which it does not list at all")
        notes.append(f"Ascend/pytorch pairs CANN {cann} with torch_npu {', '.join(listed)}, not "
                     f"with this release's {torch_npu} ({built_for}); vllm-ascend's pairing is "
                     "followed")
    if release["driver"] is None:
        notes.append(f"no NPU driver pairing is recorded for CANN {cann}, so the driver and "
                     "firmware are not checked against it")
    return notes


# --- check ------------------------------------------------------------------------------------


def check(vllm_ascend, vllm=None, torch=None, torch_npu=None, cann=None, driver=None,
          firmware=None, python=None, chip=None, driver_compatible_fw=None,
          firmware_compatible_drv=None):
    """Resolve `vllm_ascend` and check the installed versions given (None: not checked).

    Returns {"release": resolve(...), "violations": [sentence, ...], "warnings": [sentence, ...]}.
    """
    release = resolve(vllm_ascend)
    name = release["vllm_ascend"]
    violations, warnings = [], []
    for field, value in (("vllm", vllm), ("torch", torch), ("torch_npu", torch_npu)):
        accepted = release["accepted"].get(field, [release[field]])
        if value is not None and _read(public, field, value) not in {public(v) for v in accepted}:
            others = [v for v in accepted if v != release[field]]
            also = f" (or {', '.join(others)})" if others else ""
            violations.append(f"vllm-ascend {name} needs {field} {release[field]}{also}; this "
                              f"host has {value}: {_reinstall(release)}.")
    if python is not None and not _read(lambda v: in_specifier(v, release["python"]),
                                        "python", python):
        violations.append(f"vllm-ascend {name} needs Python {release['python']}; this host has "
                          f"{python}: build the release's venv with a Python in that range.")
    if cann is not None:
        host_cann = _cann(cann)
        if host_cann != AscendVersion(release["cann"]):
            violations.append(f"vllm-ascend {name} needs CANN {release['cann']}; this host has "
                              f"{cann}: install CANN {release['cann']} (toolkit, kernels/ops "
                              "and NNAL) with the cann role.")
        if torch_npu is not None:
            violations.extend(_torch_npu_cann(release, torch_npu, host_cann))
    host_driver = None if driver is None else _read(AscendVersion, "driver", driver)
    host_firmware = None if firmware is None else _read(AscendVersion, "firmware", firmware)
    if host_driver is not None:
        _check_driver(release, host_driver, violations, warnings)
    if host_firmware is not None:
        _check_firmware(release, host_firmware, violations, warnings)
    if host_driver is not None and host_firmware is not None:
        _check_hdk_pair(host_driver, host_firmware, driver_compatible_fw,
                        firmware_compatible_drv, violations, warnings)
    elif driver_compatible_fw is not None or firmware_compatible_drv is not None:
        warnings.append("driver_compatible_fw and firmware_compatible_drv need both driver and "
                        "firmware, so they were not checked.")
    if chip is not None:
        _check_chip(name, chip, violations, warnings)
    return {"release": release, "violations": violations, "warnings": warnings}


def _torch_npu_cann(release, torch_npu, host_cann):
    """A violation when Ascend/pytorch builds `torch_npu` for other CANN versions than the host's.

    Only where the table covers the host's CANN and lists this torch_npu; the release's own
    pairing (vllm-ascend's policy) is never flagged here (its notes say where the tables differ).
    """
    accepted = release["accepted"].get("torch_npu", [release["torch_npu"]])
    installed = public(torch_npu)
    own_pair = (host_cann == AscendVersion(release["cann"])
                and installed in {public(value) for value in accepted})
    listed = _torch_npu_by_cann().get(host_cann)
    built_for = _cann_for_torch_npu(torch_npu)
    if own_pair or not listed or not built_for or host_cann in map(AscendVersion, built_for):
        return []
    return [f"torch_npu {torch_npu} is built for CANN {', '.join(built_for)} (Ascend/pytorch's "
            f"compatibility table); this host has CANN {host_cann}: {_reinstall(release)}, or "
            f"use a torch_npu built for CANN {host_cann} ({', '.join(listed)})."]


def _reinstall(release):
    """The fix that brings a host to `release`'s Python stack."""
    return f"reinstall the python_stack for release v{release['vllm_ascend']}"


def _check_driver(release, host_driver, violations, warnings):
    """The installed driver against the drivers that pair with the release's CANN."""
    pairing = release["driver"]
    patterns = _driver_patterns(release["cann"])[0]
    if patterns is None:
        return
    if any(matches(host_driver, pattern) for pattern in patterns):
        return
    if below(host_driver, _lowest(patterns)):
        violations.append(
            f"CANN {release['cann']} needs NPU driver {pairing['min']} or newer (pairs: "
            f"{', '.join(pairing['known'])}); this host has {host_driver}: upgrade the driver "
            f"and firmware to Ascend HDK {pairing['recommended']} with the npu_driver role.")
    else:
        warnings.append(
            f"NPU driver {host_driver} is newer than the oldest driver CANN {release['cann']} "
            f"pairs with but not one of its known pairs ({', '.join(pairing['known'])}): check "
            "Huawei's compatibility notes for this pair.")


def _check_firmware(release, host_firmware, violations, warnings):
    """The installed firmware against the firmware of the HDKs that pair with the release."""
    pairing = release["firmware"]
    if pairing is None or str(host_firmware) in pairing["known"]:
        return
    known = [AscendVersion(fw) for fw in pairing["known"]]
    if host_firmware < min(known):
        violations.append(
            f"CANN {release['cann']} needs NPU firmware {min(known)} or newer (the firmware of "
            f"its paired Ascend HDK: {', '.join(pairing['known'])}); this host has "
            f"{host_firmware}: upgrade the firmware with the npu_driver role.")
    elif host_firmware not in known:
        warnings.append(
            f"NPU firmware {host_firmware} is not a firmware known to pair with CANN "
            f"{release['cann']} ({', '.join(pairing['known'])}).")


def _check_hdk_pair(host_driver, host_firmware, driver_compatible_fw, firmware_compatible_drv,
                    violations, warnings):
    """Driver and firmware against each other: their version.info ranges, else HDK pairs."""
    if driver_compatible_fw is not None:
        accepts = _read(AscendRange, "driver_compatible_fw", driver_compatible_fw)
        if host_firmware not in accepts:
            violations.append(
                f"NPU driver {host_driver} accepts firmware {accepts} (its "
                f"compatible_version_fw); this host has firmware {host_firmware}: install the "
                "firmware of the driver's Ascend HDK release with the npu_driver role.")
    if firmware_compatible_drv is not None:
        accepts = _read(AscendRange, "firmware_compatible_drv", firmware_compatible_drv)
        if host_driver not in accepts:
            violations.append(
                f"NPU firmware {host_firmware} accepts drivers {accepts} (its "
                f"compatible_version_drv); this host has driver {host_driver}: install the "
                "driver of the firmware's Ascend HDK release with the npu_driver role.")
    if driver_compatible_fw is None and firmware_compatible_drv is None:
        for hdk, fw, _source in HDK_FIRMWARE:
            if matches(host_driver, hdk) and AscendVersion(fw) != host_firmware:
                warnings.append(
                    f"NPU driver {host_driver} comes with firmware {fw} in its Ascend HDK "
                    f"release; this host has {host_firmware}: pass driver_compatible_fw or "
                    "firmware_compatible_drv (from version.info) to check the pair.")


def _chip_name(text):
    """A chip name as the matrix writes it: no `Ascend` prefix, no spaces, upper case."""
    name = str(text).strip().replace(" ", "").upper()
    name = name[len("ASCEND"):] if name.startswith("ASCEND") else name
    return name.replace("910B4_1", "910B4-1")


def _check_chip(name, chip, violations, warnings):
    """The host's chip against the chips vllm-ascend supports."""
    supported = " and ".join(c["family"] for c in CHIPS if c["support"] == "supported")
    wanted = _chip_name(chip)
    for family in CHIPS:
        if wanted not in {_chip_name(n) for n in family["names"]}:
            continue
        if family["support"] == "unsupported":
            violations.append(
                f"vllm-ascend {name} runs on {supported}; this host has {chip}, of the "
                f"{family['family']}, which it does not support: serve from Atlas A2 or A3 "
                "servers instead.")
        elif family["support"] == "experimental":
            warnings.append(f"{chip} is an {family['family']} chip, which vllm-ascend supports "
                            "experimentally only.")
        return
    known = ", ".join(n for family in CHIPS for n in family["names"])
    violations.append(f"vllm-ascend {name} runs on {supported}; this host has {chip}, which is "
                      f"not a known Ascend chip name: pass the name npu-smi prints (one of "
                      f"{known}).")
