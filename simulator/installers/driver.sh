# Driver package (Ascend-hdk-910b-npu-driver_<ver>_linux-<arch>.run), modelled on the real
# driver's install.sh: same flags, checks, messages, /etc/ascend_install.info keys and exit codes
# (0 installed, 1 failed, 2 installed over an old driver: reboot needed, as when hot reset fails).

driver_parse_args() {
    MODE=""; QUIET=n; FOR_ALL=""; USERNAME=""; USERGROUP=""; INPUT_PATH=""; VERSION_ONLY=n
    local arg
    for arg in "$@"; do
        case "$arg" in
            --full|--upgrade|--uninstall)
                [ -n "$MODE" ] && fail "ERR_NO:0x0004;ERR_DES:only support one type: full/run/docker/devel/boot-server, operation failed!"
                MODE=${arg#--} ;;
            --quiet) QUIET=y ;;
            --nox11) ;;
            --install-for-all) FOR_ALL=yes ;;
            --install-username=*) USERNAME=${arg#*=} ;;
            --install-usergroup=*) USERGROUP=${arg#*=} ;;
            --install-path=*)
                INPUT_PATH=${arg#*=}
                [ -n "$INPUT_PATH" ] || fail "ERR_NO:0x0003;ERR_DES:install path is null, install failed"
                check_install_path "$INPUT_PATH" ;;
            --version) VERSION_ONLY=y ;;
            *) unrecognized "$arg" ;;
        esac
    done
    case "$MODE" in upgrade) OPERATION=Upgrade ;; uninstall) OPERATION=Uninstall ;; esac
}

driver_check_params() {
    [ -n "$MODE" ] || fail "ERR_NO:0x0004;ERR_DES:param need used with full/run/docker/upgrade/devel."
    if [ "$MODE" = upgrade ]; then
        [ -z "$INPUT_PATH" ] || fail "ERR_NO:0x0004;ERR_DES:install-path param need used with full/run/docker/devel."
        [ -z "$USERNAME$USERGROUP" ] || fail "ERR_NO:0x0004;ERR_DES:install-username and install-usergroup params need used with full/run/docker/devel."
    fi
    if { [ -n "$USERNAME" ] && [ -z "$USERGROUP" ]; } || { [ -z "$USERNAME" ] && [ -n "$USERGROUP" ]; }; then
        fail "ERR_NO:0x0004;ERR_DES:Username and usergroup are not specified at the same time."
    fi
    if [ "$FOR_ALL" != yes ] && { [ "$USERNAME" = root ] || [ "$USERGROUP" = root ]; }; then
        fail "ERR_NO:0x0091;ERR_DES:username not permission for root"
    fi
}

# User and group: from the flags, else from the last installation, else HwHiAiUser.
driver_check_user() {
    local info old_user old_group passwd group
    info=$(sim_path "$INSTALL_INFO")
    old_user=$(info_get UserName "$info"); old_group=$(info_get UserGroup "$info")
    if [ -n "$USERNAME" ] && [ -n "$old_user" ] && { [ "$USERNAME" != "$old_user" ] ||
            [ "$USERGROUP" != "$old_group" ]; }; then
        fail "ERR_NO:0x0095;ERR_DES:The user and group are not same with last installation,do not support overwriting installation"
    fi
    USERNAME=${USERNAME:-${old_user:-HwHiAiUser}}
    USERGROUP=${USERGROUP:-${old_group:-HwHiAiUser}}
    passwd=$(sim_path /etc/passwd); group=$(sim_path /etc/group)
    cut -d: -f1 "$passwd" 2>/dev/null | grep -qx "$USERNAME" ||
        fail "ERR_NO:0x0091;ERR_DES:$USERNAME not exists! Please add $USERNAME"
    cut -d: -f1 "$group" 2>/dev/null | grep -qx "$USERGROUP" ||
        fail "ERR_NO:0x0091;ERR_DES:$USERGROUP group not exists! Please add $USERGROUP group"
    awk -F: -v u="$USERNAME" -v g="$USERGROUP" '
        FILENAME == ARGV[1] && $1 == u { ugid = $4 }
        FILENAME == ARGV[2] && $1 == g { ggid = $3; n = split($4, m, ",")
                                         for (i = 1; i <= n; i++) if (m[i] == u) member = 1 }
        END { exit !(member || (ugid != "" && ugid == ggid)) }' "$passwd" "$group" ||
        fail "ERR_NO:0x0096;ERR_DES:$USERGROUP not right! Please check the relatianship of $USERNAME and $USERGROUP"
    msg INFO "set username and usergroup, $USERNAME:$USERGROUP"
}

# DKMS build prerequisites: compilers and tools on PATH, headers of the running kernel (the
# state's kernel_release, if set, stands in for `uname -r`).
driver_check_prerequisites() {
    local tool missing="" release
    for tool in $DRIVER_TOOLS; do
        command -v "$tool" >/dev/null 2>&1 || missing="$missing$tool,"
    done
    [ -z "$missing" ] || fail "The list of missing tools: $missing"
    msg INFO "driver install type: DKMS"
    release=$(state_get kernel_release)
    release=${release:-$(uname -r)}
    if [ ! -d "$(sim_path "/lib/modules/$release/build")" ]; then
        log_only ERROR "kernel headers of $release not found: /lib/modules/$release/build does not exist"
        fail "Dkms install failed, details in : $SECLOG_DIR/$LOG_NAME."
    fi
}

# The new driver accepts the installed firmware when it lies in compatible_version_fw.
driver_check_firmware() {
    local fw range low high
    fw=$(version_of "$1/firmware/version.info")
    [ -n "$fw" ] || return 0
    fw=$(echo "$fw" | cut -d. -f1-3)
    range=$(sed -n 's/^compatible_version_fw=\[\(.*\)\]$/\1/p' "$PKG_DIR/tree/driver/version.info")
    low=${range%,*}; high=${range#*,}
    if [ "$(printf '%s\n%s\n' "$low" "$fw" | sort -V | head -n 1)" = "$low" ] &&
        [ "$(printf '%s\n%s\n' "$fw" "$high" | sort -V | head -n 1)" = "$fw" ]; then
        msg INFO "driver and firmware version relationship check success"
    else
        fail "ERR_NO:0x0081;ERR_DES:driver and firmware version relationship check failed, firmware $fw is not in [$range]"
    fi
}

driver_install() {
    local install_path=$1 old_path=$2 target info for_all word=installed
    target=$(sim_path "$install_path")
    [ "$MODE" = upgrade ] && word=upgraded
    stage_begin "$target"
    msg INFO "upgradePercentage:10%"
    must cp -a "$PKG_DIR/tree/driver" "$STAGE_DIR/driver"
    must copy_scripts "$STAGE_DIR/driver/script"
    msg INFO "upgradePercentage:30%"
    log_only INFO "dkms build davinci_ascend/1.0 for driver $PKG_VERSION"
    msg INFO "upgradePercentage:40%"
    maybe_fail_midway "dkms build davinci_ascend/1.0 failed" "Dkms install failed" \
        "Failed to install driver package, please retry after uninstall and reboot!"
    if [ -n "$old_path" ]; then
        rm -rf "$(sim_path "$old_path")/driver"
        log_only INFO "uninstall driver success"
    fi
    must mv "$STAGE_DIR/driver" "$target/driver"
    stage_done
    info=$(sim_path "$INSTALL_INFO")
    [ -n "$(info_get UserName "$info")" ] || info_set UserName "$USERNAME" "$info"
    [ -n "$(info_get UserGroup "$info")" ] || info_set UserGroup "$USERGROUP" "$info"
    info_set Driver_Install_Type full "$info"
    info_set Driver_Install_Path_Param "$install_path" "$info"
    for_all=$FOR_ALL
    [ "$MODE" = upgrade ] && for_all=${for_all:-$(info_get Driver_Install_For_All "$info")}
    info_set Driver_Install_For_All "${for_all:-no}" "$info"
    info_set Driver_Install_Mode normal "$info"
    mkdir -p "$(dirname "$(sim_path "$NPU_SMI_LINK")")"
    printf '#!/bin/sh\nexec %s "$@"\n' "$NPU_SMI_TARGET" >"$(sim_path "$NPU_SMI_LINK")"
    chmod 755 "$(sim_path "$NPU_SMI_LINK")"
    msg INFO "upgradePercentage:90%"
    msg INFO "upgradePercentage:100%"
    msg INFO "Driver package $word successfully! Reboot needed for installation/upgrade to take effect! "
    op_log "$OPERATION" success
}

# Removes the driver tree, npu-smi and the Driver_* keys, as driver/script/uninstall.sh does.
driver_remove() {
    local install_path=$1 target info key
    target=$(sim_path "$install_path")
    rm -rf "$target/driver"
    rm -f "$(sim_path "$NPU_SMI_LINK")"
    rmdir "$target" 2>/dev/null
    info=$(sim_path "$INSTALL_INFO")
    for key in Driver_Install_Path_Param Driver_Install_Type Driver_Install_Mode Driver_Install_For_All; do
        info_del "$key" "$info"
    done
    info_prune "$info"
    log_only INFO "uninstall driver success"
    msg INFO "Driver package uninstalled successfully! Reboot needed for uninstallation to take effect! "
    op_log Uninstall success
}

run_installer() {
    local old_path old_version install_path
    require_root
    if [ $# -eq 0 ]; then
        format_line ERROR "ERR_NO:0x0004;ERR_DES: Unrecognized parameters. Try './xxx.run --help' for more information."
        exit 1
    fi
    OPERATION=Install
    msg INFO "Start time: $START_TIME"
    msg INFO "LogFile: $SECLOG_DIR/$LOG_NAME"
    msg INFO "OperationLogFile: $SECLOG_DIR/operation.log"
    log_only INFO "UserCommand: $RUN_NAME $ALL_PARAMS"
    old_path=$(info_get Driver_Install_Path_Param "$(sim_path "$INSTALL_INFO")")
    [ -n "$old_path" ] && old_version=$(version_of "$(sim_path "$old_path")/driver/version.info")
    [ -n "$old_version" ] || old_path=""
    [ -n "$old_version" ] && msg INFO "base version is $old_version."
    driver_parse_args "$@"
    if [ "$VERSION_ONLY" = y ]; then
        msg INFO "driver version :$PKG_VERSION"
        msg INFO "End time: $(date +"%Y-%m-%d %H:%M:%S")"
        exit 0
    fi
    driver_check_params
    if [ "$MODE" = uninstall ]; then
        [ -n "$old_path" ] || fail "ERR_NO:0x0080;ERR_DES:Driver package is not installed on this device, uninstall failed"
        driver_remove "$old_path"
        msg INFO "End time: $(date +"%Y-%m-%d %H:%M:%S")"
        exit 0
    fi
    msg WARNING "Do not power off or restart the system during the installation/upgrade"
    if [ "$MODE" = upgrade ] && [ -z "$old_path" ]; then
        fail "ERR_NO:0x0080;ERR_DES:Driver package is not installed on this device, upgrade failed"
    fi
    driver_check_user
    install_path=${INPUT_PATH:-${old_path:-$DEFAULT_INSTALL_PATH}}
    if [ -n "$old_path" ]; then
        driver_check_firmware "$(sim_path "$install_path")"
        [ "$MODE" = full ] && confirm "Driver package has been installed on the path $old_path, the version is $old_version, and the version of this package is $PKG_VERSION,do you want to continue?  [y/n] "
    fi
    driver_check_prerequisites
    driver_install "$install_path" "$old_path"
    msg INFO "End time: $(date +"%Y-%m-%d %H:%M:%S")"
    [ -n "$old_path" ] && exit 2
    exit 0
}

# driver/script/uninstall.sh [--quiet] [--force]
run_uninstall_script() {
    local arg
    require_root
    RUN_NAME="Ascend-driver-$PKG_VERSION"
    OPERATION=Uninstall
    for arg in "$@"; do
        case "$arg" in
            --quiet|--force) ;;
            *) fail "ERR_NO:0x0004;ERR_DES: Unrecognized parameters: $arg. Only support '--quiet' and '--force'." ;;
        esac
    done
    driver_remove "$(cd "$SCRIPT_DIR/../.." && pwd | sed "s|^$SIM_ROOT||")"
}
