# SPDX-License-Identifier: LGPL-2.1-or-later
"""Timeouts, deadlines and asyncio for every wait of the package.

Two limits, and every iterator takes both:

- ``timeout`` is the **idle timeout**: the iteration ends when nothing
  arrives for that many seconds (None: never idle out; 0: take only what is
  there now). A single wait (``wait_event``, ``consume``, ``Record.wait``)
  has only this one, and raises :class:`rfm.Timeout` when it passes.
- ``total`` is the **total deadline**: the iteration ends that many seconds
  after it began, however busy the source is (None: no deadline). An
  iterator never raises for either limit: it just ends.

asyncio: events are awaited on the node's pollable descriptor
(``loop.add_reader``), in the event loop's own thread. Ring messages and
record changes have no descriptor of their own (a ring consumer sleeps on
its producer's notification inside the library), so their awaits run the
library's GIL-free wait in worker threads of this module, one slice of
:data:`ASYNC_SLICE` seconds at a time: a cancelled await ends with the
slice under way, any number of awaits share the :data:`WORKERS` threads
(more awaits than threads take turns, a slice each), and a ring message a
slice took after the cancel is kept for the consumer's next take, never lost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from typing import Callable, Optional, TypeVar, Union

T = TypeVar("T")

#: What the package accepts as data to write: any C-contiguous bytes-like
#: object (bytes, bytearray, memoryview, array.array, numpy arrays...).
Buffer = Union[bytes, bytearray, memoryview]

#: Longest single library wait of a worker thread (seconds): how late a
#: cancelled ring or record await lets its worker go.
ASYNC_SLICE = 0.05
#: Worker threads of those awaits (slices of every await take turns on them).
WORKERS = 16


def timeout_ns(timeout: Optional[float], what: str = "timeout") -> Optional[int]:
    """Seconds (None or negative: for ever) as the binding's nanoseconds (None: for ever)."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"{what} must be a number of seconds or None, not "
                        f"{type(timeout).__name__}")
    if timeout < 0:
        return None
    return int(timeout * 1e9)


class Deadline:
    """The end of a total deadline, on the monotonic clock (``total`` None: none)."""

    __slots__ = ("end",)
    end: Optional[int]

    def __init__(self, total: Optional[float]) -> None:
        if total is None:
            self.end = None
            return
        if isinstance(total, bool) or not isinstance(total, (int, float)):
            raise TypeError(f"total must be a number of seconds or None, not "
                            f"{type(total).__name__}")
        if total < 0 or total != total:
            raise ValueError(f"total must be >= 0 seconds, not {total!r}")
        self.end = time.monotonic_ns() + int(total * 1e9)

    def remaining_ns(self) -> Optional[int]:
        """Nanoseconds left (None: no deadline; 0 once it has passed)."""
        if self.end is None:
            return None
        return max(0, self.end - time.monotonic_ns())

    def wait_ns(self, idle_ns: Optional[int]) -> Optional[int]:
        """The next wait: the idle timeout, cut to what the deadline leaves.
        None waits for ever; -1 means the deadline has passed (stop)."""
        left = self.remaining_ns()
        if left is None:
            return idle_ns
        if left == 0:
            return -1
        return left if idle_ns is None else min(idle_ns, left)


# ---- asyncio ----

_executor: Optional[concurrent.futures.ThreadPoolExecutor] = None


def _worker_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS,
                                                          thread_name_prefix="rfm-wait")
    return _executor


async def readable(fd: int, timeout_ns: Optional[int] = None) -> bool:
    """Wait until ``fd`` is readable (True) or ``timeout_ns`` passes (False)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[bool] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(True)

    loop.add_reader(fd, wake)
    try:
        if timeout_ns is None:
            return await ready
        try:
            return await asyncio.wait_for(ready, timeout_ns / 1e9)
        except asyncio.TimeoutError:
            return False
    finally:
        loop.remove_reader(fd)


async def sliced(take: Callable[[int], T], timeout: Optional[float],
                 keep: Optional[Callable[[T], object]] = None) -> T:
    """Await ``take(slice_ns)`` (a blocking, GIL-free library wait that
    raises :class:`rfm.Timeout` when its slice passes) in a worker thread,
    slice after slice, until it returns or ``timeout`` seconds pass (then
    the last :class:`rfm.Timeout` is raised; None: no limit).

    Each slice is a task of its own for the pool, so a worker is never
    held longer than a slice and any number of awaits share the workers.
    ``keep(result)`` is called with what a slice returns after its await
    was cancelled, so that nothing taken is lost."""
    from ._errors import Timeout  # noqa: PLC0415 - _errors imports the module

    ns = timeout_ns(timeout)
    limit = Deadline(None if ns is None else ns / 1e9)
    slice_ns = int(ASYNC_SLICE * 1e9)
    pool = _worker_pool()
    while True:
        left = limit.remaining_ns()
        last = left is not None and left <= slice_ns
        future = pool.submit(take, slice_ns if left is None else min(slice_ns, left))
        try:
            return await asyncio.wrap_future(future)
        except Timeout:
            if last:
                raise
        except asyncio.CancelledError:
            if keep is not None:
                hand_over = keep

                def keep_result(done: concurrent.futures.Future[T]) -> None:
                    if not done.cancelled() and done.exception() is None:
                        hand_over(done.result())

                future.add_done_callback(keep_result)
            raise
