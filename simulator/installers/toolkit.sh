# CANN toolkit (Ascend-cann-toolkit_<ver>_linux-<arch>.run): one versioned tree per version side
# by side, `latest` switched to the version installed last, ascend-toolkit/set_env.sh, and
# /etc/Ascend/ascend_cann_install.info. CFG_INNER is the inner version version.cfg records.
. "$(dirname "${BASH_SOURCE[0]}")/cann.sh"

TOOLKIT_COMPONENTS="runtime compiler hccl opp toolkit aoe ncs"

# version.cfg: this version running, every installed version listed (as the real file does).
toolkit_version_cfg() {
    local installed="" version inner component
    for version in $(toolkit_versions) "$PKG_VERSION"; do
        [ "$version" = "$PKG_VERSION" ] && inner=$CFG_INNER ||
            inner=$(sed -n 's/^runtime_running_version=\[\(.*\):.*\]$/\1/p' \
                "$(sim_path "$(toolkit_dir "$version")")/version.cfg" 2>/dev/null)
        case "$installed" in *":$version]"*) ;; *) installed="$installed[$inner:$version]" ;; esac
    done
    echo "# version: 1.0"
    for component in $TOOLKIT_COMPONENTS; do
        echo "${component}_running_version=[$CFG_INNER:$PKG_VERSION]"
    done
    for component in $TOOLKIT_COMPONENTS; do
        echo "${component}_upgrade_version=[$CFG_INNER:$PKG_VERSION]"
    done
    for component in $TOOLKIT_COMPONENTS; do
        echo "${component}_installed_version=$installed"
    done
}

toolkit_install() {
    local dir dir_p previous stage sub
    dir=$(toolkit_dir "$PKG_VERSION"); dir_p=$(sim_path "$dir")
    previous=$(toolkit_latest)
    toolkit_installed "$PKG_VERSION" && cann_already_installed "$dir"
    if [ "$MODE" = upgrade ] && [ -z "$(toolkit_versions)" ]; then
        fail "ERR_NO:0x0080;ERR_DES:Ascend-cann-toolkit is not installed in $CANN_ROOT, upgrade failed"
    fi
    msg INFO "$MODE start"
    msg INFO "The installation path is $CANN_ROOT."
    stage_begin "$(dirname "$dir_p")"
    stage="$STAGE_DIR/$PKG_VERSION"
    must cp -a "$PKG_DIR/tree/toolkit" "$stage"
    for sub in runtime compiler opp toolkit aoe; do
        msg INFO "install package CANN-$sub-$CFG_INNER-linux.$PKG_ARCH.run start"
        [ "$sub" = opp ] && maybe_fail_midway "CANN-opp-$CFG_INNER-linux.$PKG_ARCH.run: copying the operator library failed" \
            "install package CANN-opp-$CFG_INNER-linux.$PKG_ARCH.run failed" \
            "ERR_NO:0x0090;ERR_DES:${RUN_NAME%.run} install failed"
        msg INFO "CANN-$sub-$CFG_INNER-linux.$PKG_ARCH.run --full --quiet --nox11 install success"
    done
    printf '%s\n' "package_name=Ascend-cann-toolkit" "version=$PKG_VERSION" \
        "innerversion=$INNER_VERSION" "compatible_version=$COMPATIBLE_VERSION" "arch=$PKG_ARCH" \
        "os=linux" "path=$dir/$PKG_ARCH-linux" >"$stage/$PKG_ARCH-linux/ascend_toolkit_install.info"
    toolkit_version_cfg >"$stage/version.cfg"
    must copy_scripts "$stage/$PKG_ARCH-linux/script"
    [ "$CANN_LAYOUT" = new ] && cp "$PKG_DIR/tree/set_env.sh" "$stage/set_env.sh"
    must mv "$stage" "$dir_p"
    stage_done
    toolkit_point_latest "$PKG_VERSION"
    cp "$PKG_DIR/tree/set_env.sh" "$CANN_ROOT_P/ascend-toolkit/set_env.sh"
    if [ "$MODE" = upgrade ] && [ -n "$previous" ] && [ "$previous" != "$PKG_VERSION" ]; then
        rm -rf "$(sim_path "$(toolkit_dir "$previous")")"
        msg INFO "Ascend-cann-toolkit $previous is replaced by $PKG_VERSION."
    fi
    info_set Toolkit_InstallPath "$CANN_ROOT/ascend-toolkit" "$(sim_path "$CANN_INFO")"
    msg INFO "Write Toolkit_InstallPath to $CANN_INFO."
    msg INFO "Ascend-cann-toolkit $MODE success"
    op_log "$OPERATION" success
    toolkit_summary
}

toolkit_summary() {
    local drv drv_line="Not installed."
    drv=$(info_get Driver_Install_Path_Param "$(sim_path "$INSTALL_INFO")")
    [ -n "$drv" ] && [ -f "$(sim_path "$drv")/driver/version.info" ] && drv_line="Installed in $drv/driver."
    cat <<EOF

===========
= Summary =
===========

Driver:   $drv_line
Toolkit:  ${RUN_NAME%.run} $MODE success, installed in $CANN_ROOT.

Please make sure that the environment variables have been configured.
-  To take effect for all users, you can add "source $CANN_ROOT/ascend-toolkit/set_env.sh" to /etc/profile.
-  To take effect for current user, you can exec command below: source $CANN_ROOT/ascend-toolkit/set_env.sh or add "source $CANN_ROOT/ascend-toolkit/set_env.sh" to ~/.bashrc.
EOF
}

# Remove toolkit version $1; `latest` moves to the newest remaining version, or goes with the
# last one (together with set_env.sh and the recorded install path).
toolkit_remove() {
    local version=$1 latest remaining
    toolkit_installed "$version" ||
        fail "ERR_NO:0x0080;ERR_DES:Ascend-cann-toolkit $version is not installed in $CANN_ROOT, uninstall failed"
    latest=$(toolkit_latest)
    rm -rf "$(sim_path "$(toolkit_dir "$version")")"
    remaining=$(toolkit_versions | tail -n 1)
    if [ -n "$remaining" ]; then
        [ "$latest" = "$version" ] && toolkit_point_latest "$remaining"
        [ -e "$CANN_ROOT_P/cann" ] || rm -f "$CANN_ROOT_P/cann"
    else
        rm -f "$CANN_ROOT_P/ascend-toolkit/latest" "$CANN_ROOT_P/ascend-toolkit/set_env.sh" \
            "$CANN_ROOT_P/cann"
        rmdir "$CANN_ROOT_P/ascend-toolkit" "$CANN_ROOT_P" 2>/dev/null
        info_del Toolkit_InstallPath "$(sim_path "$CANN_INFO")"
        if [ ! -s "$(sim_path "$CANN_INFO")" ]; then
            rm -f "$(sim_path "$CANN_INFO")"
            rmdir "$(dirname "$(sim_path "$CANN_INFO")")" 2>/dev/null
        fi
    fi
    msg INFO "Ascend-cann-toolkit $version uninstall success"
    op_log Uninstall success
}

run_installer() {
    require_root
    cann_parse_args "$@"
    msg INFO "LogFile:$SECLOG_DIR/$LOG_NAME"
    cann_root
    case "$MODE" in
        uninstall) toolkit_remove "$PKG_VERSION" ;;
        *) toolkit_install ;;
    esac
}

# <toolkit dir>/<arch>-linux/script/uninstall.sh
run_uninstall_script() {
    require_root
    OPERATION=Uninstall
    [ $# -eq 0 ] || [ "$*" = --quiet ] || unrecognized "$*"
    INPUT_PATH=$(cd "$SCRIPT_DIR/../../.." && pwd | sed "s|^$SIM_ROOT||")
    INPUT_PATH=${INPUT_PATH%/ascend-toolkit}
    cann_root
    toolkit_remove "$PKG_VERSION"
}
