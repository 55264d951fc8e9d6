"""The match runner with well-behaved fake bots: records, replays, privacy on the wire, cancel."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena.games.union_pacific import default_game
from arena.host import codec
from arena.host.clock import Clocks
from arena.host.match import LocalPlayer, MatchCancelled, MatchConfig, run_match
from arena.host.process import BotPool
from arena.policies import RandomPolicy
from arena.records import MatchTermination, ReferenceResult
from arena.replay import verify_replay
from arena.v1 import bot_pb2
from tests.fake_bots import fake_spec

FAST = MatchConfig(clocks=Clocks(decision_ms=500, bank_ms=2000))



@pytest.fixture
def pool(tmp_path: Path):
    with BotPool(log_dir=tmp_path / "logs", stop_timeout=1) as pool:
        yield pool


def test_a_match_between_bots_gives_a_complete_record(pool: BotPool) -> None:
    record = run_match(pool, [fake_spec("random"), fake_spec("debug"), fake_spec("random")], seed=21,
                       variant="pro", match_id="m-21", config=FAST)
    assert (record.match_id, record.game, record.seed, record.variant, record.players) == \
        ("m-21", "union_pacific", 21, "pro", 3)
    assert [s.bot for s in record.seats] == ["fake-random", "fake-debug", "fake-random"]
    result = record.replay["result"]
    assert record.termination.value == result["termination"]
    assert {str(s.seat): s.score for s in record.seats} == result["cash"]
    assert {str(s.seat): s.place for s in record.seats} == result["places"]
    assert not any(s.faults or s.forfeited for s in record.seats)
    assert record.references == () and record.duration_s > 0 and record.started_at > 0
    assert record.extra["decisions"] == len(record.replay["actions"])
    assert verify_replay(record.replay).ok
    assert [s["name"] for s in record.replay["seats"]] == [s.bot for s in record.seats]
    match = record.replay["match"]
    assert match["match_id"] == "m-21" and match["faults"] == [] and match["forfeits"] == []
    assert match["clocks"] == {"decision_ms": 500, "bank_ms": 2000, "grace_ms": 50}
    # Every decision of every seat was asked of its bot (nothing fell back).
    for seat in range(3):
        asked = match["seats"][seat]["clock"]["decisions"]
        assert asked == sum(1 for a in record.replay["actions"] if a["seat"] == seat)
    # The debug bot's 300-character texts are logged, cut to 200 characters.
    debug = [d for d in match["debug"] if d["seat"] == 1]
    assert debug and all(len(d["text"]) == 200 and d["text"].endswith("…") for d in debug)
    assert {d["text"] for d in match["debug"] if d["seat"] == 0} <= {f"picked {i}" for i in range(400)}


def test_the_same_manifest_twice_is_one_process_holding_two_seats(pool: BotPool) -> None:
    record = run_match(pool, [fake_spec("random"), fake_spec("random")], seed=3, config=FAST)
    assert len(pool.running()) == 1
    assert [s.bot for s in record.seats] == ["fake-random", "fake-random"]
    places = record.replay["result"]["places"]
    assert record.references == (ReferenceResult("imaginary", record.replay["result"]["cash"]["imaginary"],
                                                 places["imaginary"]),)
    assert record.rated_places == {"fake-random": places["1"], "(imaginary)": places["imaginary"]}


def test_local_players_and_names(pool: BotPool) -> None:
    record = run_match(pool, [LocalPlayer("local-a", RandomPolicy(1)), fake_spec("random"),
                              LocalPlayer("local-b", RandomPolicy(2)), LocalPlayer("local-c", RandomPolicy(3))],
                       seed=5, names=["A", "B", "C", "D"], config=FAST)
    assert [s.bot for s in record.seats] == ["A", "B", "C", "D"]
    kinds = [s["kind"] for s in record.replay["match"]["seats"]]
    assert kinds == ["local", "bot", "local", "local"]
    assert verify_replay(record.replay).ok


@pytest.mark.parametrize(("seats", "message"), [(1, "2 to 6 seats, not 1"), (7, "2 to 6 seats, not 7")])
def test_table_size_is_checked(pool: BotPool, seats: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_match(pool, [LocalPlayer(f"p{i}", RandomPolicy(i)) for i in range(seats)], seed=1)


def test_cancel_stops_the_match_between_decisions(pool: BotPool) -> None:
    cancel = threading.Event()
    calls = []

    def policy(state: Any, seat: int, legal: list[int]) -> int:
        calls.append(seat)
        if len(calls) == 10:
            cancel.set()
        return legal[0]

    with pytest.raises(MatchCancelled, match="cancelled at decision"):
        run_match(pool, [LocalPlayer("cancels", policy), fake_spec("random"), LocalPlayer("x", RandomPolicy(1))],
                  seed=2, config=FAST, cancel=cancel)
    assert len(calls) == 10
    # The bot process is still fine for the next match.
    record = run_match(pool, [fake_spec("random"), fake_spec("random")], seed=2, config=FAST)
    assert record.termination in (MatchTermination.NORMAL, MatchTermination.STALEMATE)


def read_records(path: Path) -> list[bot_pb2.DecisionRequest]:
    data = path.read_bytes()
    out, i = [], 0
    while i < len(data):
        size = int.from_bytes(data[i:i + 4], "big")
        out.append(bot_pb2.DecisionRequest.FromString(data[i + 4:i + 4 + size]))
        i += 4 + size
    return out


PUBLIC_PLAYER_KEYS = {"seat", "cash", "invested", "hand_shares", "hand_track"}


@pytest.mark.parametrize("players", [2, 4])
def test_no_request_on_the_wire_holds_another_seats_hand_or_the_deck_order(
        pool: BotPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    recording = tmp_path / "requests.bin"
    monkeypatch.setenv("FAKE_BOT_RECORD", str(recording))
    seed = 40 + players
    record = run_match(pool, [fake_spec("record")] * players, seed=seed, match_id="private", config=FAST)
    # The first investment's requests are sent together and may arrive in any order.
    requests = sorted(read_records(recording), key=lambda r: r.decision_number)
    actions = record.replay["actions"]
    assert [r.decision_number for r in requests] == list(range(len(actions)))
    # The simultaneous first investment asked every seat, about the same state.
    assert [(r.seat, r.observation.union_pacific.decision) for r in requests[:players]] == \
        [(s, "first_invest") for s in range(players)]

    game = default_game()
    state = game.new_state(players, seed)
    first_round = state.clone()
    for request, entry in zip(requests, actions):
        seat = request.seat
        assert seat == entry["seat"] and request.match_id == "private"
        asked_about = first_round if request.observation.union_pacific.decision == "first_invest" else state
        expected = asked_about.observation(seat)
        # The wire holds exactly the engine's observation for this seat ...
        assert request.observation == codec.observation_to_proto(expected)
        received = codec.observation_from_proto(request.observation)
        assert received == expected and received["seat"] == seat
        # ... in which the only hand is this seat's own, the others' are counts, and the
        # decks are sizes, not contents.
        assert received["hand"] == state.observation(seat)["hand"]
        assert all(set(p) == PUBLIC_PLAYER_KEYS for p in received["players"])
        assert all(isinstance(received[k], int) for k in ("share_deck", "track_deck", "up_stack"))
        # The legal actions are the engine's, in order, with their indexes.
        legal = asked_about.legal_actions(seat)
        assert [(a.index, a.text) for a in request.legal_actions] == \
            [(i, asked_about.action_to_string(x)) for i, x in enumerate(legal)]
        state.apply_action(seat, state.string_to_action(entry["action"]))
    assert state.is_terminal()


def test_concurrent_matches_share_one_process_per_bot(pool: BotPool) -> None:
    records: dict[int, Any] = {}
    errors: list[BaseException] = []

    def play(i: int) -> None:
        try:
            records[i] = run_match(pool, [fake_spec("random"), fake_spec("debug"), fake_spec("random")],
                                   seed=100 + i, match_id=f"c-{i}", config=FAST)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(records) == [0, 1, 2, 3]
    assert len(pool.running()) == 2
    for i, record in records.items():
        assert record.match_id == f"c-{i}" and not any(s.faults for s in record.seats)
        assert verify_replay(record.replay).ok
