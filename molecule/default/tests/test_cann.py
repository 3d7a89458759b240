"""The release's CANN on the converged node: installed, active, and its environment for units."""

import pathlib
import re

import yaml

RELEASE = yaml.safe_load(
    (pathlib.Path(__file__).resolve().parents[3] / "releases" / "v0.18.0.yml").read_text()
)
CANN = RELEASE["versions"]["cann"]
ROOT = "/usr/local/Ascend"
HOME = f"{ROOT}/cann-{CANN}"
ENV_FILE = "/etc/ascend-fleet/cann.env"
# systemd EnvironmentFile lines as the role writes them: KEY="value" with \ " ` $ escaped.
ENV_LINE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*="([^"\\`$]|\\["\\`$])*"$')
CLEAN_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def unit_environment(host):
    """What a systemd unit with the CANN EnvironmentFile sees."""
    out = host.check_output(
        f"systemd-run --quiet --wait --pipe -p EnvironmentFile={ENV_FILE} /usr/bin/env")
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def test_release_toolkit_is_installed_and_active(host):
    arch = host.check_output("uname -m")
    info = host.file(f"{ROOT}/ascend-toolkit/latest/{arch}-linux/ascend_toolkit_install.info")
    assert f"version={CANN}\n" in info.content_string
    for link in (f"{ROOT}/cann", f"{ROOT}/ascend-toolkit/latest"):
        assert host.file(link).is_symlink and host.file(link).linked_to == HOME


def test_kernels_are_installed_into_the_release_toolkit(host):
    assert f"version_dir={CANN}\n" in host.file(f"{HOME}/opp_kernel/version.info").content_string


def test_release_nnal_is_active(host):
    latest = host.file(f"{ROOT}/nnal/atb/latest")
    assert latest.is_symlink and latest.linked_to == f"{ROOT}/nnal/atb/{CANN}"
    version_info = host.file(f"{ROOT}/nnal/atb/latest/version.info").content_string
    assert f"Ascend-cann-atb : {CANN}\n" in version_info


def test_cann_env_links_to_the_active_versions_file(host):
    env = host.file(ENV_FILE)
    assert env.is_symlink and env.linked_to == f"/etc/ascend-fleet/cann/{CANN}.env"
    content = host.file(f"/etc/ascend-fleet/cann/{CANN}.env").content_string
    assert "Ansible managed" in content
    for line in content.splitlines():
        assert line.startswith("#") or ENV_LINE.match(line), line


def test_a_unit_gets_the_release_cann_environment(host):
    env = unit_environment(host)
    libs = env["LD_LIBRARY_PATH"].split(":")
    assert env["ASCEND_TOOLKIT_HOME"] == env["ASCEND_HOME_PATH"] == HOME
    assert env["ASCEND_OPP_PATH"] == f"{HOME}/opp"
    assert f"{HOME}/lib64" in libs and f"{ROOT}/driver/lib64/driver" in libs
    assert f"{env['ATB_HOME_PATH']}/lib" in libs


def test_env_file_holds_exactly_what_set_env_sh_produces(host):
    out = host.check_output(f"env -i {CLEAN_PATH} bash --noprofile --norc -c "
                            f"'. {HOME}/set_env.sh && . {ROOT}/nnal/atb/set_env.sh && env'")
    sourced = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    unit = unit_environment(host)
    for key in ("ASCEND_TOOLKIT_HOME", "LD_LIBRARY_PATH", "PYTHONPATH", "PATH", "ATB_HOME_PATH"):
        assert unit[key] == sourced[key], key


def test_login_shells_get_the_active_cann(host):
    assert host.check_output("bash -lc 'echo $ASCEND_HOME_PATH'") == HOME
    assert host.run("sh -lc true").rc == 0
