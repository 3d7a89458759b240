#!/bin/sh
# @RUN_NAME@: simulated Huawei Ascend installer built by `ascend-sim artifacts`.
# A makeself-style self-extracting archive: this header, then a gzip'd tar payload whose
# sha256 is recorded below. The payload holds the package's files and its bash install scripts.
LABEL="@LABEL@"
RUN_NAME="@RUN_NAME@"
PKG_VERSION="@VERSION@"
PAYLOAD_SHA256="@SHA256@"
SKIP=@SKIP@
umask 022

me="$0"
case "$me" in */*) ;; *) me="./$me" ;; esac

usage() {
    cat <<EOF
Usage: $me [options]
Self-extracting $LABEL $PKG_VERSION (simulated).
Archive options:
  --help | -h         print this message
  --info              print the package label and version
  --list              list the files of the embedded archive
  --check             verify the archive's SHA256 checksum, then exit
  --quiet | -q        do not print archive messages; passed on to the installer
  --nox11             do not spawn an X terminal (accepted for compatibility)
  --noexec            extract without running the installer (with --extract=<path>)
  --extract=<path>    directory to extract to (with --noexec)
Installer options:
@OPTIONS@
EOF
}

check=n; quiet=n; noexec=n; list=n; extract_dir=""
n=$#
i=0
while [ "$i" -lt "$n" ]; do
    arg=$1
    shift
    i=$((i + 1))
    case "$arg" in
        --help|-h) usage; exit 0 ;;
        --info) printf 'Label: %s\nVersion: %s\nFile: %s\n' "$LABEL" "$PKG_VERSION" "$RUN_NAME"
                exit 0 ;;
        --list) list=y ;;
        --check) check=y ;;
        --noexec) noexec=y ;;
        --extract=*) extract_dir=${arg#--extract=} ;;
        --nox11) ;;
        --quiet|-q) quiet=y; set -- "$@" --quiet ;;
        *) set -- "$@" "$arg" ;;
    esac
done

payload() {
    tail -n +"$SKIP" "$me"
}

[ "$quiet" = y ] || printf 'Verifying archive integrity...'
sum=$(payload | sha256sum | cut -c1-64)
if [ "$sum" != "$PAYLOAD_SHA256" ]; then
    [ "$quiet" = y ] || echo
    echo "Error in SHA256 checksums: $sum is different from $PAYLOAD_SHA256" >&2
    exit 2
fi
[ "$quiet" = y ] || echo '  100%   SHA256 checksums are OK. All good.'
[ "$check" = y ] && exit 0
if [ "$list" = y ]; then
    payload | tar -tzf -
    exit 0
fi

if [ "$noexec" = y ]; then
    target=${extract_dir:-.}
    mkdir -p "$target" && payload | tar -xzf - -C "$target" --no-same-owner -m
    exit $?
fi

workdir=$(mktemp -d "${TMPDIR:-/tmp}/ascend-sim-run.XXXXXX") || exit 1
trap 'rm -rf "$workdir"' EXIT
trap 'exit 130' INT TERM
[ "$quiet" = y ] || printf 'Uncompressing %s  100%%  \n' "$LABEL"
payload | tar -xzf - -C "$workdir" --no-same-owner -m || exit 1
bash "$workdir/scripts/install.sh" "$@"
exit $?
