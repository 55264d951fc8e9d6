"""Results, ratings and standings per game, in process: Union Pacific and Ticket to Ride records
built from the engines (random play, real replays) stored side by side in one store.

A bot's Union Pacific rating and its Ticket to Ride rating are separate fits; a game's reference
participants (Union Pacific's imaginary shareholder at a table of two; Ticket to Ride has none,
its two-player neutral shareholder is no result participant) are rated in their own game only.
(A Ticket to Ride tournament over gRPC needs its wire protocol; it is checked when that lands.)
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from arena.games import game_spec, get_game
from arena.policies import RandomPolicy, play_in_process
from arena.records import MatchRecord, MatchTermination, ReferenceResult, SeatResult
from arena.replay import build_replay, verify_replay
from arena.scheduler.pairings import generate_schedule
from arena.tournaments import TournamentConfig
from leaderboard.standings import GameChoiceError, compute_leaderboard
from leaderboard.store import Store
from leaderboard.web.fits import RatingsCache
from leaderboard.web import create_app

UP, TTR = "union_pacific", "ticket_to_ride_pennsylvania"
BOTS = ("ada", "bob", "cyd", "dee", "eve")
SHA = "ef" * 32


def engine_record(game_name: str, seats: tuple[str, ...], seed: int, match_id: str) -> MatchRecord:
    """A match record as the host makes one, from a random game of the engine itself."""
    game = get_game(game_name)
    state = play_in_process(game.new_state(len(seats), seed), [RandomPolicy(seed * 10 + s) for s in range(len(seats))])
    outcome = state.outcome()
    replay = build_replay(game, state, seed=seed, variant=game.spec.default_variant, seats=[f"{b}@1" for b in seats])
    return MatchRecord(
        match_id=match_id, game=game_name, seed=seed, variant=game.spec.default_variant, players=len(seats),
        seats=tuple(SeatResult(s, f"{b}@1", outcome.cash[str(s)], outcome.places[str(s)]) for s, b in enumerate(seats)),
        termination=MatchTermination(outcome.termination.value), replay=replay, started_at=1.0e9 + seed,
        duration_s=0.1,
        references=tuple(ReferenceResult(n, outcome.cash[n], outcome.places[n])
                         for n in game.spec.reference(len(seats))))


@pytest.fixture
def two_games(db_url: str) -> Iterator[tuple[Store, dict[str, int], dict[str, list[MatchRecord]]]]:
    """One tournament per game (same bots), schedules from each game's spec, every match stored."""
    with Store.open(db_url) as store:
        for name in BOTS:
            store.add_bot(name, "1", "t", "python", manifest_path=f"/b/{name}/bot.toml", files_sha256=SHA)
        ids: dict[str, int] = {}
        records: dict[str, list[MatchRecord]] = defaultdict(list)
        for game, sizes in ((UP, (2, 3)), (TTR, (2, 3, 4, 5))):
            config = TournamentConfig(bots=BOTS[: max(sizes)], table_sizes=sizes, game=game)
            ids[game] = store.create_tournament(game, config.to_json(), 5)
            # a few deals of each table size (all seat rotations of one subset)
            schedule = generate_schedule(list(config.bots), list(sizes), 1, 5, game=game)
            chosen = [p for p in schedule if p.subset in {next(q.subset for q in schedule if q.table_size == k)
                                                          for k in sizes}]
            for p in chosen:
                record = engine_record(game, p.seats, p.seed % 1000, f"{game[:3]}-{p.index}")
                store.record_match(ids[game], p.index, p.round, record)
                records[game].append(record)
        yield store, ids, records


def test_each_game_is_rated_on_its_own(two_games: tuple[Store, dict[str, int], dict[str, list[MatchRecord]]]) -> None:
    store, ids, records = two_games
    assert store.games() == [TTR, UP]
    with pytest.raises(GameChoiceError, match="several games"):
        compute_leaderboard(store, bootstrap=0, save=False)
    for game in (UP, TTR):
        rated = store.rated_matches(game=game)
        assert [m.key for m in rated] == sorted((r.match_id for r in records[game]),
                                               key=lambda k: int(k.rpartition("-")[2]))
        assert [m.places for m in rated] == [r.rated_places for r in records[game]]
        assert rated == store.rated_matches(ids[game])
        board = compute_leaderboard(store, game=game, bootstrap=0, save=True, all_versions=True)
        assert board.game == game
        assert board.table_sizes == sorted({r.players for r in records[game]})
        # every bot that played this game, and no match of the other one
        assert {s.name for s in board.standings if not s.reference} == {
            s.bot for r in records[game] for s in r.seats}
        assert sum(s.matches for s in board.standings if not s.reference) == sum(r.players for r in records[game])
        for s in board.standings:
            if not s.reference:
                mine = [seat for r in records[game] for seat in r.seats if seat.bot == s.name]
                assert s.mean_score == pytest.approx(sum(x.score for x in mine) / len(mine))
        refs = [s.name for s in board.standings if s.reference]
        assert refs == (["(imaginary)"] if game == UP else [])  # TTR's neutral shareholder is no participant
        saved = store.load_ratings(game=game)
        assert saved is not None
        assert {e.participant: e.elo for e in saved.entries} == pytest.approx({s.name: s.elo for s in board.standings})
    # the two overall fits are kept side by side: a bot has one rating per game
    up, ttr = store.load_ratings(game=UP), store.load_ratings(game=TTR)
    assert up is not None and ttr is not None
    assert {p.match_id for p in up.history}.isdisjoint({p.match_id for p in ttr.history})
    assert "ada@1" in {e.participant for e in up.entries} & {e.participant for e in ttr.entries}
    with pytest.raises(ValueError, match="overall ratings are per game"):
        store.load_ratings()


def test_ttr_records_keep_their_points_and_replays(
        two_games: tuple[Store, dict[str, int], dict[str, list[MatchRecord]]]) -> None:
    store, ids, records = two_games
    for record in records[TTR]:
        stored = store.get_match(record.match_id)
        assert stored.game == TTR and stored.references == ()
        assert [(s.bot, s.score, s.place) for s in stored.seats] == [(s.bot, s.score, s.place) for s in record.seats]
        assert verify_replay(stored.replay).ok
    assert {r.players for r in records[TTR]} == {2, 3, 4, 5}
    # a reference participant the game does not have is refused, nothing stored
    bad = records[TTR][0]
    with pytest.raises(ValueError, match="ranks the reference participants"):
        store.record_match(ids[TTR], 999, 1, MatchRecord(**{**bad.__dict__, "match_id": "x",
                                                            "references": (ReferenceResult("imaginary", 0, 1),)}))
    with pytest.raises(ValueError, match=r"is a 'ticket_to_ride_pennsylvania' match, but tournament \d+ plays"):
        store.record_match(ids[UP], 999, 1, MatchRecord(**{**bad.__dict__, "match_id": "y"}))
    assert store.stored_schedule_indexes(ids[TTR]) == {int(r.match_id.rpartition("-")[2]) for r in records[TTR]}


def test_schedules_follow_the_game_spec() -> None:
    spec = game_spec(TTR)
    assert (spec.min_players, spec.max_players, spec.variants) == (2, 5, ("standard",))
    assert len(generate_schedule(list(BOTS), [5], 1, 3, game=TTR)) == 5
    with pytest.raises(ValueError, match=r"table size 6 is outside 2\.\.5"):
        generate_schedule(list(BOTS) + ["fay"], [6], 1, 3, game=TTR)
    with pytest.raises(ValueError, match="unknown variant 'pro' for Ticket to Ride"):
        generate_schedule(list(BOTS), [3], 1, 3, "pro", game=TTR)
    six = generate_schedule(list(BOTS) + ["fay"], [6], 1, 3, "pro", game=UP)
    assert len(six) == 6 and {p.variant for p in six} == {"pro"}
    assert {p.variant for p in generate_schedule(list(BOTS), [3], 1, 3, game=TTR)} == {"standard"}
    with pytest.raises(ValueError, match="unknown game"):
        generate_schedule(list(BOTS), [3], 1, 3, game="chess")


def test_the_web_pages_show_one_game_at_a_time(
        two_games: tuple[Store, dict[str, int], dict[str, list[MatchRecord]]], db_url: str) -> None:
    store, ids, records = two_games
    with TestClient(create_app(db_url)) as client:
        default = client.get("/api/leaderboard").json()  # the first stored game, by name
        ttr = client.get("/api/leaderboard", params={"game": TTR}).json()
        assert (default["game"], default["games"]) == (TTR, [TTR, UP])
        assert (ttr["game"], ttr["score_name"], ttr["score_unit"]) == (TTR, "score", "points")
        assert ttr["reference_participants"] == []
        explicit_up = client.get("/api/leaderboard", params={"game": UP}).json()
        assert explicit_up["score_name"] == "cash" and explicit_up["reference_participants"] == ["(imaginary)"]
        assert sum(r["matches"] for r in ttr["rows"]) == sum(r.players for r in records[TTR])
        assert client.get("/api/leaderboard", params={"game": "chess"}).status_code == 400
        page = client.get("/", params={"game": TTR}).text
        assert 'data-testid="game-selector"' in page and f'data-game="{UP}"' in page
        assert "Mean score" in page and "Mean cash" not in page
        assert "Mean cash" in client.get("/", params={"game": UP}).text
        listed = {m["id"]: m for m in client.get("/api/matches", params={"limit": 500}).json()}
        for game, unit in ((UP, "dollars"), (TTR, "points")):
            for r in records[game]:
                m = listed[r.match_id]
                assert (m["game"], m["score_unit"]) == (game, unit)
                assert [s["score"] for s in m["seats"]] == [s.score for s in r.seats]
                assert [x["participant"] for x in m["references"]] == [x.participant for x in r.references]
        assert any(m["references"] for m in listed.values())
        tournament = client.get(f"/api/tournaments/{ids[TTR]}").json()
        assert tournament["game"] == TTR
        for game in (UP, TTR):
            bot = client.get("/api/bots/ada", params={"game": game}).json()
            assert (bot["game"], bot["games"]) == (game, [TTR, UP])
            assert bot["score_name"] == game_spec(game).score_name
            assert bot["matches"] == sum(1 for r in records[game] for s in r.seats if s.bot == "ada@1")
            assert bot["tournaments"] == [ids[game]]
        eve = client.get("/api/bots/eve").json()  # eve played Ticket to Ride only: her page shows it
        assert (eve["game"], eve["games"]) == (TTR, [TTR]) and eve["standing"] is not None
        page = client.get("/bots/ada").text
        assert 'data-testid="game-selector"' in page and f'?game={UP}' in page
        assert 'data-testid="game-selector"' not in client.get("/bots/eve").text
        assert f"?game={UP}&amp;players=2" in client.get("/", params={"game": UP}).text  # links keep the game


def test_a_game_s_fit_counts_and_follows_its_own_matches(
        two_games: tuple[Store, dict[str, int], dict[str, list[MatchRecord]]]) -> None:
    """The pages' cached fit of a game's overall scope says how many of that game's matches it
    counts, and a match of another game neither refits it nor shows as not counted yet."""
    store, ids, records = two_games
    cache = RatingsCache(wait_s=300, first_wait_s=300)  # each view waits for its fit, however loaded the machine
    up, ttr = cache.get(store, None, game=UP), cache.get(store, None, game=TTR)
    assert (up.freshness()["matches"], ttr.freshness()["matches"]) == (len(records[UP]), len(records[TTR]))
    store.record_match(ids[TTR], 9999, 0, engine_record(TTR, BOTS[:2], 77, "ttr-new"))
    assert cache.get(store, None, game=UP) is up and cache.fits_made == 2  # nothing new in Union Pacific
    again = cache.get(store, None, game=TTR)  # the view waits for the refit
    assert again.results == len(records[TTR]) + 1 and again.behind == 0 and cache.fits_made == 3


def test_a_store_of_one_game_needs_no_choice(db_url: str) -> None:
    with Store.open(db_url) as store:
        for name in BOTS[:3]:
            store.add_bot(name, "1", "t", "python", manifest_path=f"/b/{name}/bot.toml", files_sha256=SHA)
        tid = store.create_tournament(TTR, {"bots": list(BOTS[:3])}, 1)
        for i, seats in enumerate(itertools.permutations(BOTS[:3], 2)):
            store.record_match(tid, i, 1, engine_record(TTR, seats, 40 + i, f"m{i}"))
        board = compute_leaderboard(store, bootstrap=0)
        assert board.game == TTR and len(board.standings) == 3 and not any(s.reference for s in board.standings)
        assert store.load_ratings() is not None  # the overall scope of the only game


def test_the_store_and_its_queue_implement_the_result_sink() -> None:
    """``arena`` writes through arena.sinks; leaderboard's Store and MatchQueue are what the CLI hands in:
    every member of the interface exists there with the same parameters (names, kinds, defaults)."""
    import inspect

    from arena.sinks import MatchQueueSink, ResultStore
    from leaderboard.queue import MatchQueue

    for interface, implementation in ((ResultStore, Store), (MatchQueueSink, MatchQueue)):
        members = [n for n, v in vars(interface).items() if not n.startswith("_") and (callable(v) or
                                                                                          isinstance(v, property))]
        assert len(members) >= 9
        for name in members:
            wanted, found = getattr(interface, name), getattr(implementation, name, None)
            assert found is not None, f"{implementation.__name__} has no {name}"
            if isinstance(wanted, property):
                assert isinstance(found, property), name
                continue
            expected = [(p.name, p.kind) for p in inspect.signature(wanted).parameters.values()]
            actual = [(p.name, p.kind) for p in inspect.signature(found).parameters.values()]
            if isinstance(inspect.getattr_static(implementation, name), staticmethod):
                actual = [("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *actual]
            assert actual == expected, f"{implementation.__name__}.{name}"
