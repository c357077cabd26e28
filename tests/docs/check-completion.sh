#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The bash completion of rfm against this build's tool: every command that
# `rfm --help` lists completes, and nothing else does; a command's options
# complete; -u completes an existing network. make check runs this from the
# top build directory with $srcdir set.
top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
PATH="$top_builddir/tools:$PATH"
# shellcheck source=/dev/null
. "$top_srcdir/tools/rfm.bash-completion" || exit 99
fails=0
checks=0

# complete WORDS...: run the completion with the cursor on the last word.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_rfm
}

expect() {	# expect WHAT WORD: WORD is among the completions
	checks=$((checks + 1))
	case " ${COMPREPLY[*]} " in
	*" $2 "*) ;;
	*) echo "FAIL: $1: '$2' not offered (got: ${COMPREPLY[*]})"; fails=$((fails + 1)) ;;
	esac
}

commands=$(rfm --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
[ "$(echo "$commands" | wc -w)" -ge 10 ] || { echo "FAIL: rfm --help lists no commands"; exit 1; }
complete_words rfm ""
for c in $commands; do
	expect "rfm <TAB>" "$c"
done
checks=$((checks + 1))
if [ "${#COMPREPLY[@]}" -ne "$(echo "$commands" | wc -w)" ]; then
	echo "FAIL: rfm <TAB> offers ${#COMPREPLY[@]} words, rfm --help lists $(echo "$commands" | wc -w)"
	fails=$((fails + 1))
fi

complete_words rfm -u shm:x pe
expect "rfm -u URI pe<TAB>" peek32
complete_words rfm ping --ec
expect "rfm ping --ec<TAB>" --echo
complete_words rfm layout ""
expect "rfm layout <TAB>" check

net="completion-$$"
rfm -u "shm:$net?size=4K" info >/dev/null || exit 99
complete_words rfm -u "shm:completion-$$"
expect "rfm -u shm:<TAB>" "shm:$net"
rfm -u "shm:$net" destroy >/dev/null

echo "check-completion: $((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
