"""``Store.record_matches``: many matches in one transaction, with record_match's checks.

The matches are the benchmark's own (real games played in-process, bots of known
strength, a fault now and then); each test runs on a SQLite file and on PostgreSQL.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from sqlalchemy import text

from arena.bench.store import Filler, ensure_bots, play_templates
from arena.records import Fault, FaultReason, MatchRecord, MatchTermination
from leaderboard import tallies
from leaderboard.errors import AlreadyRecorded, UnknownBotError, UnknownTournamentError
from leaderboard.store import Store


@pytest.fixture(scope="module")
def templates() -> dict[int, list[Any]]:
    return play_templates(games_per_size=1)


def records(store: Store, templates: dict[int, list[Any]], deals: int, prefix: str) -> list[MatchRecord]:
    filler = Filler(templates, ensure_bots(store, 8), seed=7)
    found = [r for d in range(deals) for r in filler.deal(f"{prefix}{d}", 1_700_000_000.0 + 100 * d)]
    first = found[0]  # a seat with a fault and a forfeit, so those columns are compared too
    seat = dataclasses.replace(first.seats[0], forfeited=True,
                               faults=(Fault(0, 3, FaultReason.TIMEOUT, "no reply within 1.0 s"),))
    found[0] = dataclasses.replace(first, seats=(seat, *first.seats[1:]))
    return found


def renamed(record: MatchRecord, match_id: str) -> MatchRecord:
    return dataclasses.replace(record, match_id=match_id)


def rows(store: Store, tournament_id: int) -> tuple[list[dict[str, Any]], ...]:
    """Every column of the tournament's matches, seats and reference participants, ids made
    relative to the tournament."""
    with store.engine.connect() as connection:
        matches = [dict(r._mapping) for r in connection.execute(
            text("SELECT * FROM matches WHERE tournament_id = :t ORDER BY schedule_index"), {"t": tournament_id})]
        seats = [dict(r._mapping) for r in connection.execute(
            text("SELECT s.* FROM seats s JOIN matches m ON m.id = s.match_id WHERE m.tournament_id = :t "
                 "ORDER BY m.schedule_index, s.seat"), {"t": tournament_id})]
        references = [dict(r._mapping) for r in connection.execute(
            text("SELECT r.* FROM match_references r JOIN matches m ON m.id = r.match_id "
                 "WHERE m.tournament_id = :t ORDER BY m.schedule_index, r.name"), {"t": tournament_id})]
    for row in matches:
        row["id"] = row["id"].split("~")[-1]
        row["tournament_id"] = None
        row["replay_z"] = bytes(row["replay_z"])
    for row in (*seats, *references):
        row["match_id"] = row["match_id"].split("~")[-1]
    return matches, seats, references


def test_record_matches_stores_what_record_match_stores(db_url: str, templates: dict[int, list[Any]]) -> None:
    with Store.open(db_url) as store:
        made = records(store, templates, 12, "m")
        assert {r.players for r in made} >= {2, 3} and any(r.references for r in made)
        one, many = (store.create_tournament("union_pacific", {}, k) for k in (1, 2))
        for index, record in enumerate(made):
            store.record_match(one, index, index // 5, renamed(record, f"a~{record.match_id}"))
        assert store.record_matches(
            (many, index, index // 5, renamed(record, f"b~{record.match_id}")) for index, record in enumerate(made)
        ) == len(made)
        assert rows(store, one) == rows(store, many)
        stored_rows = rows(store, many)
        assert len(stored_rows[0]) == len(made)
        assert len(stored_rows[2]) == sum(len(r.references) for r in made) > 0  # the two-player imaginary rows
        counts = tallies.match_counts(store)  # the triggers counted the bulk inserts too
        assert counts[one] == counts[many] == len(made)
        stored = store.get_match(f"b~{made[0].match_id}")
        assert stored.replay == made[0].replay and stored.seats[0].forfeited and stored.seats[0].fault_count == 1
        assert [m.key.split("~")[-1] for m in store.rated_matches(one)] == \
            [m.key.split("~")[-1] for m in store.rated_matches(many)]


def test_a_batch_is_stored_whole_or_not_at_all(db_url: str, templates: dict[int, list[Any]]) -> None:
    with Store.open(db_url) as store:
        made = records(store, templates, 4, "x")
        tid = store.create_tournament("union_pacific", {}, 1)
        store.record_match(tid, 0, 0, made[0])
        rest = [(tid, i, 0, r) for i, r in enumerate(made[1:], start=1)]

        def refused(batch: list[tuple[int, int, int, MatchRecord]], error: type[Exception], says: str) -> None:
            with pytest.raises(error) as raised:
                store.record_matches(batch)
            assert says in str(raised.value)
            assert tallies.match_count(store, tid) == 1 and len(store.list_matches(tournament_id=tid)) == 1

        refused([*rest, (tid, 99, 0, made[0])], AlreadyRecorded, f"match id {made[0].match_id!r} is already stored")
        refused([*rest, (tid, 0, 0, renamed(made[0], "new"))], AlreadyRecorded,
                f"tournament {tid} schedule index 0 is already recorded")
        refused([*rest, (tid, 98, 0, rest[0][3])], AlreadyRecorded, "is twice in the batch")
        refused([*rest, (tid, 1, 0, renamed(made[1], "other"))], AlreadyRecorded,
                f"tournament {tid} schedule index 1 is twice in the batch")
        stranger = dataclasses.replace(made[1].seats[0], bot="nobody")
        refused([*rest, (tid, 97, 0, dataclasses.replace(renamed(made[1], "s"), seats=(stranger, *made[1].seats[1:])))],
                UnknownBotError, "match 's' seat 0: no bot named 'nobody'")
        refused([*rest, (tid, 96, 0, dataclasses.replace(renamed(made[1], "e"), termination=MatchTermination.ERROR))],
                ValueError, "ended in ERROR")
        refused([*rest, (tid, 95, 0, dataclasses.replace(renamed(made[1], "g"), game="ticket_to_ride"))],
                ValueError, f"but tournament {tid} plays 'union_pacific'")
        refused([*rest, (tid, -1, 0, renamed(made[1], "n"))], ValueError, "schedule index must be an int >= 0")
        refused([*rest, (tid + 50, 0, 0, renamed(made[1], "t"))], UnknownTournamentError, "no tournament")

        assert store.record_matches(rest) == len(rest) and store.record_matches([]) == 0
        assert tallies.match_count(store, tid) == len(made)
