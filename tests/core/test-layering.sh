#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every module is a one-way stack (docs/architecture.md, "Module stacks"):
# no two library files may call each other, directly or around a loop.
# Read from the built objects, not the sources: nm lists what each object
# defines and what it needs, so macros, strings and comments cannot fool
# it. An edge A -> B is a global symbol A leaves undefined and B defines;
# a loop is a strongly connected set of two or more objects. A loop kept
# on purpose is named in tests/core/layering-allow.txt with its reason.
#
# The backends see the core through src/backend.h alone (its header says
# why): a file of src/backends/NAME/ may include backend.h, its own
# folder's headers and the OS layer's (os/*.h), nothing else of src/; and
# the contract's headers (backend.h and the few it includes for it) include
# no other core header, so internal.h cannot reach a backend through them.
# Read from the sources: run without arguments, the test checks both.
#
# Usage: test-layering.sh [OBJECT-LIST [ALLOW-LIST [PREFIX]]]; by default
# the list make writes (tests/core/layering-objects.list: the .lo files of
# librfm, librfm2g and the dds: backend) and the allow-list beside this
# script. PREFIX is the sed pattern of the per-target prefix automake puts
# before a source's name in its object's (default '^.*_la-'; a program's
# objects: '^tools_rfm-\|^rfm-'); tests/cli/test-tools-layering.sh runs it
# on the rfm tool's objects.
set -eu

srcdir=${srcdir:-.}
list=${1:-tests/core/layering-objects.list}
allow=${2:-$srcdir/tests/core/layering-allow.txt}
prefix=${3:-'^.*_la-'}
NM=${NM:-nm}

if [ ! -s "$list" ]; then
	echo "test-layering: no object list '$list' (make writes it before the tests run)" >&2
	exit 99
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rfm-layering.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

includes_ok=0
if [ $# -eq 0 ]; then
	/usr/bin/python3 - "$srcdir/src" <<'PY' || includes_ok=1
import glob, os, re, sys

src = sys.argv[1]
# The contract: backend.h and the headers it includes for backends.
contract = {'backend.h', 'board.h', 'cpu-clock.h', 'futex.h', 'event-localq.h', 'window-load.h'}
bad = []


def quoted(path):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M)


for path in sorted(glob.glob(os.path.join(src, 'backends', '*', '*.[ch]'))):
    own = 'backends/' + os.path.basename(os.path.dirname(path)) + '/'
    for inc in quoted(path):
        if inc in ('config.h', 'backend.h') or inc.startswith(('os/', own)):
            continue
        bad.append(f'{path[path.index("src/"):]} includes "{inc}": a backend includes '
                   f'backend.h, its own headers and the OS layer\'s only')
for name in sorted(contract):
    for inc in quoted(os.path.join(src, name)):
        if inc not in contract and not inc.startswith('os/'):
            bad.append(f'src/{name} (the backend contract) includes "{inc}", '
                       f'which backends must not see')
for line in bad:
    print('INCLUDE:', line)
print(f'backend includes: {len(bad)} outside the contract')
sys.exit(1 if bad else 0)
PY
fi

# One line per symbol: <source> <D|U> <name>. A libtool object (.lo)
# names its PIC object; the source is the object's name with the per-target
# prefix (librfm_la-, rfm-) dropped, in the object's directory.
while read -r lo; do
	[ -n "$lo" ] || continue
	dir=$(dirname "$lo")
	case $lo in
	*.lo)	obj=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$lo")
		[ -n "$obj" ] && [ "$obj" != none ] ||
			obj=$(sed -n "s/^non_pic_object='\(.*\)'$/\1/p" "$lo")
		obj=$dir/$obj ;;
	*)	obj=$lo ;;
	esac
	base=$(basename "$lo")
	src=$dir/$(echo "${base%.*}" | sed "s/$prefix//").c
	"$NM" "$obj" | awk -v src="$src" '
		NF == 2 && $1 == "U" { print src, "U", $2 }
		NF == 3 && $2 ~ /^[A-TV-Z]$/ { print src, "D", $3 }'
done <"$list" >"$tmp/symbols"

/usr/bin/python3 - "$tmp/symbols" "$allow" <<'PY'
import sys
from collections import defaultdict

symbols, allow_path = sys.argv[1], sys.argv[2]
defined, needs = {}, defaultdict(set)
for line in open(symbols):
    src, kind, name = line.split()
    if kind == 'D':
        defined.setdefault(name, src)
    else:
        needs[src].add(name)
edges = defaultdict(lambda: defaultdict(set))
for src, names in needs.items():
    for name in names:
        to = defined.get(name)
        if to and to != src:
            edges[src][to].add(name)

# Tarjan's strongly connected components, iteratively.
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
nodes = sorted(set(edges) | {t for e in edges.values() for t in e})
for root in nodes:
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = counter[0]; counter[0] += 1
    stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        advanced = False
        for w in it:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1
                stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges[w]))))
                advanced = True
                break
            if w in on:
                low[v] = min(low[v], index[w])
        if advanced:
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

def short(path):
    return path[path.index('src/'):] if 'src/' in path else path

allowed = {}
for n, line in enumerate(open(allow_path), 1):
    line = line.strip()
    if not line or line.startswith('#'):
        continue
    files, sep, reason = line.partition(' -- ')
    if not sep or not reason.strip():
        print(f'{allow_path}:{n}: an allowed loop needs " -- " and its reason')
        sys.exit(1)
    allowed[tuple(sorted(files.split()))] = (n, reason.strip())

failed, used = False, set()
for comp in comps:
    key = tuple(short(f) for f in comp)
    if key in allowed:
        used.add(key)
        print(f'allowed loop: {" ".join(key)} ({allowed[key][1]})')
        continue
    failed = True
    print(f'LOOP: {" ".join(key)} call each other:')
    for a in comp:
        for b in comp:
            if b in edges[a]:
                print(f'    {short(a)} -> {short(b)}: {", ".join(sorted(edges[a][b]))}')
for key, (n, reason) in sorted(allowed.items(), key=lambda kv: kv[1][0]):
    if key not in used:
        failed = True
        print(f'{allow_path}:{n}: allowed loop {" ".join(key)} no longer exists: remove the line')
print(f'{len(nodes)} objects, {sum(len(e) for e in edges.values())} file-to-file calls, '
      f'{len(comps)} loop(s), {len(used)} allowed')
sys.exit(1 if failed else 0)
PY
[ $includes_ok -eq 0 ]
