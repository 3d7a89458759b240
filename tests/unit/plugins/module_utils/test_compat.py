"""The compatibility matrix against its sources, and the checks made with it."""

import pathlib
import re

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._compat import (
    CompatError,
    check,
    known_cann,
    known_releases,
    resolve,
)
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._compat_matrix import (
    CANN_DRIVERS,
    CHIPS,
    DISAGREEMENTS,
    HDK_FIRMWARE,
    POLICY,
    POLICY_ROWS,
    POST_RELEASES,
    RELEASE_FIELDS,
    RELEASES,
    TORCH_NPU_ACTIVE,
    TORCH_NPU_CANN,
    TORCH_NPU_HISTORY,
)
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._versions import (
    AscendRange,
    AscendVersion,
    floor_key,
    in_specifier,
    pep440,
    public,
)

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "versions"
POLICY_FILE = FIXTURES / "vllm-ascend-main-versioning_policy.md"
TORCH_NPU_FILE = FIXTURES / "ascend-pytorch-COMPATIBILITY.en.md"
REQUIRES_FILE = FIXTURES / "pypi-vllm-ascend-torch-npu-requires.txt"
MIND_CLUSTER_FILE = FIXTURES / "mind-cluster-faultdiag-driver-firmware-cann-version-files.txt"

# What the matrix's own tables say differently, reported by resolve() in `notes`. Ascend/pytorch
# lists torch_npu builds for these releases' CANN, but not the one the release pins: dev builds
# that Ascend's table of stable builds never lists, and a few stable pins it pairs otherwise.
TORCH_NPU_NOT_PAIRED_WITH_CANN = {
    "0.8.4rc2": ("8.0.0", "2.5.1"),  # Ascend pairs 2.5.1 with CANN 8.1.RC1
    "0.9.1rc1": ("8.1.RC1", "2.5.1.post1.dev20250528"),
    "0.9.2rc1": ("8.1.RC1", "2.5.1.post1.dev20250619"),
    "0.10.0rc1": ("8.2.RC1", "2.7.1.dev20250724"),
    "0.10.1rc1": ("8.2.RC1", "2.7.1.dev20250724"),
    "0.10.2rc1": ("8.2.RC1", "2.7.1.dev20250724"),
    "0.11.0rc0": ("8.2.RC1", "2.7.1.dev20250724"),
    "0.13.0rc2": ("8.5.0", "2.8.0.post1"),  # Ascend lists 2.8.0.post2 for CANN 8.5.0
    "0.20.2rc1": ("9.0.0", "2.10.0"),  # Ascend lists no 2.10.0 build for CANN 9.0.0
    "0.21.0rc1": ("9.0.0", "2.10.0"),
    "0.22.1rc1": ("9.0.0", "2.10.0"),
}
# CANN versions of releases for which no driver pairing is recorded (no public source found).
CANN_WITHOUT_DRIVER_DATA = {"8.3.RC1", "8.3.RC2"}
# Releases on PyPI (in the Requires-Dist fixture) the matrix does not have: 0.30.0rc2 is newer
# than the policy's table, which gives no CANN or vLLM for it.
PYPI_NOT_IN_MATRIX = {"0.30.0rc2"}


# --- the data against its sources -------------------------------------------------------------


def markdown_rows(text, heading):
    """The cells of the first table after `heading`, header and separator left out."""
    section = text.split(heading, 1)[1]
    rows, started = [], False
    for line in section.split("\n"):
        if line.startswith("|"):
            started = True
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif started:
            break
    return rows[2:]


def policy_rows():
    """The policy's release table, normalised as POLICY_ROWS writes it."""
    def value(cell):
        return None if cell == "N/A" else cell.lstrip("v")

    rows = []
    for cells in markdown_rows(POLICY_FILE.read_text(), "## Release compatibility matrix"):
        torch, torch_npu = (part.strip() for part in cells[4].split("/"))
        rows.append((
            value(cells[0]),
            tuple(value(part) for part in cells[1].split("/")),
            cells[2].replace(" ", ""),
            cells[3],
            torch,
            torch_npu,
            value(cells[5]),
            value(cells[6]),
        ))
    return rows


def test_the_matrix_has_every_row_of_the_policy_table_with_the_same_values():
    rows = policy_rows()
    assert len(rows) == 36
    assert rows[0][0] == "0.23.0" and rows[-1][0] == "0.7.3"
    assert list(POLICY_ROWS) == rows


def test_releases_are_the_policy_rows_and_the_post_releases():
    assert [r["vllm_ascend"] for r in RELEASES] == [row[0] for row in POLICY_ROWS] + [
        r["vllm_ascend"] for r in POST_RELEASES]
    assert all(r["source"] == POLICY for r in RELEASES[:len(POLICY_ROWS)])
    for release in RELEASES:
        assert set(release) == {*RELEASE_FIELDS, "source"}
        assert release["source"]


def torch_npu_rows():
    """Ascend/pytorch's torch_npu <-> CANN tables (active, then historical) as the matrix has it."""
    text = TORCH_NPU_FILE.read_text()
    rows = []
    for heading, source in (("## TorchNPU version mapping table", TORCH_NPU_ACTIVE),
                            ("</summary>", TORCH_NPU_HISTORY)):
        for cells in markdown_rows(text, heading):
            torch_npu = cells[0].replace("(beta)", "").strip()
            rows.append((torch_npu, cells[2], cells[3].replace("CANN ", ""), source))
    return rows


def test_the_torch_npu_table_is_ascends_with_the_same_values():
    rows = torch_npu_rows()
    assert len(rows) == 62
    assert list(TORCH_NPU_CANN) == rows


def requires_dist():
    """{vllm-ascend version: {requirement name: specifier}} of the PyPI Requires-Dist fixture."""
    releases, current = {}, None
    for line in REQUIRES_FILE.read_text().split("\n"):
        heading = re.match(r"## vllm-ascend (\S+)", line)
        if heading:
            current = releases.setdefault(heading.group(1), {})
        elif line.startswith("## "):
            current = None
        elif current is not None and line.startswith("Requires-Dist: "):
            match = re.match(r"Requires-Dist: ([A-Za-z0-9_.-]+)\s*(.*)", line)
            current[match.group(1).replace("_", "-").lower()] = match.group(2)
    return releases


def test_resolved_releases_agree_with_their_wheels_requirements():
    published = requires_dist()
    assert set(published) - set(known_releases()) == PYPI_NOT_IN_MATRIX
    checked = []
    for version, requires in published.items():
        if version in PYPI_NOT_IN_MATRIX:
            continue
        release = resolve(version)
        assert requires["torch-npu"] == "==" + release["torch_npu"], version
        assert in_specifier(release["torch"], requires["torch"]), version
        if "triton-ascend" in requires:
            assert requires["triton-ascend"] == "==" + release["triton_ascend"], version
        checked.append(version)
    assert sorted(checked, key=pep440) == ["0.7.3", "0.7.3.post1", "0.9.1", "0.10.2rc1",
                                           "0.11.0", "0.13.0", "0.18.0", "0.23.0", "0.23.0.post1"]


def test_every_release_resolves_and_is_consistent():
    cann_versions = {AscendVersion(v) for v in known_cann()}
    for version in known_releases():
        release = resolve(version)
        assert release["vllm_ascend"] == version
        # torch_npu X.Y.Z pins torch X.Y.Z (its Requires-Dist: torch==X.Y.Z+cpu on x86_64)
        assert pep440(release["torch_npu"]).release == pep440(release["torch"]).release, version
        assert AscendVersion(release["cann"]) in cann_versions
        assert in_specifier("3.10", release["python"]) or in_specifier("3.9", release["python"])
        assert all(pep440(v) for v in [release["vllm"], *release["accepted"].get("vllm", [])])
        assert release["sources"]["release"]
        assert (release["driver"] is None) == (release["cann"] in CANN_WITHOUT_DRIVER_DATA)


def test_inconsistencies_between_the_tables_are_reported():
    found = {}
    for version in known_releases():
        release = resolve(version)
        for note in release["notes"]:
            if note.startswith("Ascend/pytorch pairs CANN"):
                found[version] = (release["cann"], release["torch_npu"])
                assert f"not with this release's {release['torch_npu']}" in note
    assert found == TORCH_NPU_NOT_PAIRED_WITH_CANN
    assert resolve("0.8.4rc2")["notes"] == [
        "Ascend/pytorch pairs CANN 8.0.0 with torch_npu 2.4.0.post2, 2.3.1.post4, 2.1.0.post10, "
        "not with this release's 2.5.1 (which it builds for CANN 8.1.RC1); vllm-ascend's pairing "
        "is followed"]
    assert resolve("0.11.0")["notes"] == [
        "no NPU driver pairing is recorded for CANN 8.3.RC2, so the driver and firmware are not "
        "checked against it"]


def test_disagreements_name_both_sides():
    for item in DISAGREEMENTS:
        release = resolve(item["vllm_ascend"])
        [recorded] = [d for d in release["disagreements"] if d["field"] == item["field"]]
        assert recorded["policy"] != recorded["value"]
        assert recorded["winner"] == release[item["field"]]
        assert sorted(release["accepted"][item["field"]]) == sorted([recorded["policy"],
                                                                     recorded["value"]])
        assert item["source"] in release["sources"]["disagreements"] and item["why"]


def test_the_policy_wins_unless_the_release_requirements_say_otherwise():
    release = resolve("0.18.0")
    assert (release["torch_npu"], release["triton_ascend"]) == ("2.9.0", "3.2.0")
    assert release["accepted"]["torch_npu"] == ["2.9.0.post1+git4c901a4", "2.9.0"]
    assert resolve("0.11.0")["torch_npu"] == "2.7.1"
    assert resolve("0.13.0")["torch_npu"] == "2.8.0.post2"  # its installation page says 2.8.0
    assert resolve("0.13.0")["disagreements"][0]["winner"] == "2.8.0.post2"
    assert resolve("0.23.0")["disagreements"] == [] and resolve("0.23.0")["accepted"] == {}


def test_driver_and_firmware_data_read():
    for cann, drivers, source in CANN_DRIVERS:
        assert AscendVersion(cann) and drivers and source
        assert [floor_key(pattern) for pattern in drivers]  # raises when one is not a pattern
    for driver, firmware, source in HDK_FIRMWARE:
        assert floor_key(driver) and AscendVersion(firmware) and source
    names = [name for chip in CHIPS for name in chip["names"]]
    assert len(names) == len(set(names))


# --- resolve ----------------------------------------------------------------------------------


def test_resolve_a_release():
    release = resolve("0.23.0")
    assert {k: release[k] for k in RELEASE_FIELDS} == {
        "vllm_ascend": "0.23.0", "vllm": "0.23.0", "python": ">=3.10,<3.13", "cann": "9.1.0",
        "torch": "2.10.0", "torch_npu": "2.10.0.post4", "triton_ascend": "3.2.2",
        "mooncake": "0.3.11.post1"}
    assert release["driver"]["recommended"] == "26.1.0"
    assert release["driver"]["min"] == "25.5.x"
    assert release["firmware"]["by_driver"] == {"25.5.1": "7.8.0.6.201"}
    assert [c["support"] for c in release["chips"]] == [
        "supported", "supported", "experimental", "unsupported"]
    assert set(release["sources"]) == {"release", "disagreements", "torch_npu_cann", "driver",
                                       "firmware", "chips"}
    assert resolve("v0.23.0") == release == resolve(" 0.23.0+local ")


def test_resolve_older_and_post_releases():
    release = resolve("0.9.1")
    assert (release["cann"], release["torch_npu"], release["triton_ascend"]) == (
        "8.2.RC1", "2.5.1.post1", None)
    assert release["driver"]["known"] == ["25.0.rc1.x"]
    assert release["firmware"]["known"] == ["7.7.0.1.231"]
    post = resolve("0.23.0.post1")
    assert (post["cann"], post["torch_npu"], post["triton_ascend"]) == (
        "9.1.0", "2.10.0.post4", "3.2.2")
    assert "PyPI vllm-ascend 0.23.0.post1 Requires-Dist" in post["sources"]["release"]
    assert resolve("0.10.1rc1")["accepted"]["vllm"] == ["0.10.1", "0.10.1.1"]
    assert resolve("0.11.0rc0")["vllm"] == "0.11.0rc3"


def test_an_unknown_release_lists_the_nearest():
    with pytest.raises(CompatError) as error:
        resolve("0.12.0")
    assert str(error.value) == (
        "vllm-ascend 0.12.0 is not in the compatibility matrix; the nearest known are "
        "0.11.0rc3, 0.11.0, 0.12.0rc1 below and 0.13.0rc1, 0.13.0rc2, 0.13.0rc3 above: use one "
        "of them, or add it with its source to plugins/module_utils/_compat_matrix.py")
    with pytest.raises(CompatError, match=r"0.30.0 is not .* known are 0.23.0rc1, 0.23.0, "
                                          r"0.23.0.post1 below: "):
        resolve("0.30.0")
    with pytest.raises(CompatError, match=r"known are 0.7.3, 0.7.3.post1, 0.8.4rc2 above"):
        resolve("0.7.1rc1")
    with pytest.raises(CompatError, match=r"vllm_ascend: 'latest' is not a PEP 440 version"):
        resolve("latest")


# --- check ------------------------------------------------------------------------------------


def test_a_matching_stack_has_no_violations():
    result = check("0.23.0", vllm="0.23.0+empty", torch="2.10.0+cpu", torch_npu="2.10.0.post4",
                   cann="9.1.0", driver="26.1.0", firmware="7.8.0.6.201", python="3.12.3",
                   chip="910B3")
    assert result["violations"] == [] and result["warnings"] == []
    assert result["release"] == resolve("0.23.0")


def test_violation_sentences_name_both_sides_and_the_fix():
    result = check("0.23.0", vllm="0.22.1+empty", torch="2.9.0", torch_npu="2.9.0",
                   python="3.9.18", cann="8.5.0")
    assert result["violations"] == [
        "vllm-ascend 0.23.0 needs vllm 0.23.0; this host has 0.22.1+empty: reinstall the "
        "python_stack for release v0.23.0.",
        "vllm-ascend 0.23.0 needs torch 2.10.0; this host has 2.9.0: reinstall the "
        "python_stack for release v0.23.0.",
        "vllm-ascend 0.23.0 needs torch_npu 2.10.0.post4; this host has 2.9.0: reinstall the "
        "python_stack for release v0.23.0.",
        "vllm-ascend 0.23.0 needs Python >=3.10,<3.13; this host has 3.9.18: build the "
        "release's venv with a Python in that range.",
        "vllm-ascend 0.23.0 needs CANN 9.1.0; this host has 8.5.0: install CANN 9.1.0 "
        "(toolkit, kernels/ops and NNAL) with the cann role.",
    ]
    for sentence in result["violations"]:
        assert sentence.count("; this host has ") == 1 and sentence.endswith(".")


def test_local_versions_and_accepted_alternatives():
    assert check("0.22.1rc1", vllm="0.22.1+empty", torch="2.10.0+cpu")["violations"] == []
    assert check("0.10.1rc1", vllm="0.10.1.1")["violations"] == []
    assert check("0.18.0", torch_npu="2.9.0.post1+git4c901a4", cann="8.5.1")["violations"] == []
    assert check("0.18.0", torch_npu="2.9.0")["violations"] == []
    [violation] = check("0.18.0", torch_npu="2.9.0.post2")["violations"]
    assert violation == ("vllm-ascend 0.18.0 needs torch_npu 2.9.0 (or 2.9.0.post1+git4c901a4); "
                         "this host has 2.9.0.post2: reinstall the python_stack for release "
                         "v0.18.0.")
    assert check("0.10.1rc1", vllm="0.10.2")["violations"] == [
        "vllm-ascend 0.10.1rc1 needs vllm 0.10.1 (or 0.10.1.1); this host has 0.10.2: reinstall "
        "the python_stack for release v0.10.1rc1."]
    assert check("0.9.1", vllm="0.9.1", python="3.11")["violations"] == []


def test_torch_npu_built_for_another_cann():
    result = check("0.9.1", torch_npu="2.7.1", cann="9.0.0")
    assert result["violations"][-1] == (
        "torch_npu 2.7.1 is built for CANN 8.3.RC1 (Ascend/pytorch's compatibility table); this "
        "host has CANN 9.0.0: reinstall the python_stack for release v0.9.1, or use a torch_npu "
        "built for CANN 9.0.0 (2.9.0.post2, 2.8.0.post4, 2.7.1.post4).")
    assert len(result["violations"]) == 3
    # The release's own pairing is vllm-ascend's word: never flagged, reported in its notes.
    assert check("0.8.4rc2", torch_npu="2.5.1", cann="8.0.0")["violations"] == []
    # A torch_npu the table does not list, or a CANN it does not cover, says nothing more.
    assert len(check("0.22.1rc1", torch_npu="2.10.0", cann="9.0.1")["violations"]) == 1
    assert len(check("0.11.0", torch_npu="2.8.0", cann="8.3.RC2")["violations"]) == 1


def test_an_unknown_cann_lists_the_nearest():
    with pytest.raises(CompatError) as error:
        check("0.23.0", cann="8.4.0")
    assert str(error.value).startswith(
        "CANN 8.4.0 is not in the compatibility matrix; the nearest known are 8.2.RC1, 8.3.RC1, "
        "8.3.RC2 below and 8.5.0, 8.5.1, 8.5.2 above: ")
    with pytest.raises(CompatError, match="cann: 'latest' is not an Ascend version"):
        check("0.23.0", cann="latest")


@pytest.mark.parametrize(("option", "value"), [
    ("vllm", "main"), ("torch", "two"), ("torch_npu", "x"), ("driver", "24.1"),
    ("firmware", "7.x"), ("python", "three"),
])
def test_values_that_are_not_versions_name_the_option(option, value):
    with pytest.raises(CompatError, match=rf"^{option}: "):
        check("0.23.0", **{option: value})


def test_driver_against_the_release_cann():
    old = check("0.23.0", driver="24.1.rc2")
    assert old["violations"] == [
        "CANN 9.1.0 needs NPU driver 25.5.x or newer (pairs: 26.1.0, 25.5.x, 25.7.rc1.x, "
        "26.0.rc1.x); this host has 24.1.rc2: upgrade the driver and firmware to Ascend HDK "
        "26.1.0 with the npu_driver role."]
    clean = {"release": resolve("0.23.0"), "violations": [], "warnings": []}
    for driver in ("25.5.0", "25.5.5", "26.0.rc1.1", "26.1.0"):
        assert check("0.23.0", driver=driver) == clean
    assert check("0.9.0rc1", driver="24.1.rc2.2")["violations"] == []  # CANN 8.1.RC1
    assert check("0.8.4rc2", driver="24.1.rc1.b030")["violations"] == [
        "CANN 8.0.0 needs NPU driver 24.1.rc2.x or newer (pairs: 24.1.rc2.x); this host has "
        "24.1.rc1.b030: upgrade the driver and firmware to Ascend HDK 24.1.rc2.x with the "
        "npu_driver role."]
    newer = check("0.9.1", driver="25.5.1")
    assert newer["violations"] == [] and newer["warnings"] == [
        "NPU driver 25.5.1 is newer than the oldest driver CANN 8.2.RC1 pairs with but not one "
        "of its known pairs (25.0.rc1.x): check Huawei's compatibility notes for this pair."]
    assert check("0.11.0", driver="20.0.0")["violations"] == []  # no pairing recorded for 8.3.RC2


def test_firmware_against_the_release_cann():
    [violation] = check("0.22.1rc1", firmware="7.7.0.1.231")["violations"]
    assert violation == (
        "CANN 9.0.0 needs NPU firmware 7.8.0.6.201 or newer (the firmware of its paired Ascend "
        "HDK: 7.8.0.6.201); this host has 7.7.0.1.231: upgrade the firmware with the npu_driver "
        "role.")
    assert check("0.22.1rc1", firmware="7.8.0.6.201")["violations"] == []
    assert check("0.22.1rc1", firmware="7.9.0.1.1")["warnings"] == [
        "NPU firmware 7.9.0.1.1 is not a firmware known to pair with CANN 9.0.0 (7.8.0.6.201)."]


def version_info_value(key):
    """The first `key=value` of the MindCluster fixture (real driver/firmware version.info)."""
    for line in MIND_CLUSTER_FILE.read_text().split("\n"):
        if line.startswith(key + "="):
            return line.split("=", 1)[1]
    raise AssertionError(key)


def test_driver_and_firmware_ranges_from_real_version_info():
    # A recorded host: driver 24.1.rc1 (fw range [7.0.0,7.2.99]) with firmware 7.1.0.11.220,
    # whose own range names only 23.0.rc3.x and 23.0.0.x drivers.
    driver, firmware = version_info_value("Version"), "7.1.0.11.220"
    result = check("0.9.1", driver=driver, firmware=firmware,
                   driver_compatible_fw=version_info_value("compatible_version_fw"),
                   firmware_compatible_drv=version_info_value("compatible_version_drv"))
    range_violations = [v for v in result["violations"] if "accepts" in v]
    assert range_violations == [
        "NPU firmware 7.1.0.11.220 accepts drivers [23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.] (its "
        "compatible_version_drv); this host has driver 24.1.rc1: install the driver of the "
        "firmware's Ascend HDK release with the npu_driver role."]
    [fw] = [v for v in check("0.9.1", driver="24.1.rc1", firmware="7.3.0.1.231",
                             driver_compatible_fw="[7.0.0,7.2.99]")["violations"]
            if "accepts" in v]
    assert fw.startswith("NPU driver 24.1.rc1 accepts firmware [7.0.0,7.2.99] (its "
                         "compatible_version_fw); this host has firmware 7.3.0.1.231: ")
    assert "7.3.0.1.231" not in AscendRange("[7.0.0,7.2.99]")


def test_hdk_pairs_and_lone_ranges_warn():
    result = check("0.9.0rc1", driver="24.1.rc2", firmware="7.1.0.6.220")
    assert result["warnings"] == [
        "NPU driver 24.1.rc2 comes with firmware 7.3.0.1.231 in its Ascend HDK release; this "
        "host has 7.1.0.6.220: pass driver_compatible_fw or firmware_compatible_drv (from "
        "version.info) to check the pair."]
    assert check("0.9.0rc1", driver="24.1.rc2",
                 driver_compatible_fw="[7.0.0,7.2.99]")["warnings"] == [
        "driver_compatible_fw and firmware_compatible_drv need both driver and firmware, so "
        "they were not checked."]
    with pytest.raises(CompatError, match=r"^driver_compatible_fw: "):
        check("0.9.1", driver="24.1.rc1", firmware="7.1.0.6.220",
              driver_compatible_fw="[V100R001C30]")


@pytest.mark.parametrize("chip", ["910B3", "910B4", "Ascend910B2C", "ascend 910b1", "910B4_1",
                                  "Ascend910", "Ascend910_9391"])
def test_supported_chips(chip):
    assert check("0.23.0", chip=chip) == {"release": resolve("0.23.0"), "violations": [],
                                          "warnings": []}


def test_experimental_and_unsupported_chips():
    assert check("0.23.0", chip="310P3")["warnings"] == [
        "310P3 is an Atlas 300I Duo (Ascend 310P) chip, which vllm-ascend supports experimentally "
        "only."]
    assert check("0.23.0", chip="910B")["violations"] == [
        "vllm-ascend 0.23.0 runs on Atlas A2 (Ascend 910B) and Atlas A3 (Ascend 910C); this host "
        "has 910B, of the first-generation Ascend 910 (Atlas 800 training servers 9000/9010), "
        "which it does not support: serve from Atlas A2 or A3 servers instead."]
    assert check("0.7.3", chip="Ascend 910ProB")["violations"][0].startswith(
        "vllm-ascend 0.7.3 runs on Atlas A2 (Ascend 910B) and Atlas A3 (Ascend 910C); this host "
        "has Ascend 910ProB, of the first-generation Ascend 910")
    [unknown] = check("0.23.0", chip="H100")["violations"]
    assert unknown.startswith("vllm-ascend 0.23.0 runs on Atlas A2 (Ascend 910B) and Atlas A3 "
                              "(Ascend 910C); this host has H100, which is not a known Ascend "
                              "chip name: pass the name npu-smi prints (one of 910B1, ")


def test_pep440_equality_decides():
    assert public("2.10.0+cpu") == public("2.10.0") == public("2.10")
    assert check("0.23.0", torch="2.10+cpu", vllm="0.23.0+g1234.empty")["violations"] == []
