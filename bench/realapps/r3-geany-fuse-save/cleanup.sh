#!/bin/sh
. "$(dirname "$0")/../common/realapps.sh"
ra_cont
ra_fuse_cleanup mnt
