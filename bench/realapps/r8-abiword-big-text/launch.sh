#!/bin/sh
# AbiWord, and a plain-text file of 40 000 lines (2.4 MB) for the user to
# open: a long log or an export, imported as a document.
. "$(dirname "$0")/../common/realapps.sh"
seq 1 40000 | sed 's/^/a line of an exported log with some ordinary words, number /' >big.txt
exec /usr/bin/abiword
