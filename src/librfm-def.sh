#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# librfm-1.dll's export list, from the same list as the ELF library's
# version script, so that Windows and Linux export the same names.
#
#   librfm-def.sh MAP                  the module-definition file (.def):
#                                      "EXPORTS", then every global: name of
#                                      every version node of MAP
#   librfm-def.sh --check DEF EXPORTS  compare a DLL's exports (the names in
#                                      `objdump -p` output) with DEF: exit 1,
#                                      naming the difference, unless equal
set -eu

names() {
	# A name is "<tab>name;" between "global:" and "local:" or "}".
	sed -n '/^[[:space:]]*global:/,/^[[:space:]]*\(local:\|}\)/{
		s/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);[[:space:]]*$/\1/p
	}' "$1"
}

if [ "${1:-}" = --check ]; then
	def=$2
	dump=$3
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	sed -n 's/^[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$def" | sort > "$tmp/want"
	# objdump -p: "[Ordinal/Name Pointer] Table" lines "\t[   0] name".
	sed -n 's/^[[:space:]]*\[ *[0-9]*\] \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$dump" | sort > "$tmp/got"
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "librfm-def.sh: the DLL does not export what $def lists:" >&2
		comm -23 "$tmp/want" "$tmp/got" | sed 's/^/  missing from the DLL: /' >&2
		comm -13 "$tmp/want" "$tmp/got" | sed 's/^/  exported but not in the map: /' >&2
		exit 1
	fi
	exit 0
fi

echo EXPORTS
names "$1" | sed 's/^/	/'
