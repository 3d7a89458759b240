# Shared library of the simulated Ascend installers (bash; sourced, never executed).
# Expects package.conf to be sourced first (COMPONENT, PKG_VERSION, PKG_ARCH, RUN_NAME, LOG_TAG,
# LOG_STYLE, LOG_NAME). Every absolute path goes through sim_path, so ASCEND_SIM_ROOT (default /)
# moves the whole simulated filesystem, e.g. into a test's temporary directory.

SIM_ROOT=${ASCEND_SIM_ROOT:-/}
SIM_ROOT=${SIM_ROOT%/}
DEFAULT_INSTALL_PATH=/usr/local/Ascend
INSTALL_INFO=/etc/ascend_install.info
STATE_FILE=/var/lib/ascend-sim/state.json
NPU_SMI_LINK=/usr/local/sbin/npu-smi
NPU_SMI_TARGET=/opt/ascend-sim/bin/npu-smi
SECLOG_DIR=/var/log/ascend_seclog
LOG_DIR=$SIM_ROOT$SECLOG_DIR
START_TIME=$(date +"%Y-%m-%d %H:%M:%S")
ALL_PARAMS="$*"
STAGE_DIR=""
CREATED_TOP=""
CREATED_DIR=""

# The physical location of an absolute path of the simulated filesystem.
sim_path() {
    printf '%s%s\n' "$SIM_ROOT" "$1"
}

# One message line as the real packages print it: HDK "[Driver] [2025-03-31 09:50:07] [INFO]x",
# CANN "[Toolkit] [20250609-15:21:25] [INFO] x".
format_line() {
    if [ "$LOG_STYLE" = hdk ]; then
        printf '[%s] [%s] [%s]%s\n' "$LOG_TAG" "$(date +"%Y-%m-%d %H:%M:%S")" "$1" "$2"
    else
        printf '[%s] [%s] [%s] %s\n' "$LOG_TAG" "$(date +"%Y%m%d-%H:%M:%S")" "$1" "$2"
    fi
}

log_only() {
    mkdir -p "$LOG_DIR" 2>/dev/null && format_line "$1" "$2" >>"$LOG_DIR/$LOG_NAME"
}

msg() {
    format_line "$1" "$2"
    log_only "$1" "$2"
}

# Append one record to operation.log in the real format.
op_log() {
    local operation=$1 result=$2 level=UNKNOWN detail
    case "$operation" in
        Install) level=SUGGESTION ;; Upgrade) level=MINOR ;; Uninstall) level=MAJOR ;;
    esac
    detail="cmdlist=${ALL_PARAMS:-none}."
    [ "$operation" = Install ] && detail="install_type=full; $detail"
    mkdir -p "$LOG_DIR" 2>/dev/null &&
        echo "$operation $level root $START_TIME 127.0.0.1 $RUN_NAME $result $detail" \
            >>"$LOG_DIR/operation.log"
}

# Print an [ERROR] line, record the failed operation and stop with status 1.
fail() {
    msg ERROR "$1"
    op_log "${OPERATION:-Install}" failed
    [ "$LOG_STYLE" = hdk ] && msg INFO "End time: $(date +"%Y-%m-%d %H:%M:%S")"
    exit 1
}

# Run a file operation of the install; its failure fails the install.
must() {
    "$@" || fail "ERR_NO:0x0090;ERR_DES:'$*' failed, details in : $SECLOG_DIR/$LOG_NAME"
}

unrecognized() {
    fail "ERR_NO:0x0004;ERR_DES: Unrecognized parameters: $1. Try './xxx.run --help' for more information."
}

require_root() {
    [ "$(id -u)" -eq 0 ] && return 0
    format_line ERROR "ERR_NO:0x0093;ERR_DES:do not have root permission, operation failed, please use root permission!"
    exit 1
}

# Values of the simulator state ($ASCEND_SIM_ROOT/var/lib/ascend-sim/state.json, may be absent):
# a list prints one item per line (objects as JSON), a scalar prints itself.
state_get() {
    local file
    file=$(sim_path "$STATE_FILE")
    [ -f "$file" ] || return 0
    python3 -c 'import json, sys
try:
    value = json.load(open(sys.argv[1])).get(sys.argv[2])
except (OSError, ValueError, AttributeError):
    value = None
if isinstance(value, list):
    for item in value:
        print(json.dumps(item) if isinstance(item, (dict, list)) else item)
elif value is not None:
    print(value)' "$file" "$1" 2>/dev/null
}

fault_requested() {
    state_get installer_faults | grep -qx "$COMPONENT"
}

# The Version= value of a version.info file.
version_of() {
    [ -f "$1" ] && sed -n 's/^Version=//p' "$1" | head -n 1
}

# Key=value files (/etc/ascend_install.info, ascend_cann_install.info).
info_get() {
    [ -f "$2" ] && sed -n "s/^$1=//p" "$2" | head -n 1
}

info_set() {
    local key=$1 value=$2 file=$3
    mkdir -p "$(dirname "$file")"
    if [ -f "$file" ] && grep -q "^$key=" "$file"; then
        sed -i "s|^$key=.*|$key=$value|" "$file"
    else
        echo "$key=$value" >>"$file"
    fi
    chmod 644 "$file"
}

info_del() {
    [ -f "$2" ] && sed -i "/^$1=/d" "$2"
    return 0
}

# Remove /etc/ascend_install.info once no package records an install path in it.
info_prune() {
    local file=$1
    [ -f "$file" ] && ! grep -q "Install_Path_Param=" "$file" && rm -f "$file"
    return 0
}

# y/n question of the real packages; --quiet answers yes, end of input counts as an error.
confirm() {
    local answer
    [ "$QUIET" = y ] && return 0
    format_line INFO "$1"
    while read -r answer; do
        case "$answer" in
            y) return 0 ;;
            n) msg INFO "Stop installation!"; exit 0 ;;
            *) format_line ERROR "ERR_NO:0x0002;ERR_DES:input error, please input again!" ;;
        esac
    done
    fail "ERR_NO:0x0002;ERR_DES:no answer on standard input, installation stopped."
}

# Create a directory, remembering the top-most one created so a failure can take it away again.
make_dir_tracked() {
    local dir=$1 top=""
    while [ ! -d "$dir" ] && [ "$dir" != / ] && [ -n "$dir" ]; do
        top=$dir
        dir=$(dirname "$dir")
    done
    mkdir -p "$1" || return 1
    if [ -n "$top" ] && [ -z "$CREATED_TOP" ]; then
        CREATED_TOP=$top
        CREATED_DIR=$1
    fi
}

# Files are assembled in a staging directory next to their destination and moved into place at
# the end; on any failure the EXIT trap removes the staging directory and empty created dirs.
stage_begin() {
    make_dir_tracked "$1" || fail "ERR_NO:0x0001;ERR_DES:cannot create directory $1."
    STAGE_DIR=$(mktemp -d "$1/.ascend-sim-staging.XXXXXX") ||
        fail "ERR_NO:0x0001;ERR_DES:cannot create a staging directory in $1."
    trap stage_cleanup EXIT
}

stage_cleanup() {
    local dir
    [ -n "$STAGE_DIR" ] && rm -rf "$STAGE_DIR"
    STAGE_DIR=""
    if [ -n "$CREATED_TOP" ]; then
        dir=$CREATED_DIR
        while rmdir "$dir" 2>/dev/null && [ "$dir" != "$CREATED_TOP" ]; do
            dir=$(dirname "$dir")
        done
    fi
}

stage_done() {
    rm -rf "$STAGE_DIR"
    STAGE_DIR=""
    CREATED_TOP=""
    trap - EXIT
}

# The fault switch of the state: stop midway, the way a broken real install stops.
maybe_fail_midway() {
    fault_requested || return 0
    log_only ERROR "$1 (fault injected through installer_faults in $STATE_FILE)"
    msg ERROR "$2, details in : $SECLOG_DIR/$LOG_NAME"
    echo "---- last lines of $SECLOG_DIR/$LOG_NAME ----"
    tail -n 5 "$LOG_DIR/$LOG_NAME"
    fail "$3"
}

# Install this package's scripts next to what it installs, with uninstall.sh as entry point.
copy_scripts() {
    mkdir -p "$1"
    cp "$PKG_DIR"/scripts/*.sh "$PKG_DIR/scripts/package.conf" "$1/"
    rm -f "$1/install.sh"
    chmod 755 "$1/uninstall.sh"
}

# --install-path takes an absolute path of the node's filesystem, as the real packages want.
check_install_path() {
    case "$1" in
        /*) ;;
        *) fail "ERR_NO:0x0003;ERR_DES:install-path input error, install failed" ;;
    esac
}
