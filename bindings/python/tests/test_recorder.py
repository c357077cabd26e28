# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm.Recorder and rfm.recording: a known writer recorded and read back.

Node 0 publishes a record whose every field follows from one counter and
a ramp; node 1 records it with rfm.Recorder; rfm.recording.load() must
give the values in order, each row consistent, every missed publish
counted, as numpy arrays and pandas DataFrames.
"""

import os
import subprocess
import sys

import pytest

import rfm

h5py = pytest.importorskip("h5py", reason="h5py missing (Debian: python3-h5py)")
pytest.importorskip("pandas", reason="pandas missing (Debian: python3-pandas)")
recording = pytest.importorskip("rfm.recording")

WINDOW = 64 * 1024

TEXT = f"""\
version: 1
name: rec
window: {WINDOW}
regions:
  - name: a
    offset: 0
    size: 0x400
    writer: 0
    variables:
      - {{ name: ramp, type: u32, unit: V }}
      - {{ name: vec, type: f64, count: 2 }}
      - {{ name: label, type: string, length: 8 }}
    records:
      - name: state
        variables:
          - {{ name: n, type: u64 }}
          - {{ name: twice, type: i64 }}
"""


@pytest.fixture
def layout():
    return rfm.Layout.from_string(TEXT, "rec.yaml")


@pytest.fixture
def nodes(name):
    with rfm.open(f"shm:{name}?node=0&size={WINDOW}") as w, \
            rfm.open(f"shm:{name}?node=1&size={WINDOW}") as r:
        yield w, r


def test_on_change_rows_are_the_publishes_or_counted(nodes, layout, tmp_path):
    writer, reader = nodes
    table = writer.attach_layout(layout)
    state = table.record("a.state")
    path = str(tmp_path / "run.h5")
    with rfm.Recorder(reader, path, ["a.state"], layout=layout, on_change=True,
                      poll=20e-6) as rec:
        for k in range(1, 3001):
            state.write({"n": k, "twice": -2 * k})
        final = state.sequence
        probe = reader.attach_layout(layout).record("a.state")
        while probe.sequence != final:
            pass
    stats = rec.stats
    assert stats.state == "ended"
    with recording.load(path) as run:
        assert run.complete
        df = run.records["a.state"]
        assert list(df.columns[:5]) == ["t", "t_mono_ns", "t_real_ns", "seq", "missed"]
        assert (df["n"] == df["seq"] // 2).all()
        assert (df["twice"] == -2 * df["n"]).all()
        assert df["seq"].is_monotonic_increasing
        assert (df["missed"].iloc[1:].values ==
                (df["seq"].diff().iloc[1:].values // 2 - 1)).all()
        assert int(df["n"].iloc[-1]) == 3000
        assert int(df["missed"].sum()) == stats.missed_updates
        assert run.attrs["missed_updates"] == stats.missed_updates
    rec.close()


def test_frames_as_numpy_and_pandas(nodes, layout, tmp_path):
    writer, reader = nodes
    table = writer.attach_layout(layout)
    table["a.ramp"] = 7
    table["a.vec"] = [1.5, -2.5]
    table["a.label"] = "pump"
    path = str(tmp_path / "frames.h5")
    rec = rfm.Recorder(reader, path, ["a.ramp", "a.vec", "a.label"], layout=layout,
                       rate=500, duration=0.05)
    rec.start()
    assert rec.wait(timeout=60)
    stats = rec.stop()
    rec.close()
    assert stats.rows_written >= 1
    with recording.load(path) as run:
        assert set(run.array("a.ramp")) == {7}
        assert run.array("a.vec").shape[1] == 2
        df = run.frames
        assert (df["a.vec[1]"] == -2.5).all()
        assert (df["a.label"] == "pump").all()
        assert run.file["frames/a.ramp"].attrs["unit"] == "V"
        assert run.names() == ["a.label", "a.ramp", "a.vec"]
        assert len(run.time()) == len(df)


def test_closing_the_node_stops_the_recorder(name, layout, tmp_path):
    path = str(tmp_path / "closed.h5")
    node = rfm.open(f"shm:{name}?node=1&size={WINDOW}")
    rec = rfm.Recorder(node, path, ["a.ramp"], layout=layout, rate=100).start()
    node.close()
    with pytest.raises(rfm.ClosedError):
        rec.stop()
    rec.close()
    with recording.load(path) as run:
        assert run.complete


def test_refusals(nodes, layout, tmp_path):
    _, reader = nodes
    with pytest.raises(rfm.NotFound):
        rfm.Recorder(reader, str(tmp_path / "x.h5"), ["a.nope"], layout=layout)
    with pytest.raises(ValueError):
        rfm.Recorder(reader, str(tmp_path / "x.h5"), ["a.ramp"], layout=layout, rate=10,
                     on_event="intr1")
    existing = tmp_path / "exists.h5"
    existing.write_text("keep")
    rec = rfm.Recorder(reader, str(existing), ["a.ramp"], layout=layout)
    with pytest.raises(rfm.SystemCallError):
        rec.start()
    rec.close()
    assert existing.read_text() == "keep"
    plain = tmp_path / "plain.h5"
    with h5py.File(plain, "w") as f:
        f["x"] = [1]
    with pytest.raises(ValueError, match="not a recording"):
        recording.load(str(plain))
    assert not os.path.exists(tmp_path / "x.h5")


def test_without_the_hdf5_module_hdf5_is_not_supported_and_csv_works(name, tmp_path):
    """librfm opens its HDF5 module when an HDF5 recording starts, once per
    process: in a process that cannot find it, rfm.Recorder raises
    rfm.NotSupported saying what to install, and CSV still records."""
    empty = tmp_path / "modules"
    empty.mkdir()
    script = f"""
import rfm, sys
with rfm.open("shm:{name}?node=1&size={WINDOW}") as node:
    rec = rfm.Recorder(node, {str(tmp_path / "run.h5")!r}, [], byte_ranges={{"raw": (0, 8)}}, rate=100,
                       duration=0.02)
    try:
        rec.start()
    except rfm.NotSupported as e:
        print("NotSupported:", e)
    rec.close()
    with rfm.Recorder(node, {str(tmp_path / "run.csv")!r}, [], byte_ranges={{"raw": (0, 8)}}, rate=100,
                      duration=0.02) as csv:
        csv.wait()
    print("csv", csv.stats.state)
"""
    env = dict(os.environ, RFM_MODULE_DIR=str(empty))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "NotSupported:" in proc.stdout and "rfm-hdf5" in proc.stdout, proc.stdout
    assert proc.stdout.splitlines()[-1] == "csv ended", proc.stdout
    assert not (tmp_path / "run.h5").exists()
    assert (tmp_path / "run.csv").read_text().count("\n") > 1
