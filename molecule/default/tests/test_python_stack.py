"""The release's Python stack on the converged node: its venv, exact versions, `current`."""

import json
import pathlib

import yaml

RELEASE = yaml.safe_load(
    (pathlib.Path(__file__).resolve().parents[3] / "releases" / "v0.18.0.yml").read_text()
)
ROOT = "/opt/ascend-fleet"
VENV = f"{ROOT}/releases/{RELEASE['name']}/venv"
PACKAGES = ("torch", "torch_npu", "vllm", "vllm_ascend", "triton_ascend")
# The distribution versions the release's wheel files carry (torch on x86_64 is X+cpu).
FILES = {a["component"]: a["files"]["x86_64"] for a in RELEASE["artifacts"]}
PINS = {name: FILES[name].split("-")[1] for name in PACKAGES if name in FILES}
CANN_ENV = "set -a; . /etc/ascend-fleet/cann.env; set +a; "


def test_current_points_at_the_release(host):
    current = host.file(f"{ROOT}/current")
    assert current.is_symlink and current.linked_to == f"{ROOT}/releases/{RELEASE['name']}"
    assert host.file(f"{ROOT}/current/venv/bin/python").exists


def test_venv_holds_exactly_the_release_versions(host):
    script = ("import importlib.metadata as m, json, sys; "
              "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))")
    versions = json.loads(host.check_output(f"{VENV}/bin/python -c %s " + " ".join(PINS), script))
    assert versions == PINS
    assert versions["vllm_ascend"] == RELEASE["versions"]["vllm_ascend"]


def test_torch_npu_sees_the_cards_in_the_cann_environment(host):
    code = "import torch, torch_npu; print(torch.npu.is_available(), torch.npu.device_count())"
    result = host.run(f"bash -c '{CANN_ENV}{ROOT}/current/venv/bin/python -c \"{code}\"'")
    assert result.rc == 0, result.stderr
    assert result.stdout.split() == ["True", "8"]


def test_torch_npu_refuses_to_import_without_the_cann_environment(host):
    result = host.run(f"env -u LD_LIBRARY_PATH {VENV}/bin/python -c 'import torch_npu'")
    assert result.rc == 1
    assert "libascend_hal.so: cannot open shared object file" in result.stderr


def test_the_service_account_is_in_the_npu_group(host):
    assert "HwHiAiUser" in host.user("vllm").groups
