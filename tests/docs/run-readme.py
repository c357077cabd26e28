#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run the examples of Markdown documents as a test: the README is a test.

    run-readme.py --srcdir DIR --builddir DIR [--keep] DOC.md [DOC.md ...]

Every fenced block of each document, in order:

  ```sh        run by bash (set -e) in a scratch directory, the build's tools
               first on PATH. Blocks of one document share exported variables
               (each block sources what the previous one exported), not jobs:
               a block that starts a job with `&` must stop it itself
               (`wait %1`, `kill %1`); one still running at the end of its
               block fails the block and is killed by its PID.
  ```c         a complete program: compiled and linked against the build
               tree's librfm (through libtool, so an ASan build works), run.
  ```python    run by /usr/bin/python3 under BUILDDIR/rfm-env (the documented
               way to use the Python package from a build tree).
  ```text      right after one of those (blank lines between at most): what
               that block prints on stdout. Compared line by line (trailing
               blanks ignored): "..." as a whole line stands for any number
               of lines, inside a line for any text.
  anything else (yaml, plain ```) is not run.

The scratch directory has links to the source tree's examples/, bench/ and
docs/ and to the build tree as build/, so the paths the documents use
(examples/layouts/test-rig.yaml, build/rfm-env) work, and whatever a
block writes (rig.h, event.csv) lands in the scratch directory.

Network names: every shm network of a document is renamed to a private one
so parallel runs and other users' networks are never touched: "shm:NAME"
becomes "shm:readme<PID>d<N>NAME" (PID of this runner, N the document's
index). Each document starts with no network of its own and whatever its
blocks leave behind is destroyed at the end.

Markers, an HTML comment on the line(s) just before a block, invisible on
the rendered page; each one the test uses is printed:

  <!-- readme-test: skip (REASON) -->      not run (needs root, a card, an
                                           install; or builds the tree)
  <!-- readme-test: replace OLD => NEW (REASON) -->
                                           run with OLD replaced by NEW, e.g.
                                           a shorter run; OLD must occur
  <!-- readme-test: needs-python-module NAME -->
                                           skipped (printed) when NAME is
                                           not importable under rfm-env
                                           (matplotlib; rfm in a build
                                           without Python bindings)

Python blocks are skipped (printed, counted) in a build without the Python
bindings (configure --disable-bindings-python, the TSan build).
  <!-- readme-test: file NAME -->          not run: written to NAME in the
                                           scratch directory for later blocks

Exit status: 0 every run block passed, 1 a block failed, 99 bad usage or a
document the runner cannot read (a marker with no block, an unknown marker).
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

RUN_LANGS = {"sh": "sh", "shell": "sh", "bash": "sh", "console": None,
             "c": "c", "python": "python", "py": "python"}
BLOCK_TIMEOUT = 120  # seconds; a hung example fails instead of hanging make check
MARKER = re.compile(r"^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$")


class DocError(Exception):
    """The document cannot be read as a test (a bad marker)."""


class Block:
    def __init__(self, doc, line, lang, text):
        self.doc, self.line, self.lang, self.text = doc, line, lang, text
        self.markers = []
        self.expected = None  # the following ```text block, if any

    def where(self):
        return f"{self.doc}:{self.line}"


def parse(path, shown):
    """The fenced blocks of the document at @path, markers attached."""
    blocks, pending, last_code, gap_ok = [], [], None, False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        fence = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)", line)
        if m:
            pending.append((i + 1, m.group(1)))
        elif fence:
            indent, tick, info = fence.groups()
            body, i = [], i + 1
            while i < len(lines) and not lines[i].strip().startswith(tick):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            if i == len(lines):
                raise DocError(f"{shown}:{len(lines)}: unterminated code block")
            block = Block(shown, i - len(body), info.lower(), "\n".join(body) + "\n")
            if block.lang == "text" and last_code is not None and gap_ok and not pending:
                last_code.expected = block
                last_code = None
            else:
                block.markers = pending
                pending = []
                blocks.append(block)
                last_code = block if RUN_LANGS.get(block.lang) else None
            gap_ok = True
            i += 1
            continue
        elif line.strip():
            if pending:
                raise DocError(f"{shown}:{pending[0][0]}: a readme-test marker must come "
                               "right before a code block")
            gap_ok = False
            last_code = None
        i += 1
    if pending:
        raise DocError(f"{shown}:{pending[0][0]}: a readme-test marker with no block after it")
    return blocks


def output_matches(expected, actual):
    """True when @actual (text) is what @expected (text with ... wildcards) shows."""
    want = [l.rstrip() for l in expected.rstrip("\n").split("\n")]
    got = [l.rstrip() for l in actual.rstrip("\n").split("\n")] if actual.strip() else []

    def line_ok(pattern, text):
        parts = [re.escape(p) for p in pattern.split("...")]
        return re.fullmatch(".*".join(parts), text) is not None

    def match(wi, gi):
        if wi == len(want):
            return gi == len(got)
        if want[wi] == "...":
            return any(match(wi + 1, g) for g in range(gi, len(got) + 1))
        return gi < len(got) and line_ok(want[wi], got[gi]) and match(wi + 1, gi + 1)

    return match(0, 0)


class Runner:
    def __init__(self, srcdir, builddir, keep):
        self.srcdir, self.builddir, self.keep = srcdir, builddir, keep
        self.passed = self.failed = self.skipped = 0
        self.work = tempfile.mkdtemp(prefix="rfm-readme-")
        for name in ("examples", "bench", "docs"):
            os.symlink(os.path.join(srcdir, name), os.path.join(self.work, name))
        os.symlink(builddir, os.path.join(self.work, "build"))
        self.state = os.path.join(self.work, ".exported")
        self.env = dict(os.environ)
        self.env.pop("RFM_URI", None)
        self.env.pop("RFM_LAYOUT", None)
        self.env["PATH"] = os.path.join(builddir, "tools") + os.pathsep + self.env["PATH"]
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.networks = set()

    def close(self):
        for net in sorted(self.networks):
            subprocess.run([os.path.join(self.builddir, "tools", "rfm"), "-u", f"shm:{net}",
                            "destroy", "--force"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=self.env, check=False)
        if self.keep:
            print(f"readme-test: scratch directory kept: {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)

    def rename_networks(self, text, doc_index):
        prefix = f"readme{os.getpid()}d{doc_index}"

        def sub(m):
            self.networks.add(prefix + m.group(1))
            return "shm:" + prefix + m.group(1)

        return re.sub(r"shm:([A-Za-z0-9_][A-Za-z0-9_.-]*)", sub, text)

    def run_doc(self, path, shown, doc_index):
        open(self.state, "w").close()
        blocks = parse(path, shown)
        for block in blocks:
            kind = RUN_LANGS.get(block.lang)
            text, skip = block.text, None
            for line, marker in block.markers:
                verb, _, rest = marker.partition(" ")
                if verb == "skip":
                    skip = rest or "(no reason given)"
                elif verb == "replace":
                    m = re.fullmatch(r"(.+?) => (.*?)(?: \((.*)\))?", rest)
                    if not m:
                        raise DocError(f"{shown}:{line}: expected 'replace OLD => NEW (WHY)'")
                    if m.group(1) not in text:
                        raise DocError(f"{shown}:{line}: replace: '{m.group(1)}' is not in "
                                       "the block (a stale marker)")
                    text = text.replace(m.group(1), m.group(2))
                    print(f"readme-test: {block.where()}: runs with '{m.group(1)}' -> "
                          f"'{m.group(2)}' ({m.group(3) or 'no reason given'})")
                elif verb == "needs-python-module":
                    if not self.importable(rest):
                        skip = f"Python module {rest} not available here"
                elif verb == "file":
                    if kind:
                        raise DocError(f"{shown}:{line}: 'file' is for data blocks, not {block.lang}")
                    with open(os.path.join(self.work, rest), "w", encoding="utf-8") as f:
                        f.write(block.text)
                    print(f"readme-test: {block.where()}: written to {rest}")
                else:
                    raise DocError(f"{shown}:{line}: unknown readme-test marker '{verb}'")
            if not kind:
                if block.expected is not None:
                    raise DocError(f"{block.where()}: a text block after a block that is not run")
                continue
            if kind == "python" and not skip and not self.importable("rfm"):
                skip = "this build has no Python bindings (configure says why)"
            if skip:
                self.skipped += 1
                print(f"SKIP: {block.where()} ({block.lang}): {skip}")
                continue
            self.run_block(block, kind, self.rename_networks(text, doc_index))

    def importable(self, module):
        """Whether /usr/bin/python3 under BUILDDIR/rfm-env imports @module."""
        probe = subprocess.run([os.path.join(self.builddir, "rfm-env"), "/usr/bin/python3", "-c",
                                f"import {module}"], capture_output=True, env=self.env,
                               check=False)
        return probe.returncode == 0

    def run_block(self, block, kind, text):
        base = os.path.join(self.work, f".block{block.line}")
        if kind == "sh":
            with open(base + ".sh", "w", encoding="utf-8") as f:
                f.write(self.shell_script(text))
            cmd = ["/bin/bash", base + ".sh"]
        elif kind == "python":
            with open(base + ".py", "w", encoding="utf-8") as f:
                f.write(text)
            cmd = [os.path.join(self.builddir, "rfm-env"), "/usr/bin/python3", base + ".py"]
        else:
            cmd = self.compile_c(block, text, base)
            if cmd is None:
                return
        status, out, err = self.execute(cmd)
        problem = None
        if status == "timeout":
            problem = f"did not finish within {BLOCK_TIMEOUT} s (stopped)"
        elif status != 0:
            problem = f"exit status {status}"
        elif block.expected is not None and not output_matches(block.expected.text, out):
            problem = (f"its output differs from the one shown at {block.expected.where()}\n"
                       f"--- shown:\n{block.expected.text}--- printed:\n{out}")
        if problem:
            self.failed += 1
            print(f"FAIL: {block.where()} ({block.lang}): {problem}")
            print("--- block (as run):\n" + text + "--- stdout:\n" + out + "--- stderr:\n" + err)
        else:
            self.passed += 1
            shown = " (output checked)" if block.expected is not None else ""
            print(f"PASS: {block.where()} ({block.lang}){shown}")

    def shell_script(self, text):
        """@text wrapped: shared exports in and out, jobs it left stopped by PID."""
        q = self.state.replace("'", "'\\''")
        return (
            "set -e\n"
            "__readme_jobs() {\n"
            "  __left=$(jobs -pr)\n"
            "  [ -z \"$__left\" ] && return 0\n"
            "  echo \"readme-test: the block left background job(s) running (PID $__left):"
            " it must stop them (wait %1, kill %1)\" >&2\n"
            "  kill $__left 2>/dev/null; wait $__left 2>/dev/null; return 1\n"
            "}\n"
            "trap '__readme_jobs' EXIT\n"
            f". '{q}'\n"
            f"{text}\n"
            "__readme_jobs || exit 97\n"
            f"export -p | grep -v -E '^declare -x (OLDPWD|PWD|SHLVL|_)=' > '{q}'\n"
        )

    def compile_c(self, block, text, base):
        with open(base + ".c", "w", encoding="utf-8") as f:
            f.write(text)
        cc = os.environ.get("RFM_DOCS_CC", "cc")
        cflags = os.environ.get("RFM_DOCS_CFLAGS", "").split()
        ldflags = os.environ.get("RFM_DOCS_LDFLAGS", "").split()
        cmd = [os.path.join(self.builddir, "libtool"), "--quiet", "--tag=CC", "--mode=link", cc,
               "-Wall", "-Wextra", "-Werror", *cflags,
               "-I" + os.path.join(self.srcdir, "include"),
               "-I" + os.path.join(self.builddir, "include"),
               "-o", base, base + ".c", *ldflags,
               os.path.join(self.builddir, "src", "librfm.la")]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=self.work, check=False)
        if res.returncode:
            self.failed += 1
            print(f"FAIL: {block.where()} (c): does not compile\n{res.stdout}{res.stderr}"
                  f"--- block:\n{text}")
            return None
        return [base]

    def execute(self, cmd):
        # Own process group: whatever the block leaves behind is found and stopped.
        proc = subprocess.Popen(cmd, cwd=self.work, env=self.env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=BLOCK_TIMEOUT)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            status = "timeout"
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # stragglers of a failed block
        except ProcessLookupError:
            pass
        return status, out, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("docs", nargs="+")
    args = ap.parse_args()
    srcdir, builddir = os.path.abspath(args.srcdir), os.path.abspath(args.builddir)
    runner = Runner(srcdir, builddir, args.keep)
    try:
        for index, doc in enumerate(args.docs):
            path = doc if os.path.isabs(doc) else os.path.join(srcdir, doc)
            print(f"== {doc}")
            runner.run_doc(path, doc, index)
    except (DocError, OSError) as e:
        print(f"ERROR: {e}")
        return 99
    finally:
        runner.close()
    print(f"readme-test: {runner.passed} passed, {runner.failed} failed, "
          f"{runner.skipped} skipped")
    return 1 if runner.failed else 0


if __name__ == "__main__":
    sys.exit(main())
