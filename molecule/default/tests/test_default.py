"""What an operator checks on a freshly converged Atlas 800I A2 (8 x 910B3), from outside."""

import pathlib
import re

import yaml

RELEASE = yaml.safe_load(
    (pathlib.Path(__file__).resolve().parents[3] / "releases" / "v0.18.0.yml").read_text()
)
CARDS = range(8)
# First row of a card in `npu-smi info`: "| 0     910B3               | OK            | ..."
CARD_ROW = re.compile(r"^\| (\d+)\s+(\S+)\s+\| (\S+)\s+\|", re.M)


def test_npu_smi_lists_eight_healthy_910b3_cards(host):
    info = host.run("npu-smi info")
    assert info.rc == 0, info.stderr
    cards = CARD_ROW.findall(info.stdout)
    assert [(int(n), name, health) for n, name, health in cards] == [
        (n, "910B3", "OK") for n in CARDS
    ]
    assert f"Version: {RELEASE['versions']['driver']}" in info.stdout


def test_board_reports_the_release_driver_and_firmware(host):
    board = host.run("npu-smi info -t board -i 0")
    assert board.rc == 0, board.stderr
    fields = dict(
        (key.strip(), value.strip())
        for key, _, value in (line.partition(":") for line in board.stdout.splitlines())
    )
    assert fields["Software Version"] == RELEASE["versions"]["driver"]
    assert fields["Firmware Version"] == RELEASE["versions"]["firmware"]


def test_version_files_name_the_release(host):
    driver = host.file("/usr/local/Ascend/driver/version.info")
    firmware = host.file("/usr/local/Ascend/firmware/version.info")
    assert f"Version={RELEASE['versions']['driver']}\n" in driver.content_string
    assert f"Version={RELEASE['versions']['firmware']}\n" in firmware.content_string
    install_info = host.file("/etc/ascend_install.info").content_string
    assert "UserName=HwHiAiUser" in install_info
    assert "Driver_Install_Path_Param=/usr/local/Ascend" in install_info


def test_device_nodes_belong_to_hwhiaiuser(host):
    names = [f"/dev/davinci{n}" for n in CARDS]
    names += ["/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]
    for name in names:
        # stat's %F names the file type: these are character devices, not plain files.
        kind = host.check_output(f"stat -c %F {name}")
        assert kind == "character special file", name
        node = host.file(name)
        assert node.group == "HwHiAiUser", name
        assert node.mode == 0o660, name


def test_npu_account_exists(host):
    user = host.user("HwHiAiUser")
    assert user.exists
    assert user.group == "HwHiAiUser"
    assert user.home == "/home/HwHiAiUser"


def test_no_reboot_left_pending(host):
    assert not host.file("/run/ascend-fleet/reboot-required").exists
