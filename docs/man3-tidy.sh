#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Make Doxygen's section-3 pages fit to install in /usr/share/man/man3:
# only names that are ours. Doxygen names the pages of groups and headers
# after them (node.3, memory.h.3) and writes a link page for every struct
# member (size.3, pid.3); names like those belong to nobody in particular.
#   man3-tidy.sh DIR       DIR = doc/man/man3
# Afterwards: rfm_*.3 and RFM_*.3 link pages (man RFM_NODE_ALL), each
# sourcing a real page; the real pages of groups and headers are
# librfm-NAME.3 (librfm-node.3, librfm-node.h.3), those of structs keep
# their rfm_ names. docs/doxy2man.py then writes each function's page.
# The real pages are also made to render clean (groff -ww): a text line
# Doxygen starts with a quote ('' for an empty string) would be read as a
# request and lost, and non-ASCII characters become groff's escapes.
set -eu
cd "$1"
real=$(grep -L '^\.so ' ./*.3)
# shellcheck disable=SC2086 # page names have no spaces
LC_ALL=C sed -i -e "s/^'/\\\\\&'/" \
	-e 's/\xe2\x80\x94/\\(em/g; s/\xe2\x80\x93/\\(en/g; s/\xc2\xb5/\\(mc/g' \
	-e 's/\xc3\x97/\\(mu/g; s/\xe2\x89\xa4/\\(<=/g; s/\xe2\x89\xa5/\\(>=/g' \
	-e 's/\xe2\x86\x92/\\(->/g; s/\xe2\x80\x9c/\\(lq/g; s/\xe2\x80\x9d/\\(rq/g' \
	-e 's/\xe2\x80\x99/\\(cq/g' $real
for page in *.3; do
	case $page in
	rfm_* | RFM_*) continue ;;
	esac
	if head -n 1 "$page" | grep -q '^\.so '; then
		rm -f "$page"			# a member's link page
	else
		mv "$page" "librfm-$page"
	fi
done
for page in rfm_*.3 RFM_*.3; do
	target=$(sed -n '1s|^\.so man3/||p' "$page")
	case $target in
	'' | rfm_* | RFM_*) ;;
	*) printf '.so man3/librfm-%s\n' "$target" >"$page" ;;
	esac
done
