#!/bin/sh
# IDLE (Tk) edits a Python file on a FUSE mount (bindfs mirroring a local
# folder).
. "$(dirname "$0")/../common/realapps.sh"
mkdir -p src
seq 1 200 | sed 's/^/x = /' >src/notes.py
ra_fuse_mount src mnt || exit 1
exec /usr/bin/idle mnt/notes.py
