#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The pkg-config files of this build (rfm-uninstalled.pc: the build tree
# itself): each library flag once per line
# (rfm.pc once said "Libs.private: -lpthread -lpthread"), and pkg-config
# itself reads them. make check runs this from the top build directory.
fails=0
for pc in rfm.pc rfm-uninstalled.pc rfm2g.pc; do
	[ -f "$pc" ] || { echo "check-pkgconfig: $pc missing: run from a configured build directory"; exit 99; }
	for key in Libs Libs.private Cflags; do
		dup=$(sed -n "s/^$key: *//p" "$pc" | tr ' ' '\n' | sed '/^$/d' | sort | uniq -d)
		if [ -n "$dup" ]; then
			echo "FAIL: $pc: $key repeats $dup"
			fails=$((fails + 1))
		fi
	done
	if ! PKG_CONFIG_PATH=. pkg-config --libs --static "${pc%.pc}" >/dev/null; then
		echo "FAIL: pkg-config cannot read $pc"
		fails=$((fails + 1))
	fi
done
echo "check-pkgconfig: $fails failed"
[ $fails -eq 0 ]
