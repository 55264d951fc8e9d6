"""The trio executor: concurrency, failures, duplicates and cancellation, with fake match players."""

from __future__ import annotations

import threading
import time

import pytest
import trio

from arena.scheduler.executor import AlreadyStored, execute
from arena.scheduler.pairings import generate_schedule

SCHEDULE = generate_schedule(["a", "b", "c", "d"], [2, 3], rounds=1, seed=3)  # 12 + 12 matches


class Recorder:
    def __init__(self, sleep: float = 0.0) -> None:
        self.sleep = sleep
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.recorded: list[int] = []

    def play(self, pairing, cancel: threading.Event) -> str:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            deadline = time.monotonic() + self.sleep
            while time.monotonic() < deadline:
                if cancel.is_set():
                    raise RuntimeError("cancelled")
                time.sleep(0.002)
            return f"record-{pairing.index}"
        finally:
            with self.lock:
                self.running -= 1

    def record(self, pairing, rec: str) -> None:
        assert rec == f"record-{pairing.index}"
        with self.lock:
            self.recorded.append(pairing.index)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_every_pairing_played_and_recorded_once_within_the_concurrency(concurrency: int) -> None:
    r = Recorder(sleep=0.01)
    summary = trio.run(lambda: execute(SCHEDULE, r.play, r.record, concurrency=concurrency))
    assert sorted(r.recorded) == [p.index for p in SCHEDULE]
    assert summary.played == len(SCHEDULE) and summary.complete
    assert r.peak <= concurrency
    if concurrency > 1:
        assert r.peak > 1  # matches really overlapped


def test_a_failed_match_does_not_stop_the_others() -> None:
    r = Recorder()

    def play(pairing, cancel):
        if pairing.index == 5:
            raise ConnectionError("bot would not start")
        return r.play(pairing, cancel)

    done = []
    summary = trio.run(lambda: execute(SCHEDULE, play, r.record, concurrency=2, on_done=done.append))
    assert 5 not in r.recorded and len(r.recorded) == len(SCHEDULE) - 1
    assert [(p.index, msg) for p, msg in summary.failed] == [(5, "ConnectionError: bot would not start")]
    assert not summary.complete
    assert sum(1 for o in done if o.error) == 1


def test_already_stored_counts_as_skipped_not_played() -> None:
    r = Recorder()

    def record(pairing, rec):
        if pairing.index % 2:
            raise AlreadyStored()
        r.record(pairing, rec)

    summary = trio.run(lambda: execute(SCHEDULE, r.play, record, concurrency=2))
    assert summary.skipped == len(SCHEDULE) // 2 and summary.played == len(SCHEDULE) // 2 and summary.complete


def test_cancelling_from_outside_stops_running_matches_and_records_nothing_more() -> None:
    r = Recorder(sleep=5.0)  # matches that would take far too long

    async def main():
        with trio.move_on_after(0.3):
            await execute(SCHEDULE, r.play, r.record, concurrency=2,
                          is_cancellation=lambda exc: str(exc) == "cancelled")

    start = time.monotonic()
    trio.run(main)
    assert time.monotonic() - start < 3.0  # the running matches saw the cancel event
    assert r.recorded == [] and r.running == 0


def test_cancel_event_stops_the_schedule() -> None:
    r = Recorder()
    cancel = threading.Event()

    def record(pairing, rec):
        r.record(pairing, rec)
        if len(r.recorded) == 3:
            cancel.set()

    summary = trio.run(lambda: execute(SCHEDULE, r.play, record, concurrency=1, cancel=cancel))
    assert len(r.recorded) == 3 and summary.cancelled and not summary.complete


def test_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        trio.run(lambda: execute(SCHEDULE, Recorder().play, Recorder().record, concurrency=0))
