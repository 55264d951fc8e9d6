"""Every fault a bot can commit, each by a real fake-bot process: the documented outcome,
the match still completes, and the record and the replay name the fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.host.clock import Clocks
from arena.host.match import MatchConfig, run_match
from arena.host.process import BotPool
from arena.records import FaultReason, MatchRecord, MatchTermination
from arena.replay import verify_replay
from tests.fake_bots import fake_spec

FAST = MatchConfig(clocks=Clocks(decision_ms=200, bank_ms=300, grace_ms=50))



@pytest.fixture
def pool(tmp_path: Path):
    with BotPool(log_dir=tmp_path / "logs", ready_timeout=10, stop_timeout=0.5) as pool:
        yield pool


def check_completed(record: MatchRecord) -> None:
    """The game was played to its end, the replay reproduces, and it carries the faults."""
    assert verify_replay(record.replay).ok
    match = record.replay["match"]
    assert match["faults"] == [f.to_json() for s in record.seats for f in s.faults]
    assert match["forfeited_seats"] == [s.seat for s in record.seats if s.forfeited]


def check_forfeited_last(record: MatchRecord, seat: int) -> None:
    """A forfeited seat is placed after every participant that did not forfeit, whatever its cash."""
    not_forfeited = sum(not s.forfeited for s in record.seats) + len(record.references)
    assert record.seats[seat].forfeited
    assert record.seats[seat].place == not_forfeited + 1
    assert record.termination is MatchTermination.FORFEIT
    assert record.replay["match"]["places"][str(seat)] == record.seats[seat].place


@pytest.mark.parametrize(
    ("mode", "reason", "detail"),
    [
        ("out-of-range", FaultReason.ILLEGAL_ACTION, "is out of range"),
        ("garbage", FaultReason.MALFORMED_REPLY, "is not a DecisionReply"),
        ("oversized", FaultReason.MALFORMED_REPLY, "larger than max"),
        ("error", FaultReason.PROTOCOL_ERROR, "INTERNAL: fake bot: something broke"),
        ("slow", FaultReason.TIMEOUT, "no reply within"),
    ],
)
def test_three_bad_replies_make_the_seat_forfeit(pool: BotPool, mode: str, reason: FaultReason,
                                                 detail: str) -> None:
    record = run_match(pool, [fake_spec("random"), fake_spec(mode), fake_spec("random")], seed=11, config=FAST)
    check_completed(record)
    bad = record.seats[1]
    assert [f.reason for f in bad.faults] == [reason] * 3
    assert all(detail in f.detail for f in bad.faults)
    assert [f.decision for f in bad.faults] == sorted({f.decision for f in bad.faults})
    check_forfeited_last(record, 1)
    assert not record.seats[0].faults and not record.seats[2].faults
    forfeit = record.replay["match"]["forfeits"]
    assert forfeit == [{"seat": 1, "decision": bad.faults[-1].decision, "reason": "3 faults (the limit is 3)"}]
    # The forfeited seat is not asked again: exactly three requests reached it.
    clock = record.replay["match"]["seats"][1]["clock"]
    assert clock["decisions"] == 3


def test_a_timeout_uses_up_the_bank_first(pool: BotPool) -> None:
    record = run_match(pool, [fake_spec("slow"), fake_spec("random")], seed=2, config=FAST)
    details = [f.detail for f in record.seats[0].faults]
    assert "550 ms (decision 200 ms + bank 300 ms" in details[0]
    assert "250 ms (decision 200 ms + bank 0 ms" in details[1]
    assert record.replay["match"]["seats"][0]["clock"]["bank_left_ms"] == 0


def test_the_fault_limit_is_configurable(pool: BotPool) -> None:
    config = MatchConfig(clocks=FAST.clocks, max_faults=5)
    record = run_match(pool, [fake_spec("out-of-range"), fake_spec("random")], seed=4, config=config)
    assert len(record.seats[0].faults) == 5 and record.seats[0].forfeited


@pytest.mark.serial  # a restart must be ready within 200 ms clocks: not beside a busy worker
def test_a_crash_mid_match_is_restarted_once_then_forfeits(pool: BotPool) -> None:
    record = run_match(pool, [fake_spec("random"), fake_spec("crash")], seed=5, config=FAST)
    check_completed(record)
    crash = record.seats[1]
    assert [f.reason for f in crash.faults] == [FaultReason.DISCONNECT] * 2
    check_forfeited_last(record, 1)
    match = record.replay["match"]
    assert match["restarts"] == [{"bot": "fake-crash", "decision": crash.faults[0].decision,
                                  "crash": "exit status 3", "ok": True, "generation": 1}]
    assert "crashed again after its restart" in match["forfeits"][0]["reason"]
    # Each life answers four decisions and dies at the fifth.
    assert match["seats"][1]["clock"]["decisions"] == 10


@pytest.mark.serial  # a restart must be ready within 200 ms clocks: not beside a busy worker
def test_a_crash_that_one_restart_cures_costs_one_fault(pool: BotPool, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_BOT_STATE_DIR", str(tmp_path))
    record = run_match(pool, [fake_spec("crash-once"), fake_spec("random")], seed=6, config=FAST)
    check_completed(record)
    seat = record.seats[0]
    assert [f.reason for f in seat.faults] == [FaultReason.DISCONNECT]
    assert not seat.forfeited and record.termination is not MatchTermination.FORFEIT
    # After the restart the bot got StartMatch again and answered every later decision.
    asked = record.replay["match"]["seats"][0]["clock"]["decisions"]
    decided_by_seat0 = sum(1 for a in record.replay["actions"] if a["seat"] == 0)
    assert asked == decided_by_seat0 > 10


@pytest.mark.serial  # a restart must be ready within 200 ms clocks: not beside a busy worker
def test_a_crashed_bot_is_restarted_for_its_next_match(pool: BotPool) -> None:
    first = run_match(pool, [fake_spec("crash"), fake_spec("random")], seed=7, config=FAST)
    assert first.seats[0].forfeited
    dead = next(h for h in pool.running() if h.name == "fake-crash")
    assert dead.generation == 1 and not dead.alive()
    second = run_match(pool, [fake_spec("crash"), fake_spec("random")], seed=8, config=FAST)
    assert pool.current(dead).generation == 3  # restarted for the match, then once more in it
    # The new process answered its first four decisions before crashing again.
    assert second.seats[0].faults[0].reason is FaultReason.DISCONNECT
    assert second.replay["match"]["seats"][0]["clock"]["decisions"] == 10


def test_a_bot_that_never_becomes_ready_forfeits_and_the_match_completes(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path, ready_timeout=1.0) as pool:
        record = run_match(pool, [fake_spec("random"), fake_spec("never-ready"), fake_spec("random")], seed=3,
                           config=FAST)
    check_completed(record)
    seat = record.seats[1]
    assert [f.reason for f in seat.faults] == [FaultReason.NOT_READY]
    assert "did not become ready within 1 s" in seat.faults[0].detail
    assert seat.bot == "fake-never-ready"
    check_forfeited_last(record, 1)


def test_several_forfeits_share_the_last_places(pool: BotPool) -> None:
    record = run_match(pool, [fake_spec("garbage"), fake_spec("random"), fake_spec("error"),
                              fake_spec("random")], seed=9, config=FAST)
    check_completed(record)
    assert [s.forfeited for s in record.seats] == [True, False, True, False]
    assert record.seats[0].place == record.seats[2].place == 3
    fine = sorted(record.seats[i].score for i in (1, 3))
    assert {record.seats[1].place, record.seats[3].place} == ({1} if fine[0] == fine[1] else {1, 2})


def test_a_two_player_forfeit_puts_the_seat_behind_the_imaginary_shareholder(pool: BotPool) -> None:
    record = run_match(pool, [fake_spec("out-of-range"), fake_spec("random")], seed=10, config=FAST)
    (imaginary,) = record.references
    assert imaginary.name == "imaginary" and imaginary.participant == "(imaginary)"
    assert record.seats[0].place == 3
    assert imaginary.place < record.seats[0].place
    assert imaginary.place in (1, 2)


def test_one_crash_seen_by_several_seats_is_one_crash(pool: BotPool, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot holds three seats and dies during the simultaneous first investment."""
    monkeypatch.setenv("FAKE_BOT_STATE_DIR", str(tmp_path))
    record = run_match(pool, [fake_spec("crash-once-at-first")] * 3, seed=13, config=FAST)
    check_completed(record)
    assert not any(s.forfeited for s in record.seats)
    faults = [f for s in record.seats for f in s.faults]
    assert faults and all(f.reason is FaultReason.DISCONNECT and f.decision < 3 for f in faults)
    assert len(record.replay["match"]["restarts"]) == 1
    # After the restart the new process plays every seat to the end.
    for seat in range(3):
        asked = record.replay["match"]["seats"][seat]["clock"]["decisions"]
        assert asked == sum(1 for a in record.replay["actions"] if a["seat"] == seat)
