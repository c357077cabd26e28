# SPDX-License-Identifier: LGPL-2.1-or-later
"""rfm's errors are also Python's built-in exceptions, as a Python user
expects them (issue 41): a timeout is a TimeoutError, an unknown name a
KeyError with a suggestion, a missing file a FileNotFoundError, a refused
permission a PermissionError; ``in`` works on tables and layouts. The
library's code stays in ``.code`` and the old classes still catch."""

import errno
import os

import pytest

import rfm
from rfm import ErrorCode as C

TEXT = """\
version: 1
name: rig
window: 64K
regions:
  - name: control
    offset: 0x0
    size: 0x100
    writer: 0
    variables:
      - { name: mode, type: u32 }
      - { name: throttle, type: f32 }
    records:
      - name: frame
        variables:
          - { name: cycle, type: u64 }
  - name: plant
    offset: 0x100
    size: 0x100
    writer: 1
    variables:
      - { name: speed, type: f64 }
"""


@pytest.fixture
def layout():
    return rfm.Layout.from_string(TEXT, "rig.yaml")


@pytest.fixture
def table(node, layout):
    return node.attach_layout(layout)


def test_a_timed_out_wait_is_a_timeout_error(node):
    node.enable_events()
    with pytest.raises(TimeoutError) as info:
        node.wait_event(timeout=0.01)
    assert isinstance(info.value, rfm.Timeout)
    assert info.value.code is C.ETIMEDOUT
    assert "no event within" in info.value.message


def test_a_consume_that_times_out_is_a_timeout_error(node):
    node.ring_create(0x1000, 0x8000, slot_size=64, slot_count=16)
    with node.ring_consumer(0x1000) as consumer, pytest.raises(TimeoutError):
        consumer.consume(timeout=0.01)


def test_an_unknown_variable_is_a_key_error_with_a_suggestion(table):
    with pytest.raises(KeyError) as info:
        table["control.throtle"]
    err = info.value
    assert isinstance(err, rfm.NotFound)           # old code still catches it
    assert err.code is C.ENOTFOUND
    assert "did you mean 'control.throttle'?" in str(err)
    assert str(err).endswith("[RFM_ENOTFOUND]")    # not KeyError's quoted repr
    with pytest.raises(KeyError):
        table["control.throtle"] = 1.0
    with pytest.raises(KeyError):
        table.var("nothing.like.it")


def test_an_unknown_record_or_field_is_a_key_error(table):
    with pytest.raises(KeyError) as info:
        table.record("control.fram")
    assert "did you mean 'control.frame'?" in str(info.value)
    with pytest.raises(KeyError) as info:
        table["control.frame"] = {"cycel": 1}
    assert "cycle" in str(info.value)


def test_a_name_with_nothing_close_says_so_without_a_guess(table):
    with pytest.raises(KeyError) as info:
        table["zzz.qqq"]
    assert "did you mean" not in str(info.value)


def test_in_on_tables_and_layouts(table, layout):
    assert "control.mode" in table
    assert "control.frame" in table            # records too
    assert "control.frame.cycle" in table      # fields too
    assert "control.mode" in layout
    assert "control.throtle" not in table
    assert "control.throtle" not in layout
    assert 3 not in layout                     # never a TypeError for another type
    assert None not in table


def test_a_missing_layout_file_is_file_not_found(tmp_path):
    missing = tmp_path / "no-such-layout.yaml"
    with pytest.raises(FileNotFoundError) as info:
        rfm.Layout.load(missing)
    err = info.value
    assert isinstance(err, rfm.NotFound)
    assert err.code is C.ENOENT
    assert err.errno == errno.ENOENT
    assert err.filename == str(missing)


def test_a_layout_path_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError):
        rfm.Layout.load(None)  # type: ignore[arg-type]  # the point of the test
    with pytest.raises(TypeError):
        rfm.Layout.load(42)  # type: ignore[arg-type]


def test_a_refused_write_is_a_permission_error(table):
    with pytest.raises(PermissionError) as info:
        table["plant.speed"] = 1.0             # node 0 writes plant, node 1's region
    assert isinstance(info.value, rfm.OwnerError)
    assert info.value.code is C.EOWNER


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a second user to own the segment")
def test_a_network_of_another_user_is_a_permission_error(name):
    # A 0600 network created by nobody (uid 65534): root is not its owner,
    # and by default librfm refuses to join another user's segment.
    pid = os.fork()
    if pid == 0:
        try:
            os.setuid(65534)
            rfm.open(f"shm:{name}?size=4096").close()
            os._exit(0)
        except BaseException:  # noqa: BLE001 - report through the status
            os._exit(1)
    assert os.waitpid(pid, 0)[1] == 0
    with pytest.raises(PermissionError) as info:
        rfm.open(f"shm:{name}?mode=0600")
    assert isinstance(info.value, rfm.Error)


def test_waiting_with_nothing_enabled_is_a_runtime_error(node):
    with pytest.raises(RuntimeError) as info:
        node.wait_event(timeout=0)
    err = info.value
    assert isinstance(err, rfm.ClosedError)        # what main raised: still caught
    assert err.code is C.ECLOSED
    assert "enable_events()" in str(err)
    assert not node.closed


def test_bad_arguments_are_value_and_type_errors(node):
    with pytest.raises(TypeError):
        node.peek32("8")
    with pytest.raises(ValueError):
        node.read(0, -1)
    with pytest.raises(ValueError):
        node.poke8(0, 256)
    with pytest.raises(TypeError):
        node.wait_event(timeout="1")


@pytest.mark.parametrize("cls, builtin", [
    (rfm.Timeout, TimeoutError),
    (rfm.PermissionDenied, PermissionError),
    (rfm.OwnerError, PermissionError),
    (rfm.NotFound, LookupError),
])
def test_family_classes_derive_from_the_builtins(cls, builtin):
    assert issubclass(cls, builtin)
    assert issubclass(cls, rfm.Error)


def test_errors_built_from_a_code_keep_code_and_message():
    for cls in (rfm.Timeout, rfm.PermissionDenied, rfm.FileNotFound, rfm.UnknownName):
        err = cls(C.ETIMEDOUT if cls is rfm.Timeout else C.EPERM, "detail")
        assert err.message == "detail"
        assert int(err.code) < 0
        assert str(err).startswith("detail [RFM_")
