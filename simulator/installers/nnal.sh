# CANN NNAL (Ascend-cann-nnal_<ver>_linux-<arch>.run): the ATB library under
# <root>/nnal/atb/<ver>, nnal/atb/latest -> <ver> and nnal/atb/set_env.sh. Like the real package
# it needs the toolkit environment (set_env.sh sourced) before it installs.
. "$(dirname "${BASH_SOURCE[0]}")/cann.sh"

nnal_require_toolkit_env() {
    local home=${ASCEND_TOOLKIT_HOME:-${ASCEND_HOME_PATH:-}}
    if [ -z "$home" ] || [ ! -d "$home" ]; then
        fail "ERR_NO:0x0080;ERR_DES:The CANN toolkit environment is not set (ASCEND_TOOLKIT_HOME/ASCEND_HOME_PATH). Please run 'source <install-path>/ascend-toolkit/set_env.sh' first."
    fi
}

# Versions of ATB installed under $1 (physical nnal/atb directory).
nnal_versions() {
    local dir
    for dir in "$1"/*/; do
        [ -f "$dir/version.info" ] && [ ! -L "${dir%/}" ] && basename "$dir"
    done
}

nnal_install() {
    local atb=$CANN_ROOT_P/nnal/atb old
    [ -f "$atb/$PKG_VERSION/version.info" ] && cann_already_installed "$CANN_ROOT/nnal/atb/$PKG_VERSION"
    if [ "$MODE" = upgrade ] && [ -z "$(nnal_versions "$atb")" ]; then
        fail "ERR_NO:0x0080;ERR_DES:Ascend-cann-nnal is not installed in $CANN_ROOT, upgrade failed"
    fi
    msg INFO "$MODE start"
    msg INFO "The installation path is $CANN_ROOT/nnal."
    msg INFO "install package Ascend-cann-atb_${PKG_VERSION}_linux-$PKG_ARCH.run start"
    stage_begin "$atb"
    must cp -a "$PKG_DIR/tree/nnal" "$STAGE_DIR/$PKG_VERSION"
    must copy_scripts "$STAGE_DIR/$PKG_VERSION/script"
    maybe_fail_midway "Ascend-cann-atb_${PKG_VERSION}_linux-$PKG_ARCH.run: copying libatb failed" \
        "install package Ascend-cann-atb_${PKG_VERSION}_linux-$PKG_ARCH.run failed" \
        "ERR_NO:0x0090;ERR_DES:${RUN_NAME%.run} install failed"
    must mv "$STAGE_DIR/$PKG_VERSION" "$atb/$PKG_VERSION"
    stage_done
    if [ "$MODE" = upgrade ]; then
        for old in $(nnal_versions "$atb"); do
            [ "$old" = "$PKG_VERSION" ] || rm -rf "${atb:?}/$old"
        done
    fi
    ln -sfn "$PKG_VERSION" "$atb/latest"
    cp "$PKG_DIR/tree/set_env.sh" "$atb/set_env.sh"
    msg INFO "Ascend-cann-atb_${PKG_VERSION}_linux-$PKG_ARCH.run --install --quiet --nox11 install success"
    msg INFO "${RUN_NAME%.run} $MODE success"
    op_log "$OPERATION" success
}

# Remove ATB version $1; latest moves to the newest remaining version or goes with the last one.
nnal_remove() {
    local atb=$CANN_ROOT_P/nnal/atb newest
    [ -f "$atb/$PKG_VERSION/version.info" ] ||
        fail "ERR_NO:0x0080;ERR_DES:${RUN_NAME%.run} is not installed in $CANN_ROOT, uninstall failed"
    rm -rf "${atb:?}/$PKG_VERSION"
    newest=$(nnal_versions "$atb" | sort -V | tail -n 1)
    if [ -n "$newest" ]; then
        [ -e "$atb/latest" ] || ln -sfn "$newest" "$atb/latest"
    else
        rm -f "$atb/latest" "$atb/set_env.sh"
        rmdir "$atb" "$CANN_ROOT_P/nnal" 2>/dev/null
    fi
    msg INFO "${RUN_NAME%.run} uninstall success"
    op_log Uninstall success
}

run_installer() {
    require_root
    cann_parse_args "$@"
    msg INFO "LogFile:$SECLOG_DIR/$LOG_NAME"
    cann_root
    case "$MODE" in
        uninstall) nnal_remove ;;
        *) nnal_require_toolkit_env; nnal_install ;;
    esac
}

# <root>/nnal/atb/<ver>/script/uninstall.sh
run_uninstall_script() {
    require_root
    OPERATION=Uninstall
    [ $# -eq 0 ] || [ "$*" = --quiet ] || unrecognized "$*"
    INPUT_PATH=$(cd "$SCRIPT_DIR/../../../.." && pwd | sed "s|^$SIM_ROOT||")
    cann_root
    nnal_remove
}
