#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The hand-written manual pages (man/: rfm(1), rfm-layout(5), the concept
# pages of section 7) render without a warning, are found by `man -k rfm`,
# and are installed.
#
# For each man/NAME.N:
#  - groff -ww (every warning) and man --warnings print nothing;
#  - its .TH names NAME and section N;
#  - lexgrog (what mandb reads for apropos) finds a NAME line that says
#    "rfm", so `man -k rfm` lists the page;
#  - a local.mk lists it in man_MANS, so make install and the packages
#    ship it.
# The section-3 pages are generated and checked by make doc.
#   srcdir=SRC check-man-pages.sh
srcdir=${srcdir:-.}
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

for tool in groff man lexgrog; do
	if ! command -v $tool >/dev/null; then
		echo "check-man-pages: $tool is not installed (Debian: groff-base, man-db)"
		exit 77
	fi
done

pages=$(ls "$srcdir"/man/*.[1-8])
[ -n "$pages" ] || { echo "check-man-pages: no pages in $srcdir/man"; exit 99; }
for page in $pages; do
	base=$(basename "$page")
	name=${base%.*}
	section=${base##*.}
	out=$(groff -ww -z -man "$page" 2>&1)
	[ -z "$out" ] || fail "$base: groff -ww: $out"
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	[ -z "$out" ] || fail "$base: man --warnings: $out"
	th=$(sed -n 's/^\.TH  *\([^ ]*\)  *\([0-9]\).*/\1 \2/p' "$page" | head -n 1 |
		tr '[:upper:]' '[:lower:]')
	[ "$th" = "$name $section" ] || fail "$base: .TH says '$th', not '$name $section'"
	whatis=$(cd "$(dirname "$page")" && lexgrog "$base" 2>&1)
	case $whatis in
	"$base: \"$name - "*) ;;
	*) fail "$base: lexgrog finds no NAME line for $name: $whatis" ;;
	esac
	case $whatis in
	*rfm*) ;;
	*) fail "$base: 'man -k rfm' would not find it: $whatis" ;;
	esac
	grep -qs "man/$base" "$srcdir"/*/local.mk "$srcdir"/Makefile.am ||
		fail "$base: in no man_MANS (make install would not install it)"
	echo "ok: $base: $whatis"
done
exit $status
