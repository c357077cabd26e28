#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Print the first C block of README.md (given as $1) as a whole program:
# as it is when it has a main(), else its #include lines, then the rest inside a main() that declares what the
# block uses but does not define (sample, seq). test-small-shm.sh runs it.

readme=$1
block=$(awk '/^```c$/ { inblock = 1; next } inblock && /^```$/ { exit } inblock { print }' "$readme")
case $block in
*rfm_open*) ;;
*) echo "readme-snippet: no C block with rfm_open() in $readme" >&2; exit 1 ;;
esac
echo '/* Generated from README.md by tests/backends/shm/readme-snippet.sh: do not edit. */'
case $block in
*'int main('*)
	# The README shows a whole program: take it as it is.
	printf '%s\n' "$block"
	exit 0
	;;
esac
echo '#include <stdint.h>'
echo '#include <stdio.h>'
echo '#include <string.h>'
printf '%s\n' "$block" | grep '^#include'
echo 'int main(void)'
echo '{'
echo '	uint32_t sample = 42, seq = 0;'
echo
printf '%s\n' "$block" | grep -v '^#include'
echo '	puts("snippet ok");'
echo '	return 0;'
echo '}'
