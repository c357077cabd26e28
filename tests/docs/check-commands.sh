#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A command's text is written once, in the table of tools/commands.c, and
# four places must agree with it: rfm --help (name and one-line summary),
# rfm help NAME and rfm NAME --help (synopsis, summary, options), the
# COMMANDS section of man/rfm.1 and the bash completion. For each command:
#  - rfm --help, rfm help NAME and rfm NAME --help give the same summary
#    and synopsis (the table's row);
#  - rfm.1 has an entry for it, in the table's order, whose synopsis (the
#    .TP tag as it renders; a command with several forms has one tag a
#    form, "|" between them in the table) is the table's, word for word;
#  - every long option of rfm NAME --help is in its rfm.1 entries, and
#    every option of an rfm.1 tag is one rfm NAME --help lists;
#  - the completion offers exactly those options after "rfm NAME --", and
#    for a command with subcommands (layout, ring) exactly their names;
#  - rfm.1 names no command the table lacks.
# make check runs it from the top build directory with $srcdir set.
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
for tool in groff bash; do
	command -v $tool >/dev/null ||
		{ echo "check-commands: $tool is not installed (Debian: groff-base, bash)"; exit 77; }
done
[ -x tools/rfm ] || { echo "check-commands: no tools/rfm in $(pwd)"; exit 99; }
exec /usr/bin/python3 - "$top_srcdir" "$(pwd)/tools/rfm" <<'PY'
import os, re, subprocess, sys

srcdir, rfm = sys.argv[1], sys.argv[2]
COMMON = {'--uri', '--json', '--help', '--version'}
fails = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        fails.append(what)


def tool(*args):
    return subprocess.run([rfm, *args], capture_output=True, text=True).stdout


def words(text):
    """A synopsis with its spacing made canonical."""
    return ' '.join(text.replace('\u2010', '-').replace('\u2212', '-').split())


def alternatives(args):
    """Split a synopsis at the "|" outside brackets: one form each."""
    forms, depth, cur = [], 0, ''
    for i, ch in enumerate(args):
        depth += ch == '['
        depth -= ch == ']'
        if ch == '|' and depth == 0 and args[i - 1:i] == ' ':
            forms.append(cur.strip())
            cur = ''
        else:
            cur += ch
    return forms + [cur.strip()]


def long_options(text):
    return set(re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', text))


# The table, as rfm --help lists it.
table = re.findall(r'^  ([a-z][a-z0-9-]*)  +(.*)$',
                   tool('--help').split('Commands:\n', 1)[1].split('\n\n', 1)[0], re.M)
check(len(table) >= 10, f'rfm --help lists {len(table)} commands')
rows = {}
for name, summary in table:
    usage = tool(name, '--help')
    head = usage.split('\n', 2)
    m = re.match(r'Usage: rfm \[OPTIONS\] ' + re.escape(name) + r'(?: (.*))?$', head[0])
    check(m is not None, f'{name}: rfm {name} --help starts "{head[0]}"')
    args = words(m.group(1) or '') if m else ''
    check(len(head) > 1 and head[1] == summary + '.',
          f'{name}: rfm {name} --help says "{head[1] if len(head) > 1 else ""}", '
          f'rfm --help "{summary}"')
    check(tool('help', name) == usage, f'{name}: rfm help {name} differs from rfm {name} --help')
    # Its options: those at the start of a line ("  -o, --output FILE").
    body = usage.split('\nCommon options', 1)[0]
    opts = set(re.findall(r'^ {2,8}(?:-[A-Za-z0-9], )?(--[a-z][a-z0-9-]*)', body, re.M))
    rows[name] = (args, opts - COMMON)

# rfm.1's COMMANDS section, rendered: the tags at the first indent are the
# synopses, the lines indented further their text.
page = open(os.path.join(srcdir, 'man', 'rfm.1')).read()
section = page.split('\n.SH COMMANDS\n', 1)[1].split('\n.SH ', 1)[0]
text = subprocess.run(['groff', '-man', '-Tutf8', '-P-cbou', '-rLL=400n'],
                      input='.TH RFM 1\n.SH COMMANDS\n' + section, capture_output=True,
                      text=True).stdout
entries = []                    # [(tag, text)]
for line in text.splitlines():
    if re.match(r'^ {7}[a-z]', line):
        tag = line.strip()
        # A short tag shares its line with the text (groff's .TP).
        m = re.match(r'^(\S+(?: \S+)*?)(?:   +(.*))?$', tag)
        entries.append([words(m.group(1)), m.group(2) or ''])
    elif entries and line.strip():
        entries[-1][1] += ' ' + line.strip()

names = [n for n, _ in table]
man_forms, man_text, order = {}, {}, []
for tag, body in entries:
    # peek8 OFFSET, peek16 OFFSET, ...: one tag for a family of commands.
    # "poke16 ..." in such a tag: as the command before it.
    parts = [p.strip() for p in re.split(r', (?=[a-z][a-z0-9]*\b)', tag)]
    before = ''
    for part in parts:
        name, _, rest = part.partition(' ')
        part = name + ' ' + (before if rest == '...' else rest)
        before = part.split(' ', 1)[1]
        if name not in rows:
            check(False, f'rfm.1 has a command "{name}" (tag "{tag}") that rfm --help lacks')
            continue
        if name not in order:
            order.append(name)
        man_forms.setdefault(name, []).append(words(part.split(' ', 1)[1]))
        man_text[name] = man_text.get(name, '') + ' ' + tag + ' ' + body

check(order == [n for n in names if n in order],
      f'rfm.1 lists the commands in another order than rfm --help: {" ".join(order)}')
for name in names:
    args, opts = rows[name]
    if name not in man_forms:
        check(False, f'{name}: no entry in rfm.1\'s COMMANDS')
        continue
    forms = man_forms[name]
    check(' | '.join(forms) == args,
          f'{name}: rfm.1 says "{name} {" | ".join(forms)}", the table "{name} {args}"')
    missing = sorted(o for o in opts if o not in long_options(man_text[name]))
    check(not missing, f'{name}: rfm.1 does not describe {", ".join(missing)}')
    extra = sorted(long_options(' '.join(man_forms[name])) - opts - COMMON)
    check(not extra, f'{name}: rfm.1\'s synopsis has {", ".join(extra)}, '
                     f'which rfm {name} --help lacks')

# The completion, as bash runs it.
def complete(*cmdline):
    script = ('. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _rfm; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    env = dict(os.environ, PATH=os.path.dirname(rfm) + os.pathsep + os.environ['PATH'])
    out = subprocess.run(['bash', '-c', script, 'bash',
                          os.path.join(srcdir, 'tools', 'rfm.bash-completion'), *cmdline],
                         capture_output=True, text=True, env=env).stdout
    return set(out.split())


for name in names:
    args, opts = rows[name]
    offered = {o for o in complete('rfm', name, '--') if o not in COMMON}
    check(offered == opts, f'{name}: rfm {name} --<TAB> offers {sorted(offered)}, '
                           f'rfm {name} --help lists {sorted(opts)}')
    forms = alternatives(args)
    subs = [f.split(' ', 1)[0] for f in forms]
    if len(forms) > 1 and all(re.fullmatch(r'[a-z][a-z0-9-]*', s) for s in subs):
        offered = complete('rfm', name, '')
        check(offered == set(subs), f'{name}: rfm {name} <TAB> offers {sorted(offered)}, '
                                    f'its subcommands are {subs}')

for f in fails:
    print('FAIL:', f)
print(f'check-commands: {len(names)} commands, {checks - len(fails)} checks passed, '
      f'{len(fails)} failed')
sys.exit(1 if fails else 0)
PY
