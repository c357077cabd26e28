#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Make Doxygen's section-3 pages fit to install in /usr/share/man/man3:
# only names that are ours. Doxygen names the pages of groups and headers
# after them (node.3, memory.h.3) and writes a link page for every struct
# member (size.3, pid.3); names like those belong to nobody in particular.
#   man3-tidy.sh DIR       DIR = doc/man/man3
# Afterwards: rfm_*.3 and RFM_*.3 link pages (man rfm_open), each sourcing
# a real page; the real pages of groups and headers are librfm-NAME.3
# (librfm-node.3, librfm-node.h.3), those of structs keep their rfm_ names.
set -eu
cd "$1"
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
