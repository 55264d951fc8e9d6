"""Issue 11: the two views of a scope's ratings (each bot's newest version with results, and
every version: ``?versions=all``) are made from one rating fit (leaderboard/web/fits.py), with
every number they show unchanged, on a real SQLite file and a real PostgreSQL server.

The store holds realistic Union Pacific matches (the benchmark's filler: real replays, tables of
2 to 6, the imaginary shareholder at tables of two) of bots with several versions: two bots have
a second version with results, one of them a third version without any (its newest with results
is shown), and one bot is removed (retired: its results stay).  Each view of the one fit is
compared with the leaderboard fitted for that view alone (:func:`compute_leaderboard`, what every
view was fitted from before), and its rows with a choice made here from the fit's ratings.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.bench.store import fill, play_templates
from leaderboard import tallies
from leaderboard.ratings import fit
from leaderboard.result_reader import read_results
from leaderboard.standings import SUPERIORITY_WINDOW, Leaderboard, compute_leaderboard
from leaderboard.store import Store
from leaderboard.web import create_app
from leaderboard.web.data import standing_json
from leaderboard.web.fits import RatingsCache, build_fit
from leaderboard.web.standings_view import cross_table_json, superiority_json
from leaderboard.web.tracked import TrackedRatings

UP = "union_pacific"
SHA = "cd" * 32


@pytest.fixture(scope="module")
def templates() -> dict[int, list[Any]]:
    return play_templates(games_per_size=1)


def _new_version(store: Store, bot: str, version: str, k: int) -> None:
    store.add_bot(bot, version, "t", "python", manifest_path=f"/v/{bot}/{version}/bot.toml",
                  files_sha256=f"{k:064x}")


def _versions_store(url: str, templates: dict[int, list[Any]]) -> list[int]:
    """Six bots; bench-00 and bench-01 get a second version that plays, bench-00 a third that
    does not, bench-05 is removed after playing.  Returns the tournaments' ids."""
    with Store.open(url) as store:
        tournaments = fill(store, 24, templates=templates, bots=6, tournaments=2)
        _new_version(store, "bench-00", "2.0", 100)
        _new_version(store, "bench-01", "2.0", 101)
        tournaments += fill(store, 24, templates=templates, bots=6, tournaments=1)  # @2 of both play
        _new_version(store, "bench-00", "3.0", 102)  # never plays: its @2 stays the row shown
        store.remove_bot("bench-05")
    return tournaments


@pytest.fixture
def versions_url(db_url: str, templates: dict[int, list[Any]]) -> Iterator[str]:
    _versions_store(db_url, templates)
    yield db_url


def _scopes(store: Store) -> list[tuple[int | None, int | None]]:
    return [(tid, players) for tid in [None, *(t.id for t in store.list_tournaments())]
            for players in [None, *store.table_sizes(tid, game=UP)]]


def _same_board(shared: Leaderboard, alone: Leaderboard) -> None:
    assert shared.standings == alone.standings  # every field: rank, Elo, interval, live Elo, counts, current
    assert shared.superiority == alone.superiority
    assert [(h.a, h.b, h.meetings, h.ahead, h.behind, h.tied) for h in shared.cross_table.pairs()] == \
        [(h.a, h.b, h.meetings, h.ahead, h.behind, h.tied) for h in alone.cross_table.pairs()]
    assert (shared.players, shared.table_sizes, shared.resamples, shared.method, shared.game) == \
        (alone.players, alone.table_sizes, alone.resamples, alone.method, alone.game)
    assert superiority_json(shared) == superiority_json(alone)
    assert cross_table_json(shared) == cross_table_json(alone)


def test_both_views_of_one_fit_are_those_fitted_for_each_view_alone(versions_url: str) -> None:
    seen_hidden = seen_reference = seen_retired = False
    with Store.open(versions_url) as store:
        scopes = _scopes(store)
        assert len(scopes) > 10
        for tid, players in scopes:
            pages = build_fit(store, tid, players, UP if tid is None else None)
            newest, every = pages.view(False), pages.view(True)
            assert newest.history is every.history and newest.played is every.played  # one fit, not copied
            assert newest.board.cross_table is every.board.cross_table
            for view in (newest, every):
                alone = compute_leaderboard(store, tid, players=players, game=UP, save=False,
                                            all_versions=view.all_versions)
                _same_board(view.board, alone)

            # the rows each view shows, chosen here from the fit's own ratings
            with store.read_session() as session:
                results = read_results(session, tid, table_size=players, game=UP)
            ratings = fit(results.orders(), bootstrap=200, seed=0)
            every_name = sorted(ratings.ratings, key=lambda n: (-ratings.ratings[n].elo, str(n)))
            top: dict[str, int] = {}
            for name in every_name:
                if not ratings.ratings[name].reference:
                    bot, _, number = str(name).rpartition("@")
                    top[bot] = max(top.get(bot, 0), int(number))
            newest_names = [n for n in every_name if ratings.ratings[n].reference
                            or int(str(n).rpartition("@")[2]) == top[str(n).rpartition("@")[0]]]
            for view, names in ((every, every_name), (newest, newest_names)):
                rows = view.standings
                assert [r.name for r in rows] == names
                assert [r.elo for r in rows] == [ratings.ratings[n].elo for n in names]
                assert [r.rank for r in rows if not r.reference] == \
                    list(range(1, sum(not r.reference for r in rows) + 1))
                assert all(r.rank is None for r in rows if r.reference)
                expected = [(a, b, d, ratings.superiority(a, b)) for i, a in enumerate(names)
                            for d, b in enumerate(names[i + 1:i + 1 + SUPERIORITY_WINDOW], start=1)]
                assert [(s.above, s.below, s.distance, s.p) for s in view.board.superiority] == expected
            seen_hidden |= len(newest.standings) < len(every.standings)
            seen_reference |= any(r.reference for r in every.standings)
            seen_retired |= any(r.bot == "bench-05" for r in newest.standings)
            assert not any(r.name == "bench-00@3" for r in every.standings)  # no results: in no view
    assert seen_hidden and seen_reference and seen_retired


def test_one_fit_serves_both_views_and_a_new_match_refits_them_once(versions_url: str,
                                                                    templates: dict[int, list[Any]]) -> None:
    calls: list[tuple[Any, ...]] = []

    def counted(store: Store, *scope: Any) -> Any:
        calls.append(scope)
        return build_fit(store, *scope)

    with Store.open(versions_url) as store:
        cache = RatingsCache(build=counted, first_wait_s=300, wait_s=300)
        newest = cache.get(store, None, game=UP)
        every = cache.get(store, None, all_versions=True, game=UP)
        assert len(calls) == 1 and cache.fits_made == 1
        assert not newest.all_versions and every.all_versions and len(newest.standings) < len(every.standings)
        assert cache.get(store, None, game=UP) is newest and cache.get(store, None, all_versions=True, game=UP) is every
        tid = store.list_tournaments()[0].id
        cache.get(store, tid, all_versions=True)
        cache.get(store, tid)
        assert len(calls) == 2 and calls == [(None, None, UP), (tid, None, None)]

        fill(store, 1, templates=templates, bots=6, tournaments=1)  # one more deal: one refit for both views
        counted_now = sum(tallies.match_counts(store).values())
        again_every = cache.get(store, None, all_versions=True, game=UP)
        again_newest = cache.get(store, None, game=UP)
        assert len(calls) == 3 and cache.fits_made == 3
        assert again_every.results == again_newest.results == counted_now > every.results
        assert again_every.behind == again_newest.behind == 0
        _same_board(again_newest.board, compute_leaderboard(store, None, game=UP, save=False))
        _same_board(again_every.board, compute_leaderboard(store, None, game=UP, save=False, all_versions=True))


def _shown(board: dict[str, Any]) -> tuple[Any, ...]:
    return board["rows"], board["superiority"], board["cross_table"], board["table_sizes"], board["bootstrap"]


def test_the_server_fits_once_for_both_views_and_a_fit_remakes_the_pages_of_both(
        versions_url: str) -> None:
    """Through the server (its TrackedRatings and its kept answers): the pages of both views are
    made from one fit per scope, show what each view fitted alone shows, and the fit of the shared
    scope makes the kept answers of both views again."""
    gate = threading.Event()
    calls: list[tuple[Any, ...]] = []

    def gated(store: Store, *scope: Any) -> Any:
        calls.append(scope)
        assert gate.wait(120)
        return build_fit(store, *scope)

    app = create_app(versions_url)
    app.state.web.ratings = ratings = TrackedRatings(build=gated, first_wait_s=0.2, wait_s=300)
    app.state.responses.ttl_s = 600  # the clock plays no part here
    with TestClient(app) as client:
        paths = ["/api/leaderboard", "/api/leaderboard?versions=all", "/", "/?versions=all"]
        waiting = {p: client.get(p) for p in paths}  # the first fit is not done: shown without ratings
        assert all(r.status_code == 200 for r in waiting.values())
        assert waiting["/api/leaderboard"].json()["fit"]["fitting"]
        assert waiting["/api/leaderboard?versions=all"].json()["fit"]["fitting"]
        assert "Ratings are being fitted" in waiting["/?versions=all"].text
        hits = app.state.responses.hits
        assert all(client.get(p).content == waiting[p].content for p in paths)  # kept while the fit runs
        assert app.state.responses.hits == hits + len(paths)
        assert len(calls) == 1  # both views asked for one fit

        gate.set()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not ratings.fits_made:
            time.sleep(0.02)
        assert ratings.fits_made == 1 and ratings.number((None, None, UP)) == 1  # the shared scope's first fit
        newest = client.get("/api/leaderboard").json()  # the fit of the shared scope remade both
        every = client.get("/api/leaderboard?versions=all").json()
        assert not newest["fit"]["fitting"] and not every["fit"]["fitting"]
        assert "Ratings are being fitted" not in client.get("/?versions=all").text
        assert "Ratings are being fitted" not in client.get("/").text
        assert len(calls) == 1 and ratings.fits_made == 1
        with Store.open(versions_url) as store:
            for shown, all_versions in ((newest, False), (every, True)):
                alone = compute_leaderboard(store, None, game=UP, save=False, all_versions=all_versions)
                assert _shown(shown) == ([standing_json(s) for s in alone.standings], superiority_json(alone),
                                         cross_table_json(alone), alone.table_sizes,
                                         {"resamples": alone.resamples, "method": alone.method})
        assert len(every["rows"]) > len(newest["rows"])
