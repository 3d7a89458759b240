# What the CANN packages (toolkit, kernels/ops, NNAL) share: flags, the recorded install path
# and the two toolkit layouts. package.conf gives CANN_LAYOUT: "old" up to 8.3
# (<root>/ascend-toolkit/<ver>, latest -> <ver>) or "new" from 8.5 (<root>/cann-<ver>,
# <root>/cann -> cann-<ver>, <root>/ascend-toolkit/latest -> <root>/cann).

CANN_INFO=/etc/Ascend/ascend_cann_install.info

cann_parse_args() {
    MODE=""; QUIET=n; INPUT_PATH=""; VERSION_ONLY=n
    local arg
    for arg in "$@"; do
        case "$arg" in
            --install|--full|--upgrade|--uninstall)
                [ -n "$MODE" ] && fail "ERR_NO:0x0004;ERR_DES: Operation failed, only one of install, upgrade and uninstall is allowed!"
                MODE=${arg#--}
                [ "$MODE" = full ] && MODE=install ;;
            --quiet) QUIET=y ;;
            --nox11|--install-for-all) ;;
            --install-path=*)
                INPUT_PATH=${arg#*=}
                [ -n "$INPUT_PATH" ] || fail "ERR_NO:0x0003;ERR_DES:install path is null, install failed"
                check_install_path "$INPUT_PATH"
                INPUT_PATH=${INPUT_PATH%/} ;;
            --version) VERSION_ONLY=y ;;
            *) unrecognized "$arg" ;;
        esac
    done
    case "$MODE" in upgrade) OPERATION=Upgrade ;; uninstall) OPERATION=Uninstall ;; *) OPERATION=Install ;; esac
    if [ "$VERSION_ONLY" = y ]; then
        echo "$PKG_VERSION"
        exit 0
    fi
    [ -n "$MODE" ] || fail "ERR_NO:0x0004;ERR_DES: Operation failed, please specify install type!"
}

# The CANN install root: --install-path, else the one the first CANN package recorded, else the
# default. Sets CANN_ROOT (as the node sees it) and CANN_ROOT_P (physical).
cann_root() {
    local recorded
    recorded=$(info_get Toolkit_InstallPath "$(sim_path "$CANN_INFO")")
    CANN_ROOT=${INPUT_PATH:-${recorded%/ascend-toolkit}}
    CANN_ROOT=${CANN_ROOT:-$DEFAULT_INSTALL_PATH}
    CANN_ROOT_P=$(sim_path "$CANN_ROOT")
}

# Directory of toolkit version $1 under CANN_ROOT (logical), whichever layout holds it.
toolkit_dir() {
    if [ -d "$CANN_ROOT_P/cann-$1" ]; then
        echo "$CANN_ROOT/cann-$1"
    elif [ -d "$CANN_ROOT_P/ascend-toolkit/$1" ] || [ "$CANN_LAYOUT" = old ]; then
        echo "$CANN_ROOT/ascend-toolkit/$1"
    else
        echo "$CANN_ROOT/cann-$1"
    fi
}

toolkit_installed() {
    [ -f "$(sim_path "$(toolkit_dir "$1")")/$PKG_ARCH-linux/ascend_toolkit_install.info" ]
}

# Every toolkit version installed under CANN_ROOT, oldest first.
toolkit_versions() {
    local dir
    for dir in "$CANN_ROOT_P"/ascend-toolkit/*/"$PKG_ARCH"-linux "$CANN_ROOT_P"/cann-*/"$PKG_ARCH"-linux; do
        [ -f "$dir/ascend_toolkit_install.info" ] && sed -n 's/^version=//p' "$dir/ascend_toolkit_install.info"
    done | sort -uV
}

# The toolkit version ascend-toolkit/latest points at, if any.
toolkit_latest() {
    local target
    target=$(readlink "$CANN_ROOT_P/ascend-toolkit/latest") || return 0
    case "$target" in
        /*) target=$(readlink "$(sim_path "$target")") && echo "${target#cann-}" ;;
        *) echo "$target" ;;
    esac
}

# Point ascend-toolkit/latest (and, from 8.5, <root>/cann) at toolkit version $1.
toolkit_point_latest() {
    mkdir -p "$CANN_ROOT_P/ascend-toolkit"
    if [ -d "$CANN_ROOT_P/cann-$1" ]; then
        ln -sfn "cann-$1" "$CANN_ROOT_P/cann"
        ln -sfn "$CANN_ROOT/cann" "$CANN_ROOT_P/ascend-toolkit/latest"
    else
        ln -sfn "$1" "$CANN_ROOT_P/ascend-toolkit/latest"
    fi
}

cann_already_installed() {
    msg INFO "${RUN_NAME%.run} is already installed in $1, no need to install it again."
    op_log Install success
    exit 0
}
