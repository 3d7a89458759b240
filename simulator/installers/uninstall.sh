#!/bin/bash
# Uninstaller left next to an installed package (driver/script, firmware/script, ...):
# removes what the package installed, as the real script/uninstall.sh does.
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$SCRIPT_DIR/package.conf"
. "$SCRIPT_DIR/common.sh"
. "$SCRIPT_DIR/$COMPONENT.sh"
run_uninstall_script "$@"
