#!/bin/bash
# Entry point of the extracted payload, run by the .run header with the installer's arguments.
PKG_DIR=$(cd "$(dirname "$0")/.." && pwd)
. "$PKG_DIR/scripts/package.conf"
. "$PKG_DIR/scripts/common.sh"
. "$PKG_DIR/scripts/$COMPONENT.sh"
run_installer "$@"
