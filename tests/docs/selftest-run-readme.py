#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The README runner must fail where a reader would: checks run-readme.py
against small documents, each with one known defect (and one without).

    selftest-run-readme.py [SRCDIR BUILDDIR]
        (default: make check's $srcdir and the current directory)
"""
import os
import subprocess
import sys
import tempfile

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-readme.py")
F = "```"

# (name, document, expected exit status, text the runner must print)
CASES = [
    ("good", f"{F}sh\nrfm -u shm:t poke32 0x10 7\nrfm -u shm:t peek32 0x10\n{F}\n\n"
             f"{F}text\n0x00000007\n{F}\n", 0, "PASS: good.md:1 (sh) (output checked)"),
    ("wrong-output", f"{F}sh\necho one\necho two\n{F}\n{F}text\none\nthree\n{F}\n", 1,
     "its output differs"),
    ("ellipsis", f"{F}sh\necho a; echo b; echo c; echo 'x 42 y'\n{F}\n{F}text\na\n...\nx ... y\n{F}\n",
     0, "PASS: ellipsis.md:1"),
    ("failing-command", f"{F}sh\nfalse\necho not reached\n{F}\n", 1, "exit status 1"),
    ("left-job", f"{F}sh\nsleep 300 &\n{F}\n", 1, "left background job(s) running"),
    ("exports-carry", f"{F}sh\nexport WHO=rfm\n{F}\n{F}sh\ntest \"$WHO\" = rfm\n{F}\n", 0,
     "2 passed, 0 failed"),
    ("skip", f"<!-- readme-test: skip (needs a card) -->\n{F}sh\nfalse\n{F}\n", 0,
     "SKIP: skip.md:2 (sh): (needs a card)"),
    ("stale-replace", f"<!-- readme-test: replace --count 9 => --count 1 (short) -->\n"
                      f"{F}sh\necho hi\n{F}\n", 99, "a stale marker"),
    ("replace", f"<!-- readme-test: replace 1000 => 1 (short) -->\n{F}sh\necho 1000\n{F}\n"
                f"{F}text\n1\n{F}\n", 0, "runs with '1000' -> '1' (short)"),
    ("c-error", f"{F}c\nint main(void) {{ return undeclared; }}\n{F}\n", 1, "does not compile"),
    ("c-run", f"{F}c\n#include <rfm/rfm.h>\n#include <stdio.h>\nint main(void)\n{{\n"
              f"\trfm_node *n;\n\tif (rfm_open(\"shm:t?size=4K\", &n))\n\t\treturn 1;\n"
              f"\tprintf(\"%d\\n\", (int)rfm_node_size(n));\n\trfm_close(n);\n\treturn 0;\n}}\n{F}\n"
              f"{F}text\n4096\n{F}\n", 0, "PASS: c-run.md:1 (c) (output checked)"),
    ("orphan-marker", "<!-- readme-test: skip (x) -->\nsome prose\n", 99, "must come right before"),
    # A C block with a file marker is written for the shell blocks after it,
    # which build it as a reader would: pkg-config with the build tree's
    # rfm-uninstalled.pc (its rpath makes the program run as built).
    ("c-file", f"<!-- readme-test: file app.c -->\n{F}c\n#include <rfm/rfm.h>\n#include <stdio.h>\n"
               f"int main(void) {{ printf(\"%s\\n\", rfm_version_string()); return 0; }}\n{F}\n\n"
               f"{F}sh\nexport PKG_CONFIG_PATH=$PWD/build\n"
               f"cc app.c -o app $(pkg-config --cflags --libs rfm)\n./app\n{F}\n"
               f"{F}text\n0.1...\n{F}\n", 0, "written to app.c"),
    ("c-file-output", f"<!-- readme-test: file app.c -->\n{F}c\nint main(void) {{ return 0; }}\n{F}\n"
                      f"{F}text\nnothing\n{F}\n", 99, "no output block after it"),
    # Each module named must import: a shell block running a Python tool
    # (rfm plot) needs the rfm package as well as matplotlib.
    ("needs-modules", f"<!-- readme-test: needs-python-module os no_such_module_rfm -->\n"
                      f"{F}sh\nfalse\n{F}\n", 0,
     "SKIP: needs-modules.md:2 (sh): Python module no_such_module_rfm not available here"),
    ("needs-modules-present", f"<!-- readme-test: needs-python-module os json -->\n"
                              f"{F}sh\necho ran\n{F}\n{F}text\nran\n{F}\n", 0,
     "PASS: needs-modules-present.md:2 (sh) (output checked)"),
    ("fresh-only", f"<!-- readme-test: fresh-clone-only (it builds) -->\n{F}sh\nfalse\n{F}\n", 0,
     "SKIP: fresh-only.md:2 (sh): fresh clone only (it builds)"),
]


def main():
    if len(sys.argv) == 3:
        srcdir, builddir = sys.argv[1], sys.argv[2]
    else:
        srcdir, builddir = os.environ.get("srcdir", "."), "."
    srcdir, builddir = os.path.abspath(srcdir), os.path.abspath(builddir)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, doc, want_status, want_text in CASES:
            path = os.path.join(tmp, name + ".md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(doc)
            res = subprocess.run(["/usr/bin/python3", RUNNER, "--srcdir", srcdir, "--builddir",
                                  builddir, path], capture_output=True, text=True, check=False,
                                 timeout=300)
            out = res.stdout.replace(path, name + ".md")
            if res.returncode != want_status or want_text not in out:
                failures += 1
                print(f"FAIL: {name}: status {res.returncode} (want {want_status}), output "
                      f"lacks {want_text!r}:\n{out}{res.stderr}")
            else:
                print(f"ok: {name}")
    print(f"selftest-run-readme: {len(CASES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
