"""Run a schedule of pairings on trio, ``concurrency`` matches at once.

The executor knows nothing of gRPC or SQL: it is given ``play`` (a blocking
function that plays one pairing and returns its record; the host's match runner)
and ``record`` (a blocking function that stores it), and runs both in worker
threads under a :class:`trio.CapacityLimiter`.  Cancellation (Ctrl-C) sets the
``cancel`` event that ``play`` checks between decisions, so running matches stop
within one decision; a match that did not finish is not recorded, and resuming the
tournament plays it again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable, Generic, Iterable, TypeVar

import trio

from arena.scheduler.pairings import Pairing

R = TypeVar("R")


@dataclass
class ExecutionSummary:
    scheduled: int  # pairings handed to the executor
    played: int = 0  # finished and recorded
    skipped: int = 0  # someone else recorded them first (another host on the same database)
    failed: list[tuple[Pairing, str]] = field(default_factory=list)
    cancelled: bool = False
    wall_s: float = 0.0

    @property
    def complete(self) -> bool:
        return not self.cancelled and not self.failed and self.played + self.skipped == self.scheduled


class AlreadyStored(Exception):
    """Raised by ``record`` when the pairing's result is already stored (counted as skipped)."""


@dataclass(frozen=True)
class Outcome(Generic[R]):
    pairing: Pairing
    record: R | None
    error: str | None = None


async def execute(
    pairings: Iterable[Pairing],
    play: Callable[[Pairing, threading.Event], R],
    record: Callable[[Pairing, R], None],
    *,
    concurrency: int,
    cancel: threading.Event | None = None,
    on_done: Callable[[Outcome[R]], None] | None = None,
    is_cancellation: Callable[[BaseException], bool] = lambda exc: False,
) -> ExecutionSummary:
    """Play and record every pairing, at most ``concurrency`` at a time, in schedule order of start.

    ``play`` raising marks that pairing failed (the others go on); an exception
    for which ``is_cancellation`` is true counts as a cancellation instead.
    ``pairings`` may be a lazy iterable (an open-ended schedule, such as a sequential
    test's): it is read one pairing at a time, as a slot frees, and no further once
    ``cancel`` is set; ``scheduled`` then counts the pairings read.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    cancel = cancel if cancel is not None else threading.Event()
    sized = isinstance(pairings, Sequence)
    summary = ExecutionSummary(scheduled=len(pairings) if sized else 0)
    limiter = trio.CapacityLimiter(concurrency)  # matches at once
    threads = trio.CapacityLimiter(concurrency)  # their worker threads (trio's default allows 40)
    started = time.monotonic()
    finished = False

    async def one(pairing: Pairing, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with limiter:
            task_status.started()
            if cancel.is_set():
                return
            try:
                result = await trio.to_thread.run_sync(play, pairing, cancel, limiter=threads)
            except Exception as exc:  # noqa: BLE001 - a failed match must not stop the others
                if cancel.is_set() or is_cancellation(exc):
                    return
                summary.failed.append((pairing, f"{type(exc).__name__}: {exc}"))
                if on_done:
                    on_done(Outcome(pairing, None, f"{type(exc).__name__}: {exc}"))
                return
            try:
                await trio.to_thread.run_sync(record, pairing, result, limiter=threads)
            except AlreadyStored:
                summary.skipped += 1
            else:
                summary.played += 1
            if on_done:
                on_done(Outcome(pairing, result))

    async def watch_cancel() -> None:
        try:
            await trio.sleep_forever()
        finally:
            if not finished:  # cancelled from outside (Ctrl-C): stop the running matches too
                cancel.set()

    try:
        async with trio.open_nursery() as outer:
            outer.start_soon(watch_cancel)
            async with trio.open_nursery() as nursery:
                for pairing in pairings:
                    if cancel.is_set():
                        break
                    if not sized:
                        summary.scheduled += 1
                    # start in schedule order: each task takes a limiter slot before the next starts
                    await nursery.start(one, pairing)
            finished = True
            outer.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # trio wraps what its tasks raise; Ctrl-C should stay a plain KeyboardInterrupt
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt() from None
        raise
    finally:
        summary.cancelled = cancel.is_set() and summary.played + summary.skipped + len(summary.failed) < summary.scheduled
        summary.wall_s = time.monotonic() - started
    return summary
