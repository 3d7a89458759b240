# Firmware package (Ascend-hdk-910b-npu-firmware_<ver>.run): firmware/version.info, the
# Firmware_* keys of /etc/ascend_install.info and firmware/script/uninstall.sh. It flashes through
# the driver's upgrade-tool, so it needs the driver. Exit 0 when installed, 2 when it replaced
# older firmware (the new image only runs after a reboot), 1 on failure.

firmware_parse_args() {
    MODE=""; QUIET=n; VERSION_ONLY=n
    local arg
    for arg in "$@"; do
        case "$arg" in
            --full|--upgrade|--uninstall)
                [ -n "$MODE" ] && fail "ERR_NO:0x0004;ERR_DES:only support one type: full/upgrade/uninstall, operation failed!"
                MODE=${arg#--} ;;
            --quiet) QUIET=y ;;
            --nox11) ;;
            --version) VERSION_ONLY=y ;;
            *) unrecognized "$arg" ;;
        esac
    done
    case "$MODE" in upgrade) OPERATION=Upgrade ;; uninstall) OPERATION=Uninstall ;; esac
}

# Number of chips the simulated node has (the state's cards), 8 without a state.
chip_count() {
    local count
    count=$(state_get cards | grep -c .)
    [ "$count" -gt 0 ] 2>/dev/null || count=8
    echo "$count"
}

firmware_install() {
    local install_path=$1 replacing=$2 target info chips
    target=$(sim_path "$install_path")
    chips=$(chip_count)
    stage_begin "$target"
    must cp -a "$PKG_DIR/tree/firmware" "$STAGE_DIR/firmware"
    must copy_scripts "$STAGE_DIR/firmware/script"
    msg INFO "upgradePercentage: 4%"
    log_only INFO "upgrade-tool --device_index -1 --component -1 --path $install_path/firmware"
    msg INFO "upgradePercentage: 51%"
    maybe_fail_midway "upgrade-tool: flash of the firmware image failed" \
        "The firmware of [$chips] chips upgrade failed" \
        "Firmware package installed failed, please retry!"
    msg INFO "upgradePercentage: 86%"
    [ "$replacing" = y ] && rm -rf "$target/firmware"
    must mv "$STAGE_DIR/firmware" "$target/firmware"
    stage_done
    info=$(sim_path "$INSTALL_INFO")
    [ -n "$(info_get UserName "$info")" ] || info_set UserName HwHiAiUser "$info"
    [ -n "$(info_get UserGroup "$info")" ] || info_set UserGroup HwHiAiUser "$info"
    info_set Firmware_Install_Type full "$info"
    info_set Firmware_Install_Path_Param "$install_path" "$info"
    msg INFO "upgradePercentage: 100%"
    msg INFO "The firmware of [$chips] chips are successfully upgraded."
    msg INFO "Firmware package installed successfully! Reboot now or after driver installation for the installation/upgrade to take effect."
    op_log "$OPERATION" success
}

firmware_remove() {
    local install_path=$1 info
    rm -rf "$(sim_path "$install_path")/firmware"
    rmdir "$(sim_path "$install_path")" 2>/dev/null
    info=$(sim_path "$INSTALL_INFO")
    info_del Firmware_Install_Type "$info"
    info_del Firmware_Install_Path_Param "$info"
    info_prune "$info"
    msg INFO "Firmware package uninstalled successfully! Uninstallation takes effect immediately."
    op_log Uninstall success
}

run_installer() {
    local info drv_path fw_path old_version install_path replacing=n
    require_root
    if [ $# -eq 0 ]; then
        format_line ERROR "ERR_NO:0x0004;ERR_DES: Unrecognized parameters. Try './xxx.run --help' for more information."
        exit 1
    fi
    OPERATION=Install
    msg INFO "Start time: $START_TIME"
    msg INFO "LogFile: $SECLOG_DIR/$LOG_NAME"
    msg INFO "OperationLogFile: $SECLOG_DIR/operation.log"
    info=$(sim_path "$INSTALL_INFO")
    drv_path=$(info_get Driver_Install_Path_Param "$info")
    fw_path=$(info_get Firmware_Install_Path_Param "$info")
    [ -n "$fw_path" ] && old_version=$(version_of "$(sim_path "$fw_path")/firmware/version.info")
    [ -n "$old_version" ] || fw_path=""
    [ -n "$old_version" ] && msg INFO "base version is $old_version."
    firmware_parse_args "$@"
    if [ "$VERSION_ONLY" = y ]; then
        msg INFO "firmware version :$PKG_VERSION"
        msg INFO "End time: $(date +"%Y-%m-%d %H:%M:%S")"
        exit 0
    fi
    [ -n "$MODE" ] || fail "ERR_NO:0x0004;ERR_DES:param need used with full/upgrade."
    if [ "$MODE" = uninstall ]; then
        [ -n "$fw_path" ] || fail "ERR_NO:0x0080;ERR_DES:Firmware package is not installed on this device, uninstall failed"
        firmware_remove "$fw_path"
        msg INFO "End time: $(date +"%Y-%m-%d %H:%M:%S")"
        exit 0
    fi
    msg WARNING "Do not power off or restart the system during the installation/upgrade"
    if [ "$MODE" = upgrade ] && [ -z "$fw_path" ]; then
        fail "ERR_NO:0x0080;ERR_DES:Firmware package is not installed on this device, upgrade failed"
    fi
    if [ -z "$drv_path" ] || [ ! -x "$(sim_path "$drv_path")/driver/tools/upgrade-tool" ]; then
        fail "ERR_NO:0x0080;ERR_DES:The driver package is not installed (driver/tools/upgrade-tool not found), please install the driver first"
    fi
    install_path=${fw_path:-$drv_path}
    if [ -n "$fw_path" ]; then
        replacing=y
        [ "$MODE" = full ] && confirm "Firmware package has been installed on the path $fw_path, the version is $old_version, and the version of this package is $PKG_VERSION,do you want to continue?  [y/n] "
    fi
    firmware_install "$install_path" "$replacing"
    msg INFO "End time: $(date +"%Y-%m-%d %H:%M:%S")"
    [ "$replacing" = y ] && exit 2
    exit 0
}

# firmware/script/uninstall.sh [--quiet]
run_uninstall_script() {
    local arg install_path
    require_root
    RUN_NAME="Ascend-firmware-$PKG_VERSION"
    OPERATION=Uninstall
    for arg in "$@"; do
        case "$arg" in
            --quiet|--uninstall) ;;
            *) fail "ERR_NO:0x0004;ERR_DES: Unrecognized parameters: $arg. Only support '--quiet'." ;;
        esac
    done
    install_path=$(cd "$SCRIPT_DIR/../.." && pwd | sed "s|^$SIM_ROOT||")
    msg INFO "base version is $(version_of "$(sim_path "$install_path")/firmware/version.info")."
    firmware_remove "$install_path"
}
