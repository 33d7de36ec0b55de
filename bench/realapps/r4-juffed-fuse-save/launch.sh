#!/bin/sh
# juffed (Qt5) edits a file on a FUSE mount (bindfs mirroring a local folder).
. "$(dirname "$0")/../common/realapps.sh"
mkdir -p src
seq 1 200 | sed 's/^/a line of ordinary text, number /' >src/notes.txt
ra_fuse_mount src mnt || exit 1
exec /usr/bin/juffed mnt/notes.txt
