"""Version ordering: Huawei's scheme (CANN, driver, firmware), its ranges, and PEP 440."""

import pathlib

import pytest
from ansible_collections.ascend_fleet.vllm.plugins.module_utils import _versions
from ansible_collections.ascend_fleet.vllm.plugins.module_utils._versions import (
    AscendRange,
    AscendVersion,
    MissingPackaging,
    VersionError,
    at_most,
    below,
    display,
    floor_key,
    in_specifier,
    matches,
    neighbours,
    pep440,
    public,
)

VERSION_FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "versions"


def version_info(path_marker):
    """The key=value lines after `cat <path_marker>` in the MindCluster fixture, as a dict."""
    text = (VERSION_FIXTURES / "mind-cluster-faultdiag-driver-firmware-cann-version-files.txt")
    lines = text.read_text().split("\n")
    start = lines.index(f"cat {path_marker}") + 1
    values = {}
    for line in lines[start:]:
        if "=" not in line:
            break
        key, value = line.split("=", 1)
        values[key] = value
    return values


def ordered(texts):
    """The versions sorted, as the texts they were written as."""
    return [str(v) for v in sorted(AscendVersion(text) for text in reversed(texts))]


# --- Huawei's scheme --------------------------------------------------------------------------


@pytest.mark.parametrize("chain", [
    ["8.0.RC1", "8.0.RC3", "8.0.0", "8.1.RC1", "8.3.RC2", "8.5.0", "8.5.1", "9.0.0"],
    ["8.0.RC1", "8.0.RC2", "8.0.RC3.alpha003", "8.0.RC3.beta1", "8.0.RC3", "8.0.0", "8.1.RC1"],
    ["7.0.RC1", "7.0.0", "7.0.1", "8.0.RC1.alpha001", "8.0.RC1.beta1", "8.0.RC1"],
    ["6.3.RC2", "6.3.RC3", "6.3.RC3.1", "7.0.RC1"],
    ["8.5.0-beta.1", "8.5.0", "9.0.0-alpha.2", "9.0.0-beta.1", "9.0.0-beta.2", "9.0.0",
     "9.0.1", "9.1.0-beta.3", "9.1.0"],
    ["24.1.rc2", "24.1.rc2.2", "24.1.0", "25.0.rc1", "25.0.rc1.1", "25.5.1"],
    ["23.0.rc3", "23.0.rc3.2", "23.0.0", "23.0.3", "24.1.rc1", "24.1.rc1.b030", "24.1.rc1.1",
     "24.1.rc2"],
    ["6.4.0.4.220", "7.1.0.5.220", "7.1.0.6.220", "7.1.0.11.220", "7.3.0.1.231", "7.7.0.1.231",
     "7.8.0.6.201"],
])
def test_order(chain):
    assert ordered(chain) == chain
    versions = [AscendVersion(text) for text in chain]
    assert all(a < b for a, b in zip(versions, versions[1:]))


def test_the_documented_examples():
    assert AscendVersion("8.0.RC3") < AscendVersion("8.0.0") < AscendVersion("8.1.RC1")
    assert AscendVersion("24.1.rc2") < AscendVersion("24.1.rc2.2") < AscendVersion("24.1.0")
    assert AscendVersion("7.1.0.11.220") < AscendVersion("7.8.0.6.201")
    assert AscendVersion("25.0.rc1.1") > AscendVersion("25.0.rc1")
    assert max(map(AscendVersion, ["8.5.1", "9.0.0", "8.3.RC2"])) == AscendVersion("9.0.0")


def test_case_spelling_and_text():
    assert AscendVersion("8.3.rc2") == AscendVersion("8.3.RC2")
    assert hash(AscendVersion("8.3.rc2")) == hash(AscendVersion("8.3.RC2"))
    assert AscendVersion("9.0.0-beta.1") == AscendVersion("9.0.0.beta1")
    assert AscendVersion("25.05.1") == AscendVersion("25.5.1")
    assert str(AscendVersion(" 8.3.RC2 ")) == "8.3.RC2"
    assert AscendVersion("8.0.0") != "8.0.0"
    assert len({AscendVersion("8.0.RC3"), AscendVersion("8.0.rc3"), AscendVersion("8.0.0")}) == 2


@pytest.mark.parametrize("text", [
    "8.5", "8", "", "abc", "8.x.0", "8.0.RC", "V100R001C30", "8.0.0.rc1", "8.0.alpha1",
    "8.0.0.beta1.2", "8.1.T6", "24.1.rc1.b030.1",
])
def test_not_versions(text):
    with pytest.raises(VersionError, match="is not an Ascend version"):
        AscendVersion(text)


def test_comparing_with_something_else_is_not_supported():
    with pytest.raises(TypeError):
        assert AscendVersion("8.0.0") < "8.1.0"


def test_patterns():
    assert matches("24.1.rc2.2", "24.1.rc2.") and matches("24.1.rc2", "24.1.rc2.")
    assert not matches("24.1.rc2", "24.1.rc2.2") and not matches("24.1.0", "24.1.rc2.")
    assert matches("25.5.0", "25.5.") and matches("25.5.5", "25.5.")
    assert not matches("25.6.0", "25.5.")
    assert matches("26.0.RC1", "26.0.rc1") and matches(AscendVersion("23.0.3"), "23.0.3")
    assert below("24.1.rc1", "24.1.rc2.") and not below("24.1.rc2.2", "24.1.rc2.")
    assert below("25.0.rc1.1", "25.5.") and not below("25.5.0", "25.5.")
    assert not below("26.1.0", "25.5.") and below("25.5.0", "25.5.1")
    assert at_most("23.0.rc3.5", "23.0.rc3.") and not at_most("23.0.0", "23.0.rc3.")
    assert sorted(["26.1.0", "25.5.", "25.7.rc1.", "26.0.rc1."], key=floor_key) == [
        "25.5.", "25.7.rc1.", "26.0.rc1.", "26.1.0"]
    assert display("25.5.") == "25.5.x" and display("26.1.0") == "26.1.0"
    with pytest.raises(VersionError, match="not a version pattern"):
        matches("25.5.1", "25.")


def test_ranges_of_real_version_info_files():
    driver = version_info("/usr/local/Ascend/driver/version.info")
    firmware = version_info("/usr/local/Ascend/firmware/version.info")
    assert driver["compatible_version_fw"] == "[7.0.0,7.2.99]"
    fw_range = AscendRange(driver["compatible_version_fw"])
    assert firmware["Version"] in fw_range
    assert AscendVersion("7.0.0") in fw_range and "7.2.99" in fw_range
    assert "7.3.0.1.231" not in fw_range and "6.4.0.4.220" not in fw_range
    assert "7.2.99.1" not in fw_range
    drv_range = AscendRange(firmware["compatible_version_drv"])
    assert str(drv_range) == "[23.0.rc3,23.0.rc3.],[23.0.0,23.0.0.]"
    assert [v in drv_range for v in ("23.0.rc3", "23.0.rc3.2", "23.0.0", "23.0.0.1")] == [
        True] * 4
    assert [v in drv_range for v in ("23.0.rc2", "23.0.1", "23.0.3", driver["Version"])] == [
        False] * 4


def test_single_version_ranges():
    assert "7.1.0.5.220" in AscendRange("[7.1.0.5.220]")
    assert "23.0.rc3.1" in AscendRange("[23.0.rc3.]")
    assert "23.0.0" not in AscendRange(" [23.0.rc3.] ")


@pytest.mark.parametrize("text", [
    "[V100R001C30],[V100R001C13]", "7.0.0,7.2.99", "[7.0.0,7.2.99", "[7.0.0,,7.2.99]", "[]",
    "[7.0.0,7.2.99]x", "[7.0.0,7.2.99],", "[7.0.0,7.]",
])
def test_not_ranges(text):
    with pytest.raises(VersionError):
        AscendRange(text)


def test_neighbours():
    texts = ("8.0.0", "8.1.RC1", "8.2.RC1", "8.3.RC1", "8.3.RC2", "8.5.0", "8.5.1", "9.0.0")
    known = [AscendVersion(v) for v in texts]
    lower, higher = neighbours(AscendVersion("8.4.0"), known)
    assert [str(v) for v in lower] == ["8.2.RC1", "8.3.RC1", "8.3.RC2"]
    assert [str(v) for v in higher] == ["8.5.0", "8.5.1", "9.0.0"]
    lower, higher = neighbours(AscendVersion("7.0.0"), known, count=2)
    assert lower == [] and [str(v) for v in higher] == ["8.0.0", "8.1.RC1"]


# --- PEP 440 ----------------------------------------------------------------------------------


def test_public_versions_drop_the_local_part():
    assert public("0.22.1+empty") == pep440("0.22.1")
    assert public("2.9.0.post1+git4c901a4") == pep440("2.9.0.post1")
    assert public("2.10.0+cpu") == pep440("2.10.0")
    assert public("0.23.0") == pep440("v0.23.0")
    assert str(public("0.11.0rc4.dev0+g8ce5d3198.d20251112.empty")) == "0.11.0rc4.dev0"


def test_pep440_order():
    chain = ["0.7.3", "0.7.3.post1", "0.8.4rc2", "0.9.1rc1", "0.9.1", "0.11.0rc0", "0.11.0",
             "0.13.0rc3", "0.13.0", "0.23.0rc1", "0.23.0", "0.23.0.post1"]
    assert sorted(chain, key=pep440) == chain
    assert pep440("2.5.1.post1.dev20250528") < pep440("2.5.1.post1")
    assert pep440("1.11.0.rc2") == pep440("1.11.0rc2")


def test_python_specifiers():
    assert in_specifier("3.12.3", ">=3.10,<3.13")
    assert not in_specifier("3.12", ">=3.10,<3.12")
    assert in_specifier("3.9.18", ">=3.9,<3.12") and not in_specifier("3.13.0", ">=3.10,<3.13")
    with pytest.raises(VersionError, match="not a PEP 440 version specifier"):
        in_specifier("3.11", "3.10 to 3.12")


def test_not_pep440():
    with pytest.raises(VersionError, match="'main' is not a PEP 440 version"):
        pep440("main")


def test_missing_packaging_names_the_fix(monkeypatch):
    monkeypatch.setattr(_versions, "PACKAGING_IMPORT_ERROR", "ImportError: packaging")
    with pytest.raises(MissingPackaging, match="delegate_to: localhost"):
        public("0.23.0")
    with pytest.raises(MissingPackaging, match="'packaging' is missing"):
        in_specifier("3.11", ">=3.10")
    assert AscendVersion("8.5.0") < AscendVersion("9.0.0")  # Huawei's scheme needs no library
