#!/bin/sh
. "$(dirname "$0")/../common/realapps.sh"
ra_cont
