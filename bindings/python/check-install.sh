#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python package installed the Python way, as a user does it: a fresh
# venv (Debian's python3, --system-site-packages for Debian's setuptools,
# wheel and pytest), `pip install --no-index --no-build-isolation` of
# bindings/python against this build tree's librfm, then, with nothing set
# by hand (no PYTHONPATH, no LD_LIBRARY_PATH, from another directory):
# import rfm from the venv, and the example bench run by pytest with the
# plugin the package's entry point loads. make check-python-install runs
# it from the top build directory; by hand: srcdir=.. ../bindings/python/check-install.sh
# Exit status: 0 passed, 1 failed, 77 skipped (saying why), 99 bad setup.
top_builddir=$(pwd)
top_srcdir=$(cd "${srcdir:-.}" && pwd) || exit 99
PYTHON=${PYTHON:-/usr/bin/python3}
[ -f "$top_builddir/rfm-uninstalled.pc" ] || {
	echo "check-install: run from a configured and built build directory" >&2
	exit 99
}
if ldd "$top_builddir/src/.libs/librfm.so" 2>/dev/null | grep -q 'lib[at]san'; then
	echo "SKIP: check-install: this librfm is built with a sanitizer, which Python loads only with LD_PRELOAD"
	exit 77
fi
for module in venv ensurepip pytest setuptools wheel; do
	"$PYTHON" -c "import $module" 2>/dev/null || {
		echo "SKIP: check-install: $PYTHON has no $module (Debian: python3-venv python3-pytest python3-setuptools python3-wheel)"
		exit 77
	}
done

work=$(mktemp -d "${TMPDIR:-/tmp}/rfm-venv.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: check-install: $*"
	exit 1
}

echo "check-install: python3 -m venv --system-site-packages (in $work)"
"$PYTHON" -m venv --system-site-packages "$work/venv" || fail "venv"
echo "check-install: pip install --no-index --no-build-isolation bindings/python (RFM_BUILDDIR=$top_builddir)"
RFM_BUILDDIR=$top_builddir PYTHONDONTWRITEBYTECODE=1 \
	"$work/venv/bin/pip" install -v --no-index --no-build-isolation --no-cache-dir \
	"$top_srcdir/bindings/python" >"$work/pip.log" 2>&1 || {
	cat "$work/pip.log"
	fail "pip install"
}
grep '^rfm: building against' "$work/pip.log" || true

# A user's shell: none of the build tree's variables, another directory.
cd "$work" || exit 99
clean="env -u PYTHONPATH -u LD_LIBRARY_PATH -u LD_PRELOAD -u RFM_URI -u RFM_BUILDDIR"
$clean "$work/venv/bin/python" - "$work/venv" <<'PY' || fail "import rfm in the venv"
import os, sys
import rfm
venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(rfm.__file__).startswith(venv + os.sep), rfm.__file__
name = f"venv-check-{os.getpid()}"
with rfm.open(f"shm:{name}?size=4096") as node:
    node.poke32(0, 0xC0FFEE)
    assert node.peek32(0) == 0xC0FFEE
rfm.destroy(f"shm:{name}")
from importlib import metadata
assert any(ep.name == "rfm" and ep.value == "rfm.pytest_plugin"
           for ep in metadata.entry_points(group="pytest11")), "no pytest11 entry point"
print(f"check-install: import rfm {rfm.version} from the venv: ok")
PY

# The example bench: pytest finds the plugin through the entry point alone.
$clean "$work/venv/bin/python" -m pytest -p no:cacheprovider -q \
	"$top_srcdir/examples/python/test_hil_plant.py" || fail "the example bench with the plugin"
echo "check-install: 1 passed, 0 failed"
