"""Every release file (releases/*.yml) is complete, consistent with its own file names, and agrees
with the compatibility matrix (plugins/module_utils/_compat.py)."""

import pathlib
import re
import sys

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / ".state" / "collections"))

from ansible_collections.ascend_fleet.vllm.plugins.module_utils import _compat

RELEASE_FILES = sorted((REPO / "releases").glob("*.yml"))
ARCHES = ("x86_64", "aarch64")
INSTALLERS = ("driver", "firmware", "toolkit", "kernels", "nnal")
WHEELS = ("torch", "torch_npu", "vllm", "vllm_ascend")
# Huawei's file names; {v} the version, {a} the arch as the file writes it.
INSTALLER_NAMES = {
    "driver": r"Ascend-hdk-910b-npu-driver_{v}_linux-{a}\.run",
    "firmware": r"Ascend-hdk-910b-npu-firmware_{v}\.run",
    "toolkit": r"Ascend-cann-toolkit_{v}_linux-{a}\.run",
    "kernels": r"Ascend-cann-(?:kernels-910b|910b-ops)_{v}_linux-{a}\.run",
    "nnal": r"Ascend-cann-nnal_{v}_linux-{a}\.run",
}
WHEEL_NAME = re.compile(r"^(?P<dist>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?"
                        r"-(?P<python>[^-]+)-(?P<abi>[^-]+)-(?P<platform>[^-]+)\.whl$")


def load(path):
    return yaml.safe_load(path.read_text())


def artifacts(release):
    return {artifact["component"]: artifact for artifact in release["artifacts"]}


def wheel_version(artifact, arch):
    return WHEEL_NAME.match(artifact["files"][arch])["version"]


def test_the_current_and_previous_stable_releases_are_there():
    names = {path.stem for path in RELEASE_FILES}
    assert {"v0.18.0", "v0.23.0", "v0.23.0.post1"} <= names


@pytest.mark.parametrize("path", RELEASE_FILES, ids=lambda p: p.stem)
def test_release_is_complete_and_matches_its_file_names(path):
    release = load(path)
    versions = release["versions"]
    assert release["name"] == path.stem == f"v{versions['vllm_ascend']}"
    found = artifacts(release)
    assert len(found) == len(release["artifacts"]), "one entry per component"
    assert set(INSTALLERS + WHEELS) <= set(found)
    for component, artifact in found.items():
        assert set(artifact["files"]) == set(ARCHES), component
        key = "cann" if component in ("toolkit", "kernels", "nnal") else component
        assert str(artifact["version"]) == str(versions[key]), component
        for arch, digest in (artifact.get("sha256") or {}).items():
            assert arch in ARCHES and re.fullmatch(r"[0-9a-f]{64}", digest), component
        for arch in ARCHES:
            name = artifact["files"][arch]
            if component in INSTALLERS:
                pattern = INSTALLER_NAMES[component].format(
                    v=re.escape(str(artifact["version"])),
                    a="x86-64" if component == "driver" and arch == "x86_64" else arch)
                assert re.fullmatch(pattern, name), name
            else:
                parts = WHEEL_NAME.match(name)
                assert parts, name
                assert parts["dist"] == component, name
                assert parts["version"].split("+")[0] == str(artifact["version"]), name
                assert parts["platform"].endswith(arch), name


@pytest.mark.parametrize("path", RELEASE_FILES, ids=lambda p: p.stem)
def test_torch_is_the_build_torch_npu_pins(path):
    # torch_npu's Requires-Dist: torch==X+cpu on x86_64 (PyTorch CPU index), torch==X on aarch64.
    torch = artifacts(load(path))["torch"]
    assert wheel_version(torch, "x86_64") == f"{torch['version']}+cpu"
    assert wheel_version(torch, "aarch64") == str(torch["version"])


@pytest.mark.parametrize("path", RELEASE_FILES, ids=lambda p: p.stem)
def test_release_agrees_with_the_compatibility_matrix(path):
    release = load(path)
    versions = {key: str(value) for key, value in release["versions"].items()}
    result = _compat.check(
        versions["vllm_ascend"], vllm=versions["vllm"], torch=versions["torch"],
        torch_npu=versions["torch_npu"], cann=versions["cann"], driver=versions["driver"],
        firmware=versions["firmware"])
    assert result["violations"] == []
    assert result["warnings"] == []
    row = result["release"]
    assert release["python"].replace(" ", "") == row["python"]
    if row["triton_ascend"]:
        accepted = row["accepted"].get("triton_ascend", [row["triton_ascend"]])
        assert versions["triton_ascend"] in accepted
        assert "triton_ascend" in artifacts(release)
    # The driver and firmware are a pairing the matrix knows, not merely an accepted one.
    assert row["firmware"]["by_driver"].get(versions["driver"]) == versions["firmware"]
