#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Make a site's DDS Security files with the commands of docs/security.md,
# as written there: its "site" block (with protect= set) and its "node"
# block once per node id (with node= set), in the directory OUT; or its
# "revoke" block for one node id.
#
#   make-files.sh DOC OUT PROTECT NODE...
#       OUT/site (ca.pem, ca.key, governance.p7s) and OUT/nodeN per NODE
#   make-files.sh --revoke DOC OUT NODE
#       the "revoke" block: NODE's certificate revoked, OUT/site/crl.pem
set -eu
revoke=
if [ "$1" = --revoke ]; then
	revoke=$4
	set -- "$2" "$3" ""
fi
doc=$1 out=$2 protect=$3
shift 3

# The sh block after the marker "<!-- dds-security: NAME -->".
block() {
	awk -v m="<!-- dds-security: $1 -->" '
		$0 == m { found = 1; next }
		found && /^```sh$/ { inside = 1; next }
		inside && /^```$/ { exit }
		inside { print }' "$doc"
}

# The block with its "VAR=..." line set to VALUE; the line must be there.
run_block() { # NAME VAR VALUE
	text=$(block "$1")
	printf '%s\n' "$text" | grep -q "^$2=" ||
		{ echo "make-files: no '$2=' line in the $1 block of $doc" >&2; exit 1; }
	printf '%s\n' "$text" | sed "s|^$2=.*|$2=$3|" | (cd "$out" && bash -e)
}

if [ -n "$revoke" ]; then
	run_block revoke node "$revoke" 2>>"$out/openssl.log"
	exit 0
fi
mkdir -p "$out"
run_block site protect "$protect" 2>"$out/openssl.log"
for n in "$@"; do
	run_block node node "$n" 2>>"$out/openssl.log"
done
