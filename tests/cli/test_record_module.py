# SPDX-License-Identifier: LGPL-2.1-or-later
"""How librfm depends on HDF5, as a user meets it.

librfm does not link libhdf5: the recorder's HDF5 writer is a module,
rfm-hdf5.so, that librfm opens when an HDF5 recording starts, from beside
the library (a build tree), else from its install directory, or from
$RFM_MODULE_DIR alone when that is set. Without a usable module an HDF5
recording is refused before any file is made, with a message that says
what to install; CSV recordings work without it. A module of another
librfm build is refused before anything of it runs.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import RFM, failed

BUILD = Path(RFM).resolve().parent.parent if RFM else None
MODULE = BUILD / "src" / ".libs" / "rfm-hdf5.so" if BUILD else None

pytestmark = pytest.mark.skipif(MODULE is None or not MODULE.exists(),
                                reason="this build has no HDF5 module (no libhdf5)")


def record(rfm, net, out, module_dir=None):
    env = {"RFM_MODULE_DIR": str(module_dir)} if module_dir is not None else None
    return rfm("-u", net.node(3), "record", "--bytes", "raw=0x100:16", "--rate", "200",
               "--duration", "0.05", "-o", str(out), env=env)


def test_module_found_beside_librfm(rfm, net, tmp_path):
    out = tmp_path / "run.h5"
    res = record(rfm, net, out)
    assert res.rc == 0, res
    assert out.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"


def test_missing_module_refuses_hdf5_and_keeps_csv(rfm, net, tmp_path):
    empty = tmp_path / "modules"
    empty.mkdir()
    out = tmp_path / "run.h5"
    res = failed(record(rfm, net, out, empty), "HDF5 recordings need librfm's HDF5 module "
                 "rfm-hdf5.so, and $RFM_MODULE_DIR")
    assert str(empty) in res.err and "CSV recordings work without it" in res.err
    assert list(tmp_path.iterdir()) == [empty], "nothing may be left of the refused file"
    csv = tmp_path / "run.csv"
    res = record(rfm, net, csv, empty)
    assert res.rc == 0, res
    lines = csv.read_text().splitlines()
    assert lines[0] == "t,t_mono_ns,t_real_ns,tick,lag_ns,raw"
    assert len(lines) > 2 and all(line.split(",")[-1] == "0" * 32 for line in lines[1:])


def without_hdf5(module, dest):
    """A copy of @module whose libhdf5 is a library no machine has: the same
    name, one digit changed, in the dynamic string table the loader reads."""
    data = module.read_bytes()
    needed = subprocess.run(["readelf", "-d", str(module)], capture_output=True, text=True,
                            check=True).stdout
    names = [line.split("[")[1].split("]")[0] for line in needed.splitlines()
             if "(NEEDED)" in line and "hdf5" in line]
    assert names, needed
    name = names[0].encode()
    gone = name[:-1] + (b"8" if name[-1:] != b"8" else b"9")
    assert data.count(name + b"\0") == 1
    dest.write_bytes(data.replace(name + b"\0", gone + b"\0"))
    return gone.decode()


def test_module_without_libhdf5_names_what_to_install(rfm, net, tmp_path):
    if shutil.which("readelf") is None:
        pytest.skip("readelf missing (Debian: binutils)")
    mods = tmp_path / "modules"
    mods.mkdir()
    gone = without_hdf5(MODULE, mods / "rfm-hdf5.so")
    res = failed(record(rfm, net, tmp_path / "run.h5", mods), "cannot be loaded")
    assert gone in res.err, res
    assert "apt install --reinstall librfm1-hdf5 libhdf5" in res.err, res
    assert not (tmp_path / "run.h5").exists()


@pytest.mark.parametrize("other, message", [
    ("other-build", "is of another build of librfm"),
    ("other-interface", "is of another librfm (its interface"),
])
def test_module_of_another_build_is_refused(rfm, net, tmp_path, other, message):
    built = BUILD / "tests" / "recorder" / ".libs" / f"{other}.so"
    if not built.exists():
        pytest.skip(f"{built} is built by make check")
    mods = tmp_path / "modules"
    mods.mkdir()
    shutil.copy(built, mods / "rfm-hdf5.so")
    res = failed(record(rfm, net, tmp_path / "run.h5", mods), message)
    assert "install the module of this librfm" in res.err, res
    assert "librfm1-hdf5" in res.err, res
    assert not (tmp_path / "run.h5").exists()


def test_not_a_module(rfm, net, tmp_path):
    mods = tmp_path / "modules"
    mods.mkdir()
    (mods / "rfm-hdf5.so").write_bytes(b"not a shared object\n")
    res = failed(record(rfm, net, tmp_path / "run.h5", mods), "cannot be loaded")
    assert str(mods / "rfm-hdf5.so") in res.err, res


def test_rfm_itself_maps_no_hdf5(rfm, net, tmp_path):
    """What ldd says of the files (test-hdf5-link.sh), seen in a running rfm:
    a CSV recording maps no libhdf5, an HDF5 recording maps it."""
    for out, hdf5 in ((tmp_path / "run.csv", False), (tmp_path / "run.h5", True)):
        env = dict(os.environ, LD_DEBUG="files")
        proc = subprocess.run([RFM, "-u", net.node(3), "record", "--bytes", "raw=0:8",
                               "--rate", "100", "--duration", "0.03", "-o", str(out)],
                              capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr[-2000:]
        loaded = "file=libhdf5" in proc.stderr
        assert loaded == hdf5, f"{out.name}: libhdf5 loaded: {loaded}"
