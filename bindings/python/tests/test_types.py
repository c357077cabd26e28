# SPDX-License-Identifier: LGPL-2.1-or-later
"""The package is typed (PEP 561): every public function and method carries
annotations, its enums cover the header's values, and py.typed ships with
it. mypy itself runs over the package, the tests and the examples in make
check (bindings/python/run-mypy)."""

import inspect
import os

import rfm
from rfm import _rfm_swig as swig


def public_callables():
    for name in rfm.__all__:
        obj = getattr(rfm, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and obj.__module__.startswith("rfm") \
                and not issubclass(obj, (tuple, BaseException, int)):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr not in ("__init__", "__enter__", "__exit__",
                                                         "__getitem__", "__setitem__",
                                                         "__contains__", "__iter__"):
                    continue
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    yield f"{name}.{attr}", member


def test_the_public_api_is_annotated():
    missing = [name for name, fn in public_callables() if "return" not in fn.__annotations__]
    assert missing == []
    assert rfm.Node.wait_event.__annotations__["return"]      # the example
    assert len(list(public_callables())) > 100


def test_every_parameter_is_annotated():
    bare = []
    for name, fn in public_callables():
        for param in list(inspect.signature(fn).parameters.values())[1:]:
            if param.name not in fn.__annotations__ and param.kind not in (
                    param.VAR_POSITIONAL, param.VAR_KEYWORD):
                bare.append(f"{name}({param.name})")
    assert bare == []


def test_the_package_says_it_is_typed():
    assert os.path.isfile(os.path.join(os.path.dirname(rfm.__file__), "py.typed"))


def test_error_codes_cover_the_header():
    header = {name[len("RFM_"):]: getattr(swig, name) for name in dir(swig)
              if name.startswith("RFM_E") and isinstance(getattr(swig, name), int)
              and getattr(swig, name) < 0}
    assert {m.name: int(m) for m in rfm.ErrorCode} == header


def test_event_types_cover_the_header():
    # enum rfm_event_type; the other RFM_EVENT_* macros are not types.
    not_types = {"F_LOOPBACK", "HANDLES_PER_NODE", "QUEUE_MIN", "SPIN_DEFAULT_NS", "TYPE_MAX"}
    header = {name[len("RFM_EVENT_"):]: getattr(swig, name) for name in dir(swig)
              if name.startswith("RFM_EVENT_") and name[len("RFM_EVENT_"):] not in not_types}
    assert {m.name: int(m) for m in rfm.EventType} == header
    assert max(header.values()) < swig.RFM_EVENT_TYPE_MAX
