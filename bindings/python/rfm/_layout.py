# SPDX-License-Identifier: LGPL-2.1-or-later
"""Typed-variable tables (<rfm/layout.h>): layouts, variables, records.

    layout = rfm.Layout.load("hil-sim.yaml")       # or Layout.from_string(text)
    with node.attach_layout(layout) as table:
        table["command.frame.step_us"] = 500          # typed, checked, owner-checked
        table["flags.fault"]                          # -> str
        table["command.frame"]                        # -> dict, a consistent snapshot
        table["command.frame"] = {"cycle": 1, "run": True}   # one seqlock publish

Values are Python types: int, float, bool, str (string variables), bytes
(bytes variables), lists for arrays. Writes outside min/max raise
:class:`rfm.RangeError`; writes to a region another node owns raise
:class:`rfm.OwnerError`; a load with problems raises :class:`rfm.LayoutError`
whose ``diagnostics`` lists each as an :class:`rfm.Diagnostic`.
"""

from __future__ import annotations

import os
import re
import struct
from types import TracebackType
from typing import (TYPE_CHECKING, Any, AsyncIterator, Callable, Dict, FrozenSet,
                    Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Type, Union)

from . import _errors
from . import _events
from . import _waits
from . import _rfm_swig as _swig

if TYPE_CHECKING:
    from ._node import Node

#: A variable's value in Python: int, float, bool, str (string variables),
#: bytes (bytes variables), or a list of those for arrays. Any, so that a
#: test bench needs no cast for the type its layout gives the variable.
Value = Any


class Diagnostic(NamedTuple):
    """One problem in a layout: where (file, 1-based line and column; 0 when
    built in code), the error code, the message, and the text
    "file:line:column: message" as the tools print it."""

    file: str
    line: int
    column: int
    code: int
    message: str
    text: str

    def __str__(self) -> str:
        return self.text


class RegionInfo(NamedTuple):
    """A region: its name, place, the one node that writes it, its description."""

    name: str
    offset: int
    size: int
    writer: int
    description: str


class RecordInfo(NamedTuple):
    """A record: its name ("region.record"), place and data, region index, description."""

    name: str
    offset: int
    size: int
    data_offset: int
    data_size: int
    region: int
    description: str


class VarInfo(NamedTuple):
    """A variable: type is its name ("u32", "f64", "string"...), count
    its elements (bytes for string/bytes), min/max None when unlimited, record
    the dotted name of its record or None, byte_order "little" or "big"."""

    name: str
    type: str
    count: int  # type: ignore[assignment]  # a field, as before: tuple.count is shadowed
    offset: int
    size: int
    element_size: int
    byte_order: str
    writer: int
    min: Optional[float]
    max: Optional[float]
    unit: str
    description: str
    record: Union[str, int, None]
    region: int
    record_offset: int


class RecordChange(NamedTuple):
    """A publish of a record seen by :meth:`rfm.Record.changes`: its sequence
    word (even) and the snapshot of its fields, as a dict."""

    seq: int
    values: Dict[str, Value]


# type code -> (name of the get/set functions, struct format, kind)
_TYPES: Dict[int, Tuple[Optional[str], Optional[str], type]] = {
    _swig.RFM_TYPE_U8: ("u8", "B", int), _swig.RFM_TYPE_U16: ("u16", "H", int),
    _swig.RFM_TYPE_U32: ("u32", "I", int), _swig.RFM_TYPE_U64: ("u64", "Q", int),
    _swig.RFM_TYPE_I8: ("i8", "b", int), _swig.RFM_TYPE_I16: ("i16", "h", int),
    _swig.RFM_TYPE_I32: ("i32", "i", int), _swig.RFM_TYPE_I64: ("i64", "q", int),
    _swig.RFM_TYPE_F32: ("f32", "f", float), _swig.RFM_TYPE_F64: ("f64", "d", float),
    _swig.RFM_TYPE_BOOL: ("bool", "?", bool),
    _swig.RFM_TYPE_STRING: (None, None, str), _swig.RFM_TYPE_BYTES: (None, None, bytes),
}


def _range_error(message: str) -> _errors.Error:
    return _errors._make(_swig.RFM_ERANGE, message)


def _convert_diagnostics(error: _errors.LayoutError) -> _errors.LayoutError:
    raw = getattr(error, "diagnostics", None) or []
    error.diagnostics = [Diagnostic(*d) for d in raw]
    return error


class Layout:
    """A validated address map: regions (each with one writer node),
    variables and records. Immutable; share it freely between threads and
    nodes. Build one with :meth:`load` or :meth:`from_string`."""

    __slots__ = ("_h", "_records", "_counts", "__weakref__")
    _records: Optional[FrozenSet[str]]
    _counts: Optional[Dict[str, int]]

    def __init__(self, handle: Any) -> None:
        if not isinstance(handle, _swig.Handle):
            raise TypeError("rfm.Layout is made by Layout.load() or Layout.from_string()")
        self._h = handle
        self._records = None
        self._counts = None

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> Layout:
        """Load and validate a layout file (YAML; docs/layout-format.md).

        ``path`` is a str or path-like object. A file that is not there
        raises :class:`rfm.FileNotFound` (a FileNotFoundError), one that may
        not be read :class:`rfm.PermissionDenied` (a PermissionError), a
        layout with problems :class:`rfm.LayoutError` with ``diagnostics``.
        """
        path = os.fsdecode(os.fspath(path))
        try:
            return cls(_swig.rfm_layout_load_file(path))
        except _errors.LayoutError as e:
            raise _convert_diagnostics(e) from None
        except _errors.NotFound as e:
            if e.code == _errors.ErrorCode.ENOENT:
                raise _errors.file_not_found(e, path) from None
            raise

    @classmethod
    def from_string(cls, text: Union[str, bytes, bytearray],
                    source_name: Optional[str] = None) -> Layout:
        """Load and validate a layout from text; ``source_name`` names it in diagnostics."""
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode()
        if not isinstance(text, str):
            raise TypeError(f"layout text must be str or bytes, not {type(text).__name__}")
        try:
            return cls(_swig.rfm_layout_load_string(text, source_name))
        except _errors.LayoutError as e:
            raise _convert_diagnostics(e) from None

    @property
    def name(self) -> str:
        return _swig.rfm_layout_name(self._h)

    @property
    def window_size(self) -> int:
        return _swig.rfm_layout_window_size(self._h)

    @property
    def regions(self) -> List[RegionInfo]:
        """Every region, as :class:`RegionInfo`."""
        out = []
        for i in range(_swig.rfm_layout_region_count(self._h)):
            r = _swig.rfm_layout_region_info(self._h, i)
            out.append(RegionInfo(r.name, r.offset, r.size, r.writer, r.description))
        return out

    @property
    def records(self) -> List[RecordInfo]:
        """Every record, as :class:`RecordInfo` (name "region.record")."""
        out = []
        for i in range(_swig.rfm_layout_record_count(self._h)):
            r = _swig.rfm_layout_record_info(self._h, i)
            out.append(RecordInfo(r.name, r.offset, r.size, r.data_offset, r.data_size,
                                  r.region, r.description))
        return out

    @property
    def variables(self) -> List[VarInfo]:
        """Every variable (those in records included), as :class:`VarInfo`."""
        records = self.records
        return [_var_info(_swig.rfm_layout_var_info(self._h, i), records)
                for i in range(_swig.rfm_layout_var_count(self._h))]

    def record_names(self) -> FrozenSet[str]:
        """The records' names ("region.record"), as a frozenset."""
        if self._records is None:
            self._records = frozenset(r.name for r in self.records)
        return self._records

    def _element_counts(self) -> Dict[str, int]:
        if self._counts is None:
            self._counts = {v.name: v.count for v in self.variables}
        return self._counts

    def names(self) -> List[str]:
        """Every name a table looks up: variables (record fields as
        "region.record.field") and records, in layout order."""
        return list(self._element_counts()) + sorted(self.record_names())

    def __contains__(self, name: object) -> bool:
        """Whether ``table[name]`` names something: a variable, a record, or
        an element "region.var[i]" of an array (any other type: False)."""
        if not isinstance(name, str):
            return False
        counts = self._element_counts()
        if name in counts or name in self.record_names():
            return True
        element = _ELEMENT.fullmatch(name)
        if element is None or element.group(1) not in counts:
            return False
        return int(element.group(2), 0) < max(counts[element.group(1)], 1)

    def header(self, prefix: Optional[str] = None) -> str:
        """The generated C header for the layout, as text."""
        return _swig.rfm_layout_write_header(self._h, prefix)

    def __repr__(self) -> str:
        return f"<rfm.Layout {self.name!r} window={self.window_size:#x}>"


# Reads of a record in _snapshot() before a writer that never pauses is an error.
_SNAPSHOT_TRIES = 1000

# "region.var[3]": an element of an array variable (as rfm_var_open() reads it).
_ELEMENT = re.compile(r"(.+)\[\s*((?:0[xX][0-9a-fA-F]+)|[0-9]+)\s*\]")


def _var_info(v: Any, records: Optional[Sequence[RecordInfo]] = None) -> VarInfo:
    kind = _swig.rfm_type_name(v.type)
    record = None
    if v.record >= 0:
        record = records[v.record].name if records else v.record
    return VarInfo(v.name, kind, v.count, v.offset, v.size, v.element_size,
                   "big" if v.byte_order == _swig.RFM_ORDER_BIG else "little", v.writer,
                   v.min if v.has_min else None, v.max if v.has_max else None,
                   v.unit, v.description, record, v.region, v.record_offset)


class Variable:
    """A variable (or one element, "region.var[3]") resolved on a node."""

    __slots__ = ("_h", "info", "get", "set", "_type")
    info: VarInfo
    #: Read the variable: ``var.get()``.
    get: Callable[[], Value]
    #: Write the variable (type- and range-checked): ``var.set(value)``.
    set: Callable[[Value], None]

    def __init__(self, handle: Any) -> None:
        self._h = handle
        raw = _swig.rfm_var_get_info(handle)
        self._type = raw.type
        self.info = _var_info(raw)
        self.get, self.set = self._accessors(raw)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def owner_check(self) -> bool:
        raise AttributeError("owner_check is write-only")

    @owner_check.setter
    def owner_check(self, enforce: bool) -> None:
        """False lets this handle write a region another node owns (tests, tools)."""
        _swig.rfm_var_set_owner_check(self._h, bool(enforce))

    def _accessors(self, raw: Any) -> Tuple[Callable[[], Value], Callable[[Value], None]]:
        h, count, name = self._h, raw.count, raw.name
        suffix, fmt, kind = _TYPES[raw.type]
        if kind is str:
            return _text_accessors(h, count, name)
        if kind is bytes:
            return _bytes_accessors(h, count, name)
        assert suffix is not None and fmt is not None  # a number type
        check = _checker(name, fmt, kind)
        if count <= 1:
            return _scalar_accessors(h, suffix, check)
        return _array_accessors(h, count, name, fmt, check)

    def __repr__(self) -> str:
        return f"<rfm.Variable {self.info.name} {self.info.type}[{self.info.count}]>"


_Accessors = Tuple[Callable[[], Value], Callable[[Value], None]]


def _text_accessors(h: Any, count: int, name: str) -> _Accessors:
    def get() -> Value:
        return _swig.rfm_var_get_string(h, count + 1)

    def set(value: Value) -> None:  # noqa: A001
        if not isinstance(value, str):
            raise TypeError(f"{name}: a string variable takes str, not "
                            f"{type(value).__name__}")
        if "\0" in value:
            raise ValueError(f"{name}: text must not contain NUL characters")
        _swig.rfm_var_set_string(h, value)
    return get, set


def _bytes_accessors(h: Any, count: int, name: str) -> _Accessors:
    def get() -> Value:
        return _swig.rfm_var_get_array(h, 0, count, count)

    def set(value: Value) -> None:  # noqa: A001
        data = bytes(memoryview(value))
        if len(data) > count:
            raise _range_error(f"{name}: {len(data)} bytes do not fit in {count}")
        data = data.ljust(count, b"\0")
        _swig.rfm_var_set_array(h, 0, count, data)
    return get, set


def _scalar_accessors(h: Any, suffix: str, check: Callable[[Value], Value]) -> _Accessors:
    getter = getattr(_swig, "rfm_var_get_" + suffix)
    setter = getattr(_swig, "rfm_var_set_" + suffix)

    def get() -> Value:
        return getter(h, 0)

    def set(value: Value) -> None:  # noqa: A001
        setter(h, 0, check(value))
    return get, set


def _array_accessors(h: Any, count: int, name: str, fmt: str,
                     check: Callable[[Value], Value]) -> _Accessors:
    size = struct.calcsize(fmt) * count
    layout = struct.Struct(f"={count}{fmt}")

    def get() -> Value:
        return list(layout.unpack(_swig.rfm_var_get_array(h, 0, count, size)))

    def set(values: Value) -> None:  # noqa: A001
        values = list(values)
        if len(values) != count:
            raise ValueError(f"{name}: expected {count} elements, got {len(values)}")
        data = layout.pack(*(check(v) for v in values))
        _swig.rfm_var_set_array(h, 0, count, data)
    return get, set


def _checker(name: str, fmt: str, kind: type) -> Callable[[Value], Value]:
    """Python-side type and range check of one element, before C sees it."""
    if kind is bool:
        return _bool_checker(name)
    if kind is float:
        return _float_checker(name, fmt)
    return _int_checker(name, fmt)


def _bool_checker(name: str) -> Callable[[Value], Value]:
    def check(value: Value) -> Value:
        if not isinstance(value, (bool, int)) or value not in (0, 1):
            raise TypeError(f"{name}: a bool variable takes True/False, not {value!r}")
        return bool(value)
    return check


def _float_checker(name: str, fmt: str) -> Callable[[Value], Value]:
    limit = 3.4028234663852886e38 if fmt == "f" else None

    def check(value: Value) -> Value:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name}: expected a number, not {type(value).__name__}")
        value = float(value)
        if limit is not None and abs(value) > limit and abs(value) != float("inf"):
            raise _range_error(f"{name}: {value!r} does not fit in a 32-bit float")
        return value
    return check


def _int_checker(name: str, fmt: str) -> Callable[[Value], Value]:
    bits = struct.calcsize(fmt) * 8
    lo, hi = (0, (1 << bits) - 1) if fmt.isupper() else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)

    def check(value: Value) -> Value:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}: expected an int, not {type(value).__name__}")
        if not lo <= value <= hi:
            raise _range_error(f"{name}: {value} is outside its type's range {lo}..{hi}")
        return int(value)
    return check


class Record:
    """A record resolved on a node: consistent reads, atomic publishes (seqlock)."""

    __slots__ = ("_h", "name", "_fields")
    name: str
    _fields: Dict[str, Variable]

    def __init__(self, handle: Any, name: str, layout: Layout) -> None:
        self._h = handle
        self.name = name
        prefix = name + "."
        self._fields = {}
        for info in layout.variables:
            if info.record == name:
                short = info.name[len(prefix):]
                self._fields[short] = Variable(_swig.rfm_record_var(handle, short))

    @property
    def fields(self) -> List[str]:
        return list(self._fields)

    @property
    def sequence(self) -> int:
        """The sequence word now (even when idle): a cheap "anything new?" check."""
        return _swig.rfm_record_sequence(self._h)

    def wait(self, last: Optional[int] = None, timeout: Optional[float] = None) -> int:
        """Wait until the record is published past sequence ``last`` (default:
        its sequence now) and return the new sequence. With ``notify`` in the
        layout it sleeps on that event (use a node of its own for record
        waits); otherwise it polls. ``timeout`` in seconds (None: forever);
        :class:`rfm.Timeout` when it passes. Other threads run meanwhile."""
        if last is None:
            last = self.sequence
        return _swig.rfm_record_wait(self._h, last, _events._timeout_ns(timeout))

    def read(self) -> Dict[str, Value]:
        """A consistent snapshot as a dict (raises :class:`rfm.DataLoss` (ETORN)
        if the writer kept publishing through every attempt)."""
        _swig.rfm_record_fetch(self._h)
        return {k: v.get() for k, v in self._fields.items()}

    def _snapshot(self) -> RecordChange:
        """A consistent snapshot and the sequence it belongs to: the
        sequence is the same before and after the read."""
        for _ in range(_SNAPSHOT_TRIES):
            before = self.sequence
            _swig.rfm_record_fetch(self._h)
            if self.sequence == before and before % 2 == 0:
                return RecordChange(before, {k: v.get() for k, v in self._fields.items()})
        raise _errors._make(_swig.RFM_ETORN,
                            f"{self.name}: published again during each of "
                            f"{_SNAPSHOT_TRIES} reads")

    def changes(self, last: Optional[int] = None, timeout: Optional[float] = None, *,
                total: Optional[float] = None) -> Iterator[RecordChange]:
        """Iterate over the record's publishes after sequence ``last``
        (default: its sequence now), each a :class:`rfm.RecordChange`
        ``(seq, values)``, until one of two limits: ``timeout``, the idle
        timeout (no publish within that many seconds; None: never), or
        ``total``, the total deadline (that many seconds after the call,
        however often the writer publishes; None: none). Either ends the
        loop; neither raises. A writer faster than the loop is sampled:
        each change is newer than the one before, not every publish."""
        idle = _events._timeout_ns(timeout)
        deadline = _waits.Deadline(total)
        if last is None:
            last = self.sequence
        return self._changes_until(last, idle, deadline)

    def _changes_until(self, last: int, idle: Optional[int],
                       deadline: _waits.Deadline) -> Iterator[RecordChange]:
        while True:
            ns = deadline.wait_ns(idle)
            if ns == -1:
                return
            try:
                _swig.rfm_record_wait(self._h, last, ns)
            except (_errors.Timeout, _errors.WouldBlock):
                return
            change = self._snapshot()
            last = change.seq
            yield change

    async def wait_async(self, last: Optional[int] = None,
                         timeout: Optional[float] = None) -> int:
        """:meth:`wait` for asyncio: the event loop runs on while it waits
        (a worker thread waits in the library; see rfm._waits)."""
        if last is None:
            last = self.sequence
        return await _waits.sliced(lambda ns: _swig.rfm_record_wait(self._h, last, ns), timeout)

    async def changes_async(self, last: Optional[int] = None, timeout: Optional[float] = None,
                            *, total: Optional[float] = None) -> AsyncIterator[RecordChange]:
        """:meth:`changes` for asyncio (``async for change in record.changes_async()``)."""
        idle = _events._timeout_ns(timeout)
        deadline = _waits.Deadline(total)
        if last is None:
            last = self.sequence
        while True:
            ns = deadline.wait_ns(idle)
            if ns == -1:
                return
            try:
                await self.wait_async(last, None if ns is None else ns / 1e9)
            except (_errors.Timeout, _errors.WouldBlock):
                return
            change = self._snapshot()
            last = change.seq
            yield change

    def write(self, values: Mapping[str, Value]) -> None:
        """Publish ``values`` (a dict of fields) in one seqlock write. Fields
        not given keep the values the record has now."""
        unknown = [k for k in values if k not in self._fields]
        if unknown:
            missing = _errors.NotFound(_swig.RFM_ENOTFOUND,
                                       f"{self.name} has no field {unknown[0]!r} "
                                       f"(fields: {', '.join(self._fields)})")
            raise _errors.unknown_name(missing, unknown[0], self._fields)
        if len(values) != len(self._fields):
            _swig.rfm_record_fetch(self._h)
        for k, v in values.items():
            self._fields[k].set(v)
        _swig.rfm_record_publish(self._h)

    @property
    def owner_check(self) -> bool:
        raise AttributeError("owner_check is write-only")

    @owner_check.setter
    def owner_check(self, enforce: bool) -> None:
        """False lets this handle publish a record in a region another node owns."""
        _swig.rfm_record_set_owner_check(self._h, bool(enforce))

    def __repr__(self) -> str:
        return f"<rfm.Record {self.name} fields={self.fields}>"


class Table:
    """A :class:`Layout` on a :class:`rfm.Node`: ``table["region.var"]`` get/set,
    ``table["region.record"]`` as dicts. Made by ``node.attach_layout(layout)``.
    Its handles close with the node (or :meth:`close`)."""

    __slots__ = ("layout", "node", "_vars", "_records")
    layout: Layout
    node: Node
    _vars: Dict[str, Variable]
    _records: Dict[str, Record]

    def __init__(self, layout: Layout, node: Node) -> None:
        if not isinstance(layout, Layout):
            raise TypeError(f"attach_layout takes an rfm.Layout, not {type(layout).__name__}")
        self.layout = layout
        self.node = node
        self._vars = {}
        self._records = {}

    def var(self, name: str) -> Variable:
        """The :class:`Variable` ``name`` ("region.var", "region.rec.var", "x[2]")."""
        var = self._vars.get(name)
        if var is None:
            try:
                var = Variable(_swig.rfm_var_open(self.layout._h, self.node._h, name))
            except _errors.NotFound as e:
                raise _errors.unknown_name(e, name, self.layout.names()) from None
            self._vars[name] = var
        return var

    def stale(self, name: str) -> bool:
        """Whether variable ``name``'s value is stale: its writer (its region's
        writer node) is detached or its heartbeat stopped (rfm_var_stale())."""
        ret = _swig.rfm_var_stale(self.node._h, self.var(name)._h)
        if ret < 0:
            raise _errors._make(ret, _swig.rfm_last_error())
        return bool(ret)

    def record(self, name: str) -> Record:
        """The :class:`Record` ``name`` ("region.record")."""
        rec = self._records.get(name)
        if rec is None:
            try:
                handle = _swig.rfm_record_open(self.layout._h, self.node._h, name)
            except _errors.NotFound as e:
                raise _errors.unknown_name(e, name, sorted(self.layout.record_names())) from None
            rec = Record(handle, name, self.layout)
            self._records[name] = rec
        return rec

    def __contains__(self, name: object) -> bool:
        """``name in table``: as ``name in table.layout``."""
        return name in self.layout

    def __getitem__(self, name: str) -> Value:
        var = self._vars.get(name)  # the common case first: a variable seen before
        if var is not None:
            return var.get()
        if name in self.layout.record_names():
            return self.record(name).read()
        return self.var(name).get()

    def __setitem__(self, name: str, value: Value) -> None:
        var = self._vars.get(name)
        if var is not None:
            var.set(value)
        elif name in self.layout.record_names():
            if not isinstance(value, dict):
                raise TypeError(f"{name} is a record: assign a dict, not {type(value).__name__}")
            self.record(name).write(value)
        else:
            self.var(name).set(value)

    def close(self) -> None:
        """Close the handles opened so far (the node closes them too)."""
        for var in self._vars.values():
            _swig.rfm_var_close(var._h)
        for rec in self._records.values():
            _swig.rfm_record_close(rec._h)
        self._vars.clear()
        self._records.clear()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<rfm.Table {self.layout.name!r} on {self.node!r}>"
