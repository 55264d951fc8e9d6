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


@pytest.mark.serial
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


def test_a_lazy_open_ended_schedule_is_read_as_slots_free_and_no_further_once_cancelled() -> None:
    r = Recorder(sleep=0.005)
    cancel = threading.Event()
    read: list[int] = []

    def endless():  # an open-ended schedule, as a sequential test has
        index = 0
        while True:
            pairing = SCHEDULE[index % len(SCHEDULE)]
            read.append(index)
            yield type(pairing)(index, pairing.round, pairing.table_size, pairing.subset, pairing.seats,
                                pairing.seed, pairing.variant)
            index += 1

    def record(pairing, rec):
        with r.lock:
            r.recorded.append(pairing.index)
            if len(r.recorded) == 30:
                cancel.set()  # the test decided: stop reading, stop the running matches

    def play(pairing, cancel_event):
        r.play(pairing, cancel_event)
        return f"record-{pairing.index}"

    summary = trio.run(lambda: execute(endless(), play, record, concurrency=3, cancel=cancel,
                                       is_cancellation=lambda exc: str(exc) == "cancelled"))
    # a match that finished before it saw the cancel is recorded (nothing played is lost):
    # at most the two others then running, a matter of milliseconds
    assert 30 <= len(r.recorded) == summary.played <= 30 + 2
    # read one at a time, as slots free: started are the 30 recorded and at most the 3 then running;
    # the last one read, after the cancel, is not started
    assert 30 <= summary.scheduled <= 30 + 3
    assert len(read) <= summary.scheduled + 1
    assert r.running == 0
