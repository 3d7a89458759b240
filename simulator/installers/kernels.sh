# CANN binary operators: Ascend-cann-kernels-910b_<ver>_linux-<arch>.run up to 8.3,
# Ascend-cann-910b-ops_<ver>_linux-<arch>.run from 8.5. Adds the 910B kernels to the opp/ tree of
# the toolkit of the same version, which must be installed first. SUB_PKG names the inner package.
. "$(dirname "${BASH_SOURCE[0]}")/cann.sh"

KERNEL_SUBDIR=opp/built-in/op_impl/ai_core/tbe/kernel

kernels_install() {
    local dir dir_p shown kind
    dir=$(toolkit_dir "$PKG_VERSION"); dir_p=$(sim_path "$dir")
    toolkit_installed "$PKG_VERSION" ||
        fail "ERR_NO:0x0080;ERR_DES:The Ascend-cann-toolkit $PKG_VERSION is not installed in $CANN_ROOT. Please install the toolkit package of the same version first."
    [ -f "$dir_p/opp_kernel/version.info" ] && cann_already_installed "$dir"
    shown=$CANN_ROOT/ascend-toolkit
    [ "$CANN_LAYOUT" = new ] && shown=$CANN_ROOT
    msg INFO "install start"
    msg INFO "The installation path is $shown."
    msg INFO "install package $SUB_PKG start"
    stage_begin "$dir_p"
    must cp -a "$PKG_DIR/tree/kernel" "$STAGE_DIR/kernel"
    must cp -a "$PKG_DIR/tree/opp_kernel" "$STAGE_DIR/opp_kernel"
    must copy_scripts "$STAGE_DIR/opp_kernel/script"
    maybe_fail_midway "$SUB_PKG: copying the ascend910b kernels failed" \
        "install package $SUB_PKG failed" "ERR_NO:0x0090;ERR_DES:${RUN_NAME%.run} install failed"
    must mv "$STAGE_DIR/kernel" "$dir_p/$KERNEL_SUBDIR"
    must mv "$STAGE_DIR/opp_kernel" "$dir_p/opp_kernel"
    stage_done
    for kind in running upgrade installed; do
        sed -i "/^ncs_${kind}_version=/a opp_kernel_${kind}_version=[$CFG_INNER:$PKG_VERSION]" \
            "$dir_p/version.cfg"
    done
    msg INFO "$SUB_PKG --full --quiet --nox11 install success"
    msg INFO "${RUN_NAME%.run} install success. The installation path is $shown."
    op_log Install success
}

kernels_remove() {
    local dir_p
    dir_p=$(sim_path "$(toolkit_dir "$PKG_VERSION")")
    [ -f "$dir_p/opp_kernel/version.info" ] ||
        fail "ERR_NO:0x0080;ERR_DES:${RUN_NAME%.run} is not installed in $CANN_ROOT, uninstall failed"
    rm -rf "${dir_p:?}/$KERNEL_SUBDIR" "$dir_p/opp_kernel"
    sed -i '/^opp_kernel_/d' "$dir_p/version.cfg"
    msg INFO "${RUN_NAME%.run} uninstall success"
    op_log Uninstall success
}

run_installer() {
    require_root
    cann_parse_args "$@"
    msg INFO "LogFile:$SECLOG_DIR/$LOG_NAME"
    cann_root
    case "$MODE" in
        uninstall) kernels_remove ;;
        *) kernels_install ;;
    esac
}

# <toolkit dir>/opp_kernel/script/uninstall.sh
run_uninstall_script() {
    require_root
    OPERATION=Uninstall
    [ $# -eq 0 ] || [ "$*" = --quiet ] || unrecognized "$*"
    INPUT_PATH=$(cd "$SCRIPT_DIR/../../.." && pwd | sed "s|^$SIM_ROOT||")
    INPUT_PATH=${INPUT_PATH%/ascend-toolkit}
    cann_root
    kernels_remove
}
