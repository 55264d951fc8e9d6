"""The rating fit's reading path as arrays (``leaderboard.result_reader``) gives what the
per-match path (``Store.rated_matches`` -> ``RatedMatch`` -> ``FinishingOrders.build``,
``live_elo_history``) gives, on a real SQLite file and a real PostgreSQL server.

The store holds realistic Union Pacific matches (the benchmark's filler: real replays, tables
of 2 to 6, the imaginary third shareholder at tables of two), Ticket to Ride matches played by
its engine, matches with shared places and forfeits, and a bot with two versions; every scope
(overall per game, each tournament, each table size, current or all versions) is compared:
the arrays, the fitted ratings and intervals, the live Elo, the cross-table (against a count
made here match by match), the leaderboard and the pages' fit (history, played, tournaments).
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from arena.bench.store import Filler, ensure_bots, play_templates
from arena.records import MatchTermination
from leaderboard.finishing_orders import FinishingOrders, RatedMatch
from leaderboard.ratings import fit, live_elo_history
from leaderboard.result_arrays import ResultArrays
from leaderboard.result_reader import read_results
from leaderboard.standings import compute_leaderboard
from leaderboard.store import Store
from leaderboard.web.fits import build_fit, spread
from tests.conftest import _fresh_postgres_database
from tests.test_results_per_game import engine_record

UP, TTR = "union_pacific", "ticket_to_ride_pennsylvania"
SHA = "ab" * 32


@pytest.fixture(scope="module")
def templates() -> dict[int, list[Any]]:
    return play_templates(games_per_size=1)


def _odd(record: Any, n: int) -> Any:
    """Every third match gets a shared place, every fifth a forfeit (the forfeiting seat last)."""
    seats = list(record.seats)
    if n % 3 == 0 and len(seats) >= 2:
        first = min(seats, key=lambda s: s.place)
        second = min((s for s in seats if s is not first), key=lambda s: s.place)
        seats[seats.index(second)] = dataclasses.replace(second, place=first.place)
    if n % 5 == 0:
        last = len(seats) + len(record.references)
        seats[0] = dataclasses.replace(seats[0], forfeited=True, place=last)
        return dataclasses.replace(record, seats=tuple(seats), termination=MatchTermination.FORFEIT)
    return dataclasses.replace(record, seats=tuple(seats))


@contextmanager
def _filled(url: str, templates: dict[int, list[Any]]) -> Iterator[Store]:
    with Store.open(url) as store:
        names = ensure_bots(store, 6)
        filler = Filler(templates, names, 3)
        n = 0
        tournaments = [store.create_tournament(UP, {"bots": names, "table_sizes": [2, 3, 4, 5, 6]}, k)
                       for k in range(2)]
        index = dict.fromkeys(tournaments, 0)
        for deal in range(24):
            if deal == 12:  # a second version of one bot: its new matches are the new version's
                store.add_bot(names[0].split("@")[0], "2", "t", "python", manifest_path="/b/two/bot.toml",
                              files_sha256=SHA)
            tid = tournaments[deal % 2]
            batch = []
            for record in filler.deal(f"up-{deal:03d}", 1.0e9 + deal):
                if deal >= 12:
                    record = dataclasses.replace(record, seats=tuple(
                        dataclasses.replace(seat, bot=seat.bot.replace("@1", "@2")) if seat.bot == names[0] else seat
                        for seat in record.seats))
                batch.append((tid, index[tid], index[tid] // 10, _odd(record, n)))
                index[tid] += 1
                n += 1
            store.record_matches(batch)
        ttr = store.create_tournament(TTR, {"bots": names[:4], "table_sizes": [2, 3]}, 9)
        plain = [name.split("@")[0] for name in names]
        for i, seats in enumerate([plain[:2], plain[1:4], plain[2:4], plain[:3], plain[::2][:2]]):
            record = engine_record(TTR, tuple(seats), 40 + i, f"ttr-{i}")
            store.record_match(ttr, i, 0, _odd(record, 3 * i))
        yield store


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           templates: dict[int, list[Any]]) -> Iterator[Store]:
    """The filled store, made once per module (per worker) on each database, for the tests that only
    read it (the filling is most of their time)."""
    if request.param == "sqlite":
        urls: Iterator[str] = iter([f"sqlite:///{(tmp_path_factory.mktemp('fit') / 'arena.sqlite').as_posix()}"])
    else:
        urls = _fresh_postgres_database()
    for url in urls:
        with _filled(url, templates) as store:
            yield store


@pytest.fixture
def store(db_url: str, templates: dict[int, list[Any]]) -> Iterator[Store]:
    """A filled store of this test's own, for a test that writes to it."""
    with _filled(db_url, templates) as store:
        yield store


def _scopes(store: Store) -> list[tuple[int | None, int | None, str]]:
    scopes: list[tuple[int | None, int | None, str]] = []
    for game in (UP, TTR):
        tournaments = [t.id for t in store.list_tournaments() if t.game == game]
        for tid in [None, *tournaments]:
            for players in [None, *store.table_sizes(tid, game=game)]:
                scopes.append((tid, players, game))
    return scopes


def _cross_table_by_hand(matches: list[RatedMatch]) -> dict[tuple[Hashable, Hashable], tuple[int, int, int, int]]:
    counts: dict[tuple[Hashable, Hashable], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for m in matches:
        for a in m.places:
            for b in m.places:
                if str(a) < str(b):
                    c = counts[(a, b)]
                    c[0] += 1
                    c[1 if m.places[a] < m.places[b] else 2 if m.places[a] > m.places[b] else 3] += 1
    return {pair: (c[0], c[1], c[2], c[3]) for pair, c in counts.items()}


def _old_pages_fit(matches: list[RatedMatch]) -> tuple[dict[Any, list[dict[str, Any]]], dict[Any, int],
                                                         dict[Any, tuple[int, ...]]]:
    """The pages' history, played and tournaments as the per-match build_fit made them."""
    history = live_elo_history(matches)
    played = Counter(name for _, after in history for name in after)
    wanted = {name: set(spread(n)) for name, n in played.items()}
    seen: Counter[Hashable] = Counter()
    points: dict[Hashable, list[dict[str, Any]]] = defaultdict(list)
    for number, (key, after) in enumerate(history, start=1):
        for name, elo in after.items():
            i = seen[name]
            seen[name] = i + 1
            if i in wanted[name]:
                points[name].append({"match_id": key, "match_number": number, "n": i + 1, "elo": elo})
    where: dict[Hashable, set[int]] = defaultdict(set)
    for m in matches:
        for name in m.places:
            where[name].add(m.order[0])
    return dict(points), dict(played), {name: tuple(sorted(ids)) for name, ids in where.items()}


def test_the_arrays_give_what_the_per_match_path_gives_in_every_scope(shared: Store) -> None:
    scopes = _scopes(shared)
    assert len(scopes) > 12
    seen_ties = seen_forfeits = seen_reference = seen_versions = False
    for tid, players, game in scopes:
        rated = shared.rated_matches(tid, table_size=players, game=game)
        with shared.read_session() as session:
            read = read_results(session, tid, table_size=players, game=game)
        expected = ResultArrays.from_matches(rated)
        assert read.names == expected.names
        assert read.keys.tolist() == expected.keys.tolist() == [m.key for m in rated]
        for field in ("tournament", "cluster", "start", "who", "place"):
            assert np.array_equal(getattr(read, field), getattr(expected, field)), (tid, players, game, field)
        assert read.clusters == expected.clusters
        stats, stored = read.bot_stats(), shared.bot_stats(tid, table_size=players, game=game)
        assert stats is not None and len(stats) == len(stored)
        for mine, theirs in zip(stats, stored):  # PostgreSQL's avg is a decimal: equal to rounding
            assert dataclasses.replace(mine, mean_place=0, mean_score=0) == \
                dataclasses.replace(theirs, mean_place=0, mean_score=0)
            assert (mine.mean_place, mine.mean_score) == pytest.approx((theirs.mean_place, theirs.mean_score),
                                                                       rel=1e-14)
        seen_ties |= any(len(set(m.places.values())) < len(m.places) for m in rated)
        seen_reference |= "(imaginary)" in read.names
        seen_versions |= any(name.endswith("@2") for name in read.names)
        # the fit: ratings and bootstrap intervals as the per-match path makes them
        old = fit(FinishingOrders.build(rated), bootstrap=40, seed=5)
        new = fit(read.orders(), bootstrap=40, seed=5)
        assert list(old.ratings) == list(new.ratings)
        for name, rating in old.ratings.items():
            other = new.ratings[name]
            assert other.elo == pytest.approx(rating.elo, rel=1e-12, abs=1e-9)
            assert other.ci_low == pytest.approx(rating.ci_low, rel=1e-12, abs=1e-9)
            assert other.ci_high == pytest.approx(rating.ci_high, rel=1e-12, abs=1e-9)
        # the live Elo: every participant after every match
        live = read.live_elo()
        for (key, after), (new_key, new_after) in zip(live_elo_history(rated), read.history(live), strict=True):
            assert key == new_key and list(after) == list(new_after)
            for name, elo in after.items():
                assert new_after[name] == elo  # the same operations in the same order: equal bits
        # the cross-table, against a count made here
        cross = compute_leaderboard(shared, tid, players=players, game=game, bootstrap=0, save=False,
                                    all_versions=True).cross_table
        by_hand = _cross_table_by_hand(rated)
        assert {(h.a, h.b): (h.meetings, h.ahead, h.behind, h.tied) for h in cross.pairs()} == by_hand
        import leaderboard.crosstable as crosstable  # the sparse count (thousands of versions): the same
        dense_limit, crosstable.DENSE_LIMIT = crosstable.DENSE_LIMIT, 0
        try:
            sparse = crosstable.cross_table(FinishingOrders.build(rated))
        finally:
            crosstable.DENSE_LIMIT = dense_limit
        assert [(h.a, h.b, h.meetings, h.ahead, h.behind, h.tied) for h in sparse.pairs()] == \
            [(h.a, h.b, h.meetings, h.ahead, h.behind, h.tied) for h in crosstable.cross_table(rated).pairs()]
    with shared.read_session() as session:  # a scope without matches: empty arrays, an empty leaderboard
        empty = read_results(session, None, table_size=7, game=UP)
    assert empty.matches == 0 and empty.names == () and empty.live_elo().size == 0
    assert compute_leaderboard(shared, None, players=7, game=UP, bootstrap=10, save=False).standings == []
    assert build_fit(shared, None, 7, UP).played == {}
    with shared.read_session() as session:
        forfeits = session.connection().exec_driver_sql("SELECT count(*) FROM seats WHERE forfeited").scalar_one()
    seen_forfeits = forfeits > 0
    assert seen_ties and seen_forfeits and seen_reference and seen_versions


@pytest.mark.parametrize("all_versions", [False, True])
def test_the_leaderboard_and_the_pages_fit_are_those_of_the_per_match_path(shared: Store, all_versions: bool) -> None:
    for tid, players, game in _scopes(shared):
        rated = shared.rated_matches(tid, table_size=players, game=game)
        old = compute_leaderboard(shared, tid, players=players, game=game, bootstrap=30, save=False,
                                  all_versions=all_versions, matches=rated)
        new = compute_leaderboard(shared, tid, players=players, game=game, bootstrap=30, save=False,
                                  all_versions=all_versions)
        assert [s.name for s in new.standings] == [s.name for s in old.standings]
        for a, b in zip(old.standings, new.standings):
            assert dataclasses.replace(b, elo=a.elo, ci_low=a.ci_low, ci_high=a.ci_high, live_elo=a.live_elo,
                                       mean_place=a.mean_place, mean_score=a.mean_score) == a
            for mine, theirs in ((b.mean_place, a.mean_place), (b.mean_score, a.mean_score)):
                assert mine == theirs or mine == pytest.approx(theirs, rel=1e-14)
            assert (b.elo, b.ci_low, b.ci_high) == pytest.approx((a.elo, a.ci_low, a.ci_high), rel=1e-12)
            assert b.live_elo == pytest.approx(a.live_elo, rel=1e-11)
        assert [(s.above, s.below, s.p) for s in new.superiority] == [(s.above, s.below, s.p) for s in old.superiority]
        assert (new.table_sizes, new.game, new.method) == (old.table_sizes, old.game, old.method)
        pages = build_fit(shared, tid, players, game if tid is None else None).view(all_versions)
        history, played, tournaments = _old_pages_fit(rated)
        assert pages.played == played and pages.tournaments == tournaments
        assert pages.history.keys() == history.keys()
        for name, points in history.items():
            mine = pages.history[name]
            assert [{**p, "elo": 0} for p in mine] == [{**p, "elo": 0} for p in points]
            assert [p["elo"] for p in mine] == pytest.approx([p["elo"] for p in points], rel=1e-11)
        assert pages.key is not None and pages.key[0] == len(rated)


def test_the_stored_history_is_the_per_match_one(store: Store) -> None:
    """``save=True`` stores every participant's live Elo after every match, from the arrays."""
    compute_leaderboard(store, game=UP, bootstrap=0, save=True)
    saved = store.load_ratings(None, game=UP)
    assert saved is not None
    expected = [(key, name, elo) for key, after in live_elo_history(store.rated_matches(game=UP))
                for name, elo in sorted(after.items())]
    assert [(p.match_id, p.participant) for p in saved.history] == [(k, n) for k, n, _ in expected]
    assert [p.elo for p in saved.history] == pytest.approx([e for _, _, e in expected], rel=1e-11)


def test_a_first_fit_that_takes_long_shows_the_page_without_ratings_saying_so(
        tmp_path: Any, templates: dict[int, list[Any]]) -> None:
    import threading

    from starlette.testclient import TestClient

    from arena.bench.store import fill
    from leaderboard.web import create_app
    from leaderboard.web.fits import RatingsCache

    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    with Store.open(url) as filling:
        fill(filling, 6, templates=templates, bots=8, tournaments=1)
        stored = len(filling.rated_matches())
    gate = threading.Event()
    calls: list[tuple[Any, ...]] = []

    def slow(store: Store, *scope: Any) -> Any:
        calls.append(scope)
        assert gate.wait(120)
        return build_fit(store, *scope)

    app = create_app(url)
    app.state.web.ratings = cache = RatingsCache(build=slow, first_wait_s=0.2, max_scopes=2, max_queued=2)
    with TestClient(app) as client:
        board = client.get("/api/leaderboard").json()
        assert board["fit"]["fitting"] and board["rows"] == [] and board["game"] == UP
        page = client.get("/")
        assert page.status_code == 200 and "Ratings are being fitted" in page.text
        assert len(calls) == 1  # one fit for both views
        # a second new scope waits as well; a third finds the queue full: the placeholder, no fit started
        assert client.get("/api/leaderboard?players=2").json()["fit"]["fitting"]
        assert client.get("/api/leaderboard?players=3").json()["fit"]["fitting"]
        assert sorted(scope[1] or 0 for scope in cache._refits) == [0, 2]  # players=3 started nothing
        gate.set()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and cache.fits_made < 2:
            time.sleep(0.05)
        board = client.get("/api/leaderboard").json()
        assert not board["fit"]["fitting"] and board["rows"] and board["fit"]["matches"] == stored
        assert "Ratings are being fitted" not in client.get("/").text
        # at most max_scopes fits are kept, the least recently viewed dropped first
        cache.first_wait_s = 300  # fitted now (the queue is free): waited for, however slow the machine
        assert not client.get("/api/leaderboard?players=3").json()["fit"]["fitting"]
        assert len(cache._fits) == 2
        assert (None, 2, UP) not in cache._fits


def test_the_live_elo_in_slices_of_matches_is_the_whole_pass(shared: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import leaderboard.result_arrays as result_arrays

    rated = shared.rated_matches(game=UP)
    with shared.read_session() as session:
        read = read_results(session, None, game=UP)
    whole = read.live_elo()
    monkeypatch.setattr(result_arrays, "LIVE_ELO_SLICE", 7)  # many slices, cut inside the tournaments
    assert read.matches > 7 * 10
    sliced = read.live_elo()
    assert np.array_equal(whole, sliced)
    expected = [elo for _, after in live_elo_history(rated) for elo in after.values()]
    assert sliced.tolist() == expected


# ----------------------------------------------------------------- reading in chunks, narrow, bounded

def _same_arrays(a: ResultArrays, b: ResultArrays) -> None:
    assert a.names == b.names and a.clusters == b.clusters
    for name in ("tournament", "schedule", "cluster", "start", "who", "place"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.stats is not None and b.stats is not None
    for name in ("score", "forfeits", "faults"):
        assert np.array_equal(getattr(a.stats, name), getattr(b.stats, name)), name


def test_reading_in_chunks_of_any_size_gives_the_same_arrays(shared: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 5 rows (the COPY's buffer and SQLite's cursor cut mid-match, the seats' arrays
    grown past a capacity made too small) read what one chunk reads."""
    import leaderboard.result_reader as result_reader

    with shared.snapshot_session() as session:
        whole = [read_results(session, tid, table_size=players, game=game) for tid, players, game in _scopes(shared)]
    monkeypatch.setattr(result_reader, "READ_CHUNK", 5)
    real_read = result_reader._read

    def small_capacity(*args: Any, **kwargs: Any) -> list[np.ndarray]:
        kwargs["capacity"] = min(kwargs.get("capacity", 0), 3)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(result_reader, "_read", small_capacity)
    with shared.snapshot_session() as session:
        for expected, (tid, players, game) in zip(whole, _scopes(shared)):
            _same_arrays(read_results(session, tid, table_size=players, game=game), expected)
    assert whole[0].who.dtype == np.int32 and whole[0].place.dtype == np.int32  # narrow: half the memory


def test_a_stored_number_out_of_range_is_a_clear_error(tmp_path: Any, templates: dict[int, list[Any]]) -> None:
    """SQLite keeps any integer: a place past int32 is refused by name, not wrapped around."""
    from sqlalchemy import text

    from leaderboard.errors import CorruptDataError

    with Store.open(f"sqlite:///{tmp_path / 'odd.sqlite'}") as store:
        names = ensure_bots(store, 3)
        tid = store.create_tournament(UP, {"bots": names, "table_sizes": [3]}, 1)
        store.record_matches([(tid, i, 0, r) for i, r in enumerate(Filler(templates, names, 3).deal("d", 1.0e9))])
        with store.engine.begin() as connection:
            connection.execute(text("UPDATE seats SET place = 1099511627776 WHERE rowid = 1"))
        with store.snapshot_session() as session, pytest.raises(CorruptDataError, match="place is out of range"):
            read_results(session, tid)


@pytest.fixture
def pg_url() -> Iterator[str]:
    from tests.conftest import _fresh_postgres_database

    yield from _fresh_postgres_database()


@pytest.mark.postgres
def test_the_binary_copy_refuses_a_null_and_reads_both_widths(pg_url: str) -> None:
    from sqlalchemy import BigInteger, Integer, cast, literal, null, select

    import leaderboard.result_reader as result_reader
    from leaderboard.errors import CorruptDataError

    columns = (("a", Integer, np.int32), ("b", BigInteger, np.int64))
    with Store.open(pg_url) as store, store.snapshot_session() as session:
        connection = session.connection()
        numbers = select(cast(literal(-7), Integer).label("a"), cast(literal(2**40 + 3), BigInteger).label("b"))
        a, b = result_reader._read(connection, numbers.union_all(numbers), columns)
        assert a.tolist() == [-7, -7] and b.tolist() == [2**40 + 3] * 2 and b.dtype == np.int64
        with pytest.raises(CorruptDataError, match="NULL"):
            result_reader._read(connection, select(cast(null(), Integer).label("a"), cast(literal(1), BigInteger)),
                                columns)


@pytest.mark.postgres
def test_an_error_while_the_copy_is_read_leaves_the_connection_usable(pg_url: str) -> None:
    """An error raised while a chunk is used (out of memory, a refused number) ends the COPY: the
    session closes and the next query runs (a COPY left open held the connection's lock, and the
    rollback at the session's end waited for it forever)."""
    import threading

    from sqlalchemy import Integer, cast, func, select, text

    import leaderboard.result_reader as result_reader

    columns = (("a", Integer, np.int32),)
    many = select(cast(func.generate_series(1, 3 * result_reader.READ_CHUNK), Integer).label("a"))
    calls: list[int] = []

    def convert(chunk: list[np.ndarray]) -> list[np.ndarray]:
        calls.append(len(chunk[0]))
        if len(calls) == 2:
            raise MemoryError("a chunk too many")
        return chunk

    outcome: list[Any] = []

    def attempt() -> None:
        with Store.open(pg_url) as store:
            try:
                with store.snapshot_session() as session:
                    result_reader._read(session.connection(), many, columns, convert=convert,
                                        kept=(("a", np.int32),))
            except MemoryError as exc:
                outcome.append(exc)
            with store.engine.connect() as connection:
                outcome.append(connection.execute(text("SELECT 1")).scalar())

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the session's end waited forever on the COPY left open"
    assert [type(outcome[0]), outcome[1]] == [MemoryError, 1] and len(calls) == 2


def test_the_pages_fit_holds_no_connection_during_the_live_elo(shared: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL ends a transaction idle for 30 s: the slow work after the read (live Elo, the fit)
    must not keep the snapshot open (a loaded machine took more than 30 s there)."""
    seen: list[int] = []
    real = ResultArrays.live_elo

    def live_elo(self: ResultArrays, **kwargs: Any) -> np.ndarray:
        seen.append(shared.engine.pool.checkedout())
        return real(self, **kwargs)

    monkeypatch.setattr(ResultArrays, "live_elo", live_elo)
    pages = build_fit(shared, None, None, UP)
    assert pages.history and seen == [0]


def _stage_sets_at_once(orders: FinishingOrders) -> Any:
    """The stage sets as StageSets.build made them before it gathered chunk by chunk: every
    set of every match at once (the oracle)."""
    import math

    from scipy import sparse

    from leaderboard.plackett_luce import _Template

    n = len(orders.names)
    templates: dict[tuple[int, int], Any] = {}
    members: dict[int, list[np.ndarray]] = {}
    owners: dict[int, list[np.ndarray]] = {}
    weights: dict[int, list[np.ndarray]] = {}
    lin: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    plan = []
    for block in orders.blocks:
        if block.width < 2:
            continue
        ties = block.place[:, 1:] == block.place[:, :-1]
        codes = (ties.astype(np.int64) << np.arange(block.width - 1, dtype=np.int64)).sum(axis=1)
        for code in np.unique(codes):
            template = templates.setdefault((block.width, int(code)), _Template.of(block.width, int(code)))
            plan.append((block, np.flatnonzero(codes == code), template))
    unit = math.lcm(1, *(t.denominator for t in templates.values()))
    for block, rows, template in plan:
        who, cluster = block.who[rows].astype(np.int64), block.cluster[rows]
        for columns, weight in template.sets:
            members.setdefault(len(columns), []).append(np.sort(who[:, columns], axis=1))
            owners.setdefault(len(columns), []).append(cluster)
            weights.setdefault(len(columns), []).append(np.full(len(rows), float(weight * unit)))
        for column, weight in template.linear:
            lin.append((cluster, who[:, column], np.full(len(rows), float(weight * unit))))
    sets, per_cluster = [], []
    for size in sorted(members):
        distinct, inverse = np.unique(np.concatenate(members[size]), axis=0, return_inverse=True)
        sets.append(distinct)
        per_cluster.append(sparse.csr_array((np.concatenate(weights[size]),
                                             (np.concatenate(owners[size]), inverse.reshape(-1))),
                                            shape=(orders.clusters, len(distinct))))
    linear = sparse.csr_array((np.concatenate([w for _, _, w in lin]),
                               (np.concatenate([c for c, _, _ in lin]), np.concatenate([w for _, w, _ in lin]))),
                              shape=(orders.clusters, n))
    return sorted(members), sets, per_cluster, linear, unit


def _random_orders(participants: int, matches: int, seed: int) -> FinishingOrders:
    rng = np.random.default_rng(seed)
    rated = []
    for m in range(matches):
        width = int(rng.integers(2, 8))
        names = rng.choice(participants, size=width, replace=False)
        places = np.sort(rng.integers(1, width + 1, size=width))  # ties now and then
        rated.append(RatedMatch(f"m{m}", (0, m), {f"p{int(i):04d}": int(p) for i, p in zip(names, places)},
                                deal=f"d{m // 3}"))
    return FinishingOrders.build(rated)


@pytest.mark.parametrize("participants", [9, 700])  # sets as one number each; 700: 10 bits x 7 > 62, as rows
def test_the_stage_sets_gathered_in_chunks_are_those_made_at_once(participants: int,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import leaderboard.plackett_luce as plackett_luce

    orders = _random_orders(participants, 400, participants)
    sizes, sets, per_cluster, linear, unit = _stage_sets_at_once(orders)
    for chunk, merge in ((3, 10), (65_536, 1_000_000)):
        monkeypatch.setattr(plackett_luce, "_BUILD_CHUNK", chunk)
        monkeypatch.setattr(plackett_luce, "_LINEAR_MERGE", merge)
        built = plackett_luce.StageSets.build(orders)
        assert list(built.sizes) == sizes and built.unit == unit
        for mine, theirs in zip(built.sets, sets):
            assert np.array_equal(mine, theirs)
        for mine, theirs in [*zip(built.per_cluster, per_cluster), (built.linear, linear)]:
            theirs = theirs.copy()
            theirs.sum_duplicates()
            if theirs is not per_cluster[0] and mine is built.linear:
                theirs.eliminate_zeros()  # a deal's linear terms that sum to 0 are not kept (nothing to add)
            assert mine.has_canonical_format
            assert np.array_equal(mine.indptr, theirs.indptr) and np.array_equal(mine.indices, theirs.indices)
            assert np.array_equal(mine.data, theirs.data)  # whole numbers: the same sums in any order
    assert (participants - 1).bit_length() * 7 > 62 or participants < 100
