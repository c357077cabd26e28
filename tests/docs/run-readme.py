#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Run the examples of Markdown documents as a test: the README is a test.

    run-readme.py --srcdir DIR --builddir DIR [--keep] DOC.md [DOC.md ...]
    run-readme.py --srcdir DIR --fresh-clone [--keep] [README.md]

Two ways to run them:

  build tree   (make check, every build): against the build tree under
               test, in a scratch directory laid out like a clone (below);
               blocks marked fresh-clone-only are skipped.
  fresh clone  (--fresh-clone; make check-readme, once per CI run): as a new
               user follows the README top to bottom. The files git tracks
               in SRCDIR, as they are in its work tree, are copied into a
               temporary directory (a fresh clone of the tree under test);
               every block runs there in order, with the environment of a
               Debian user's shell (the system PATH, none of the build's or
               the caller's variables): its quick start (./quickstart.sh
               demo) builds build/, and what later blocks use is what the
               earlier ones made. The packages must be installed already.

Every fenced block of each document, in order:

  ```sh        run by bash (set -e) in a scratch directory, the build's tools
               first on PATH. Blocks of one document share exported variables
               (each block sources what the previous one exported), not jobs:
               a block that starts a job with `&` must stop it itself
               (`wait %1`, `kill %1`); one still running at the end of its
               block fails the block and is killed by its PID.
  ```c         a complete program: compiled and linked against the build
               tree's librfm (through libtool, so an ASan build works), run.
               With a "file" marker it is only written, for the shell
               blocks after it to build as the document says.
  ```python    build tree: run by /usr/bin/python3 under BUILDDIR/rfm-env
               (the documented way to use the Python package from a build
               tree); fresh clone: by the python3 of the blocks' shell (the
               venv the README activates).
  ```text      right after one of those (blank lines between at most): what
               that block prints on stdout. Compared line by line (trailing
               blanks ignored): "..." as a whole line stands for any number
               of lines, inside a line for any text.
  anything else (yaml, plain ```) is not run.

In the build tree the scratch directory has links to the source tree's
examples/, bench/, docs/, bindings/ and quickstart.sh and to the build tree
as build/, so the paths the documents use (examples/layouts/test-rig.yaml,
build/rfm-env, build/rfm-uninstalled.pc) work, and whatever a block writes
(rig.h, event.csv) lands in the scratch directory. The build's tools come
first on PATH. In a sanitizer build (ASan, TSan), whose librfm needs its
runtime loaded first, the shell blocks' `cc` is wrapped to add the build's
flags (a user's build has no sanitizer).

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
  <!-- readme-test: needs-python-module NAME [NAME ...] -->
                                           skipped (printed) when a NAME is
                                           not importable under rfm-env
                                           (matplotlib; rfm in a build
                                           without Python bindings, for a
                                           shell block whose command is
                                           Python, such as rfm plot)

  <!-- readme-test: fresh-clone-only (REASON) -->
                                           run only in a fresh clone, skipped
                                           in a build tree (the quick start
                                           that builds one; a venv install)

Python blocks are skipped (printed, counted) in a build without the Python
bindings (configure --disable-bindings-python, the TSan build).
  <!-- readme-test: file NAME -->          not run: written to NAME in the
                                           scratch directory for later blocks
                                           (data, or a C program they build)

Exit status: 0 every run block passed, 1 a block failed, 99 bad usage or a
document the runner cannot read (a marker with no block, an unknown marker).
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RUN_LANGS = {"sh": "sh", "shell": "sh", "bash": "sh", "console": None,
             "c": "c", "python": "python", "py": "python"}
BLOCK_TIMEOUT = 120  # seconds; a hung example fails instead of hanging make check
# The quick start of a fresh clone installs nothing (the packages are there)
# but bootstraps, configures and builds: longer on a loaded 2-core machine.
FRESH_BLOCK_TIMEOUT = 900
# A Debian user's shell: the system's PATH, and none of these (the build's,
# make's, the sanitizers', the caller's).
USER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NOT_A_USERS = ("RFM_URI", "RFM_LAYOUT", "RFM_BUILDDIR", "PYTHONPATH", "PYTHONHOME",
               "LD_LIBRARY_PATH", "LD_PRELOAD", "PKG_CONFIG_PATH", "VIRTUAL_ENV", "CC", "CFLAGS",
               "LDFLAGS", "CPPFLAGS", "ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS",
               "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "RFM_TEST_SANITIZED",
               "RFM_DOCS_CC", "RFM_DOCS_CFLAGS", "RFM_DOCS_LDFLAGS", "srcdir", "top_srcdir")
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
    def __init__(self, srcdir, builddir, keep, fresh=False):
        self.srcdir, self.keep, self.fresh = srcdir, keep, fresh
        self.passed = self.failed = self.skipped = 0
        self.top = tempfile.mkdtemp(prefix="rfm-readme-")
        self.networks = set()
        if fresh:
            self.work = os.path.join(self.top, "librfm")
            self.builddir = os.path.join(self.work, "build")  # made by the quick start
            self.clone(srcdir, self.work)
            self.env = {k: v for k, v in os.environ.items() if k not in NOT_A_USERS}
            self.env["PATH"] = USER_PATH
            self.timeout = FRESH_BLOCK_TIMEOUT
        else:
            self.work, self.builddir = self.top, builddir
            for name in ("examples", "bench", "docs", "bindings", "quickstart.sh"):
                os.symlink(os.path.join(srcdir, name), os.path.join(self.work, name))
            os.symlink(builddir, os.path.join(self.work, "build"))
            self.env = dict(os.environ)
            self.env.pop("RFM_URI", None)
            self.env.pop("RFM_LAYOUT", None)
            self.env["PATH"] = os.path.join(builddir, "tools") + os.pathsep + self.env["PATH"]
            self.timeout = BLOCK_TIMEOUT
            self.wrap_cc_for_sanitizers()
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.state = os.path.join(self.top, ".exported")

    @staticmethod
    def clone(srcdir, dest):
        """The files git tracks in @srcdir, as its work tree has them, into @dest."""
        listed = subprocess.run(["git", "-C", srcdir, "ls-files", "-z", "--cached"],
                                capture_output=True, check=False)
        if listed.returncode:
            raise DocError(f"--fresh-clone: {srcdir} is not a git work tree "
                           f"({listed.stderr.decode().strip()})")
        os.makedirs(dest)
        for rel in listed.stdout.decode().split("\0"):
            src = os.path.join(srcdir, rel)
            if not rel or not os.path.lexists(src):
                continue  # deleted in the work tree, not yet committed
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if os.path.islink(src):
                os.symlink(os.readlink(src), target)
            elif os.path.isfile(src):
                shutil.copy2(src, target)
        print(f"readme-test: fresh clone of {srcdir} in {dest}")

    def wrap_cc_for_sanitizers(self):
        """A sanitizer build's librfm needs its runtime first: the blocks'
        `cc` gets the build's flags (the C blocks get them already)."""
        cc = os.environ.get("RFM_DOCS_CC", "cc").split()
        cflags = os.environ.get("RFM_DOCS_CFLAGS", "")
        ldflags = os.environ.get("RFM_DOCS_LDFLAGS", "")
        if "-fsanitize" not in cflags + ldflags:
            return
        # The compiler by its full path: the wrapper named cc comes first on PATH.
        found = shutil.which(cc[0], path=self.env["PATH"])
        if found is None:
            raise DocError(f"the compiler {cc[0]} is not on PATH")
        cc[0] = found
        bindir = os.path.join(self.top, ".bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "cc"), "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\n# run-readme.py: this build's sanitizer flags (a user's build "
                    "has none)\nexec " + " ".join(shlex.quote(c) for c in cc) + " " + cflags +
                    ' "$@" ' + ldflags + "\n")
        os.chmod(os.path.join(bindir, "cc"), 0o755)
        self.env["PATH"] = bindir + os.pathsep + self.env["PATH"]
        print(f"readme-test: a sanitizer build: the blocks' cc adds '{cflags}' and '{ldflags}'")
        self.preload_sanitizer_for_python(bindir)

    def preload_sanitizer_for_python(self, bindir):
        """rfm plot runs Python, which loads this build's module linked with
        the sanitizer's runtime: that runtime must come first, so rfm plot's
        interpreter (RFM_PYTHON) preloads it. Python's own allocations at
        exit are not our leaks."""
        lib = os.path.join(self.builddir, "src", ".libs", "librfm.so")
        ldd = subprocess.run(["ldd", lib], capture_output=True, text=True, check=False)
        runtime = re.search(r"^\s*lib[at]san\S* => (\S+)", ldd.stdout, re.M)
        if not runtime or "RFM_PYTHON" in self.env:
            return
        launcher = os.path.join(bindir, "python3-sanitized")
        with open(launcher, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\n# run-readme.py: this build's sanitizer runtime first\n"
                    f"LD_PRELOAD={shlex.quote(runtime.group(1))}${{LD_PRELOAD:+ $LD_PRELOAD}} "
                    'ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" '
                    'exec /usr/bin/python3 "$@"\n')
        os.chmod(launcher, 0o755)
        self.env["RFM_PYTHON"] = launcher

    def close(self):
        rfm_tool = os.path.join(self.builddir, "tools", "rfm")
        for net in sorted(self.networks):
            if os.path.exists(rfm_tool):
                subprocess.run([rfm_tool, "-u", f"shm:{net}", "destroy", "--force"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=self.env, check=False)
        if self.keep:
            print(f"readme-test: scratch directory kept: {self.top}")
        else:
            shutil.rmtree(self.top, ignore_errors=True)

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
                    if not rest.split():
                        raise DocError(f"{shown}:{line}: needs-python-module names no module")
                    missing = [m for m in rest.split() if not self.importable(m)]
                    if missing:
                        skip = f"Python module {', '.join(missing)} not available here"
                elif verb == "fresh-clone-only":
                    if not self.fresh:
                        skip = f"fresh clone only {rest}".rstrip()
                elif verb == "file":
                    if kind not in (None, "c"):
                        raise DocError(f"{shown}:{line}: 'file' is for data and C blocks, "
                                       f"not {block.lang}")
                    if block.expected is not None:
                        raise DocError(f"{shown}:{line}: a 'file' block is not run: no output "
                                       "block after it")
                    # Its networks are the document's private ones too: a C
                    # program that opens shm:lab makes the network the blocks
                    # after it look at (and none of the machine's is touched).
                    with open(os.path.join(self.work, rest), "w", encoding="utf-8") as f:
                        f.write(self.rename_networks(block.text, doc_index))
                    print(f"readme-test: {block.where()}: written to {rest}")
                    kind = None
                else:
                    raise DocError(f"{shown}:{line}: unknown readme-test marker '{verb}'")
            if not kind:
                if block.expected is not None:
                    raise DocError(f"{block.where()}: a text block after a block that is not run")
                continue
            if kind == "python" and not skip and not self.fresh and not self.importable("rfm"):
                skip = "this build has no Python bindings (configure says why)"
            if skip:
                self.skipped += 1
                print(f"SKIP: {block.where()} ({block.lang}): {skip}")
                continue
            self.run_block(block, kind, self.rename_networks(text, doc_index))

    def importable(self, module):
        """Whether the blocks' Python imports @module (build tree: /usr/bin/python3
        under BUILDDIR/rfm-env; fresh clone: python3 in the blocks' shell)."""
        if self.fresh:
            cmd = ["/bin/bash", "-c", f". '{self.quoted_state()}'; python3 -c 'import {module}'"]
        else:
            cmd = [os.path.join(self.builddir, "rfm-env"), "/usr/bin/python3", "-c",
                   f"import {module}"]
        probe = subprocess.run(cmd, capture_output=True, env=self.env, cwd=self.work, check=False)
        return probe.returncode == 0

    def quoted_state(self):
        return self.state.replace("'", "'\\''")

    def run_block(self, block, kind, text):
        base = os.path.join(self.work, f".block{block.line}")
        if kind == "sh":
            with open(base + ".sh", "w", encoding="utf-8") as f:
                f.write(self.shell_script(text))
            cmd = ["/bin/bash", base + ".sh"]
        elif kind == "python":
            with open(base + ".py", "w", encoding="utf-8") as f:
                f.write(text)
            if self.fresh:
                cmd = ["/bin/bash", "-c", f". '{self.quoted_state()}' && exec python3 '{base}.py'"]
            else:
                cmd = [os.path.join(self.builddir, "rfm-env"), "/usr/bin/python3", base + ".py"]
        elif self.fresh:
            raise DocError(f"{block.where()}: a C block in a fresh clone needs a 'file' marker "
                           "and a shell block that builds it as a user would")
        else:
            cmd = self.compile_c(block, text, base)
            if cmd is None:
                return
        started = time.monotonic()
        status, out, err = self.execute(cmd)
        took = f"{time.monotonic() - started:.1f} s"
        problem = None
        if status == "timeout":
            problem = f"did not finish within {self.timeout} s (stopped)"
        elif status != 0:
            problem = f"exit status {status}"
        elif block.expected is not None and not output_matches(block.expected.text, out):
            problem = (f"its output differs from the one shown at {block.expected.where()}\n"
                       f"--- shown:\n{block.expected.text}--- printed:\n{out}")
        if problem:
            self.failed += 1
            print(f"FAIL: {block.where()} ({block.lang}, {took}): {problem}")
            print("--- block (as run):\n" + text + "--- stdout:\n" + out + "--- stderr:\n" + err)
        else:
            self.passed += 1
            shown = " (output checked)" if block.expected is not None else ""
            print(f"PASS: {block.where()} ({block.lang}){shown} [{took}]")

    def shell_script(self, text):
        """@text wrapped: shared exports in and out, jobs it left stopped by PID."""
        q = self.quoted_state()
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
            out, err = proc.communicate(timeout=self.timeout)
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
    ap.add_argument("--builddir")
    ap.add_argument("--fresh-clone", action="store_true",
                    help="copy the tree into a temporary clone and follow the documents there")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("docs", nargs="*")
    args = ap.parse_args()
    if not args.fresh_clone and (not args.builddir or not args.docs):
        ap.error("--builddir and documents are needed (or --fresh-clone)")
    srcdir = os.path.abspath(args.srcdir)
    builddir = os.path.abspath(args.builddir) if args.builddir else None
    if args.fresh_clone and not args.docs:
        args.docs = ["README.md"]
    try:
        runner = Runner(srcdir, builddir, args.keep, fresh=args.fresh_clone)
    except (DocError, OSError) as e:
        print(f"ERROR: {e}")
        return 99
    try:
        for index, doc in enumerate(args.docs):
            # A fresh clone reads its own copy, as its user does.
            path = doc if os.path.isabs(doc) else os.path.join(runner.work if args.fresh_clone
                                                               else srcdir, doc)
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
