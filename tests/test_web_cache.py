"""Issue 11, scale: the web answers kept by data version (leaderboard/web/cache.py).

A kept answer is given again only while nothing it shows has changed: a match stored by
another connection (as a tournament run stores it), a bot or version added, a bot
removed, a tournament's status changed, each shows at the next view (SQLite and
PostgreSQL).  The cache holds a bounded number of bytes, keeps 200 answers only, and
``Cache-Control: no-cache`` makes an answer afresh.  Every list is bounded by default
and a limit out of range is a 400 on every list, page or endpoint.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.responses import Response
from starlette.testclient import TestClient

from arena.bench.store import fill, play_templates
from arena.cli.main import main
from leaderboard import bot_activity, match_lists, tallies
from leaderboard.paging import DEFAULT_LIMIT, MAX_LIMIT
from leaderboard.rows import TournamentStatus
from leaderboard.store import Store
from leaderboard.web import create_app
from leaderboard.web.cache import ENTRY_OVERHEAD, MAX_ENTRIES, ResponseCache, cached


@pytest.fixture(scope="module")
def templates() -> dict[int, list[Any]]:
    return play_templates(games_per_size=1)


def _ids(page: str) -> list[str]:
    return re.findall(r'class="match-link" href="/matches/([^"]+)"', page)


def test_a_change_to_the_store_shows_at_the_next_view(db_url: str, templates: dict[int, list[Any]]) -> None:
    with Store.open(db_url) as writer:
        tid = fill(writer, 20, templates=templates, bots=8, tournaments=1)[0]
        app = create_app(db_url)
        cache: ResponseCache = app.state.responses
        cache.ttl_s = 600  # the clock plays no part here (a loaded machine may take seconds per page)
        with TestClient(app) as client:
            bot = writer.list_matches()[0].seats[0].bot
            paths = ["/", "/api/leaderboard", "/api/matches", "/matches", f"/api/bots/{quote(bot, safe='')}",
                     f"/bots/{quote(bot, safe='')}", "/api/bots", "/bots", "/api/tournaments", "/tournaments",
                     f"/tournaments/{tid}", f"/api/tournaments/{tid}"]
            for p in paths:  # the first views fit the ratings of each scope (a fit made is a change too)
                client.get(p)
            first = {p: client.get(p) for p in paths}
            assert all(r.status_code == 200 for r in first.values())
            hits = cache.hits
            again = {p: client.get(p) for p in paths}
            assert cache.hits == hits + len(paths)  # kept: the same bytes and headers again
            for p in paths:
                assert again[p].content == first[p].content
                assert again[p].headers["content-type"] == first[p].headers["content-type"]
                assert again[p].headers["content-security-policy"]  # the middleware's headers on a kept answer

            # a deal stored through another connection: the lists and the counts show it at once
            newest_before = client.get("/api/matches").json()[0]["id"]
            fill(writer, 1, templates=templates, bots=8, tournaments=1)
            stored = writer.list_matches()
            listed = client.get("/api/matches").json()
            assert listed[0]["id"] == stored[0].id != newest_before
            assert _ids(client.get("/matches").text)[0] == quote(stored[0].id, safe="")
            board = client.get("/api/leaderboard").json()
            assert board["fit"]["matches"] + board["fit"]["behind"] == len(stored)
            assert sum(t["matches_stored"] for t in client.get("/api/tournaments").json()) == len(stored)
            mine = [m.id for m in writer.list_matches(bot=bot)]
            assert client.get(f"/api/bots/{quote(bot, safe='')}").json()["recent_matches"][0]["id"] == mine[0]

            # a new bot, a new version, a removed bot, a tournament's status
            writer.add_bot("newcomer", "1.0", "me", "python", manifest_path="/x/bot.toml", files_sha256="ab" * 32)
            assert "newcomer" in [b["name"] for b in client.get("/api/bots?limit=500").json()]
            assert "newcomer" in client.get("/bots").text
            name = bot.split("@")[0]
            writer.add_bot(name, "2.0", "me", "python", manifest_path="/y/bot.toml", files_sha256="cd" * 32)
            versions = client.get(f"/api/bots/{quote(name, safe='')}").json()["versions"]
            assert versions[0]["number"] == 2 and versions[0]["current"]
            writer.remove_bot("newcomer")
            gone = [b for b in client.get("/api/bots?limit=500").json() if b["name"] == "newcomer"]
            assert gone and gone[0]["removed_at"] is not None
            writer.set_tournament_status(tid, TournamentStatus.INTERRUPTED)
            assert client.get(f"/api/tournaments/{tid}").json()["status"] == "interrupted"
            assert "interrupted" in client.get(f"/tournaments/{tid}").text


def test_the_cache_is_bounded_and_keeps_only_whole_200_answers() -> None:
    cache = ResponseCache(max_bytes=16_000, ttl_s=60)
    for k in range(30):
        cache.put(("", f"/p{k}", ""), "v", 0.0 + 1e12, Response(b"x" * 900))
        assert cache.bytes <= 16_000
    each = 900 + ENTRY_OVERHEAD  # and its headers and address: a few dozen bytes
    assert len(cache) in (16_000 // (each + 100), 16_000 // each) and cache.get(("", "/p0", ""), "v") is None
    assert cache.get(("", "/p19", ""), "v") is not None
    assert cache.get(("", "/p19", ""), "other version") is None
    cache.put(("", "/big", ""), "v", 1e12, Response(b"x" * 2_001))  # over an eighth of the whole: not kept
    cache.put(("", "/missing", ""), "v", 1e12, Response(b"no", status_code=404))
    assert cache.get(("", "/big", ""), "v") is None and cache.get(("", "/missing", ""), "v") is None
    stale = ResponseCache(ttl_s=0)  # nothing outlives its ttl
    stale.put(("", "/", ""), "v", 0.0, Response(b"x"))
    assert stale.get(("", "/", ""), "v") is None


def test_long_addresses_count_against_the_bound_and_entries_are_capped() -> None:
    """An address is part of what is kept: 8 KB query strings with empty bodies (any unknown
    parameter makes a new address) cannot grow the cache past its bound."""
    cache = ResponseCache(max_bytes=1_000_000, ttl_s=60)
    for k in range(500):
        cache.put(("", "/api/tournaments", f"x={k}&" + "y" * 8_000), "v", 1e12, Response(b""))
        assert cache.bytes <= 1_000_000
    assert len(cache) < 125  # about 1 MB / 8.4 KB
    many = ResponseCache(max_bytes=10**9, ttl_s=60)
    for k in range(MAX_ENTRIES + 50):
        many.put(("", f"/p{k}", ""), "v", 1e12, Response(b"x"))
    assert len(many) == MAX_ENTRIES


def test_views_that_miss_at_once_make_the_answer_once() -> None:
    import threading

    from starlette.applications import Starlette
    from starlette.routing import Route

    made = []

    @cached(lambda request: "v1")
    def slow(request: Any) -> Response:
        made.append(1)
        time.sleep(0.3)  # long enough for the other views to arrive while it is made
        return Response(b"page")

    app = Starlette(routes=[Route("/", slow)])
    app.state.responses = ResponseCache(ttl_s=60)
    with TestClient(app) as client:
        answers: list[bytes] = []
        views = [threading.Thread(target=lambda: answers.append(client.get("/").content)) for _ in range(5)]
        for view in views:
            view.start()
        for view in views:
            view.join()
    assert answers == [b"page"] * 5 and len(made) == 1


def test_no_cache_makes_the_answer_afresh_and_cache_zero_keeps_none(tmp_path: Path,
                                                                      templates: dict[int, list[Any]]) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    with Store.open(url) as store:
        fill(store, 6, templates=templates, bots=8, tournaments=1)
    app = create_app(url)
    cache: ResponseCache = app.state.responses
    with TestClient(app) as client:
        client.get("/api/matches")
        hits = cache.hits
        assert client.get("/api/matches", headers={"Cache-Control": "no-cache"}).status_code == 200
        assert cache.hits == hits
        client.get("/api/matches")
        assert cache.hits == hits + 1
        assert client.get("/api/bots/nobody").status_code == 404 and client.get("/api/bots/nobody").status_code == 404
        assert cache.hits == hits + 1  # a 404 is not kept
    none = create_app(url, cache_bytes=0)
    with TestClient(none) as client:
        assert client.get("/api/matches").json() == client.get("/api/matches").json()
        assert len(none.state.responses) == 0


LISTS = ["/api/matches", "/api/bots", "/api/tournaments", "/matches", "/bots", "/tournaments"]


def test_every_list_is_bounded_and_refuses_a_limit_out_of_range(tmp_path: Path,
                                                                templates: dict[int, list[Any]]) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    with Store.open(url) as store:
        tid = fill(store, DEFAULT_LIMIT + 6, templates=templates, bots=8, tournaments=1)[0]
    with TestClient(create_app(url)) as client:
        assert len(client.get("/api/matches").json()) == DEFAULT_LIMIT
        assert len(client.get(f"/api/tournaments/{tid}").json()["matches"]) == DEFAULT_LIMIT
        assert len(_ids(client.get("/matches").text)) == DEFAULT_LIMIT
        for path in [*LISTS, f"/api/tournaments/{tid}"]:
            for bad in ("0", "-1", str(MAX_LIMIT + 1), "99999999999999999999999", "ten"):
                response = client.get(f"{path}?limit={bad}")
                assert response.status_code == 400, (path, bad)
                assert "limit" in response.text
            assert client.get(f"{path}?limit={MAX_LIMIT}").status_code == 200


def test_serve_refuses_a_negative_cache(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    Store.open(url).close()
    assert main(["serve", "--db", url, "--cache-mb", "-1"]) != 0
    assert "--cache-mb must be between 0" in capsys.readouterr().err


def test_data_version_changes_with_each_kind_of_change(db_url: str, templates: dict[int, list[Any]]) -> None:
    with Store.open(db_url) as store:
        seen = [tallies.data_version(store)]
        tid = fill(store, 2, templates=templates, bots=8, tournaments=1)[0]
        seen.append(tallies.data_version(store))
        store.add_bot("other", "1.0", "me", "python", manifest_path="/x/bot.toml", files_sha256="ab" * 32)
        seen.append(tallies.data_version(store))
        store.remove_bot("other")
        seen.append(tallies.data_version(store))
        store.set_tournament_status(tid, TournamentStatus.RUNNING)
        seen.append(tallies.data_version(store))
        assert len(set(seen)) == len(seen)
        assert tallies.data_version(store) == seen[-1]  # nothing changed: the same


@pytest.mark.parametrize(("few_seats", "walk"), [(1, 1), (1, 1000), (10_000, 40)])
def test_a_bots_matches_are_the_same_whichever_way_they_are_found(db_url: str, templates: dict[int, list[Any]],
                                                                  few_seats: int, walk: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot with many seats is found by walking the matches, one with few from its seats
    (match_lists.FEW_SEATS); within a tournament the walk looks at match_lists.WALK_PER_ROW matches
    a row at most, then the page is found from the seats after all (walk 1: most pages are):
    the pages are the same, with and without a tournament, for a bot, one version, and a new
    version with no match at all; and a tournament's own pages are its matches newest first."""
    monkeypatch.setattr(match_lists, "FEW_SEATS", few_seats)
    monkeypatch.setattr(match_lists, "WALK_PER_ROW", walk)
    with Store.open(db_url) as store:
        tournaments = fill(store, 30, templates=templates, bots=8, tournaments=2)
        for tid in tournaments:
            expected = [m.id for m in store.list_matches(tournament_id=tid)]
            got, cursor = [], None
            while True:
                page = match_lists.match_page(store, tournament_id=tid, limit=7, cursor=cursor)
                got += [m.id for m in page.items]
                cursor = page.next_cursor
                if cursor is None:
                    break
            assert got == expected and len(expected) >= 10
        bot = store.list_matches()[0].seats[0].bot
        name = bot.split("@")[0]
        store.add_bot(name, "2.0", "me", "python", manifest_path="/x/bot.toml", files_sha256="ab" * 32)
        for who in (bot, name, f"{name}@2"):
            for tid in (None, tournaments[1]):
                expected = [m.id for m in store.list_matches(tournament_id=tid, bot=who)]
                got, cursor = [], None
                while True:
                    page = match_lists.match_page(store, tournament_id=tid, bot=who, limit=4, cursor=cursor)
                    got += [m.id for m in page.items]
                    assert all(any(s.bot.split("@")[0] == name for s in m.seats) for m in page.items)
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                assert got == expected, (who, tid)
                assert (who == f"{name}@2") == (expected == [])


@pytest.mark.parametrize("few_seats", [1, 10_000])
def test_a_bots_faults_are_the_same_whichever_way_they_are_found(db_url: str, templates: dict[int, list[Any]],
                                                                 few_seats: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A version's faulted or forfeited seats, newest first: on PostgreSQL read from the seats
    first when there are fewer than match_lists.FEW_SEATS of them, else by walking the matches;
    the same either way, with and without a tournament, and as the stored matches say."""
    import arena.bench.store as bench

    monkeypatch.setattr(bot_activity, "FEW_SEATS", few_seats)
    monkeypatch.setattr(bench, "FAULT_RATE", 0.3)
    with Store.open(db_url) as store:
        tournaments = fill(store, 40, templates=templates, bots=6, tournaments=2)
        bot = store.list_matches()[0].seats[0].bot
        for tid in (None, *tournaments):
            expected = [(m.id, s.seat) for m in store.list_matches(tournament_id=tid, bot=bot)
                        for s in m.seats if s.bot == bot and (s.faults or s.forfeited)]
            for limit in (3, 500):
                got = bot_activity.incidents(store, bot, tid, limit)
                assert [(i.id, i.seat) for i in got] == expected[:limit], (tid, limit)
            assert len(expected) >= 3 and all(i.faults for i in bot_activity.incidents(store, bot, tid, 500))


def test_a_tournaments_newest_ends_are_its_own(db_url: str, templates: dict[int, list[Any]]) -> None:
    """The progress rate's input: when the tournament's newest matches ended, however the
    tournaments' matches interleave in time."""
    from datetime import timedelta

    with Store.open(db_url) as store:
        tournaments = fill(store, 40, templates=templates, bots=6, tournaments=3)
        for tid in tournaments:
            mine = sorted(store.list_matches(tournament_id=tid), key=lambda m: m.started_at, reverse=True)
            expected = [m.started_at + timedelta(seconds=m.duration_s) for m in mine[:5]]
            assert match_lists.newest_ends(store, tid, 5) == expected and len(mine) > 5


def _wait_for_fits(ratings: Any, count: int) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and ratings.fits_made < count:
        time.sleep(0.05)
    assert ratings.fits_made >= count


def test_a_fit_remakes_only_the_answers_made_from_its_scope(db_url: str, templates: dict[int, list[Any]]) -> None:
    """Each kept answer notes the rating fits it was made from (leaderboard/web/tracked.py):
    a fit of another scope keeps it; a fit of its own scope (here its first, finishing after
    the page was shown as "being fitted") makes it again at the next view."""
    import threading

    from leaderboard.web.fits import build_fit
    from leaderboard.web.tracked import TrackedRatings

    gate = threading.Event()

    def gated(store: Store, *scope: Any) -> Any:
        if scope[1] == 3:  # the three-player scope waits for the test
            assert gate.wait(120)
        return build_fit(store, *scope)

    with Store.open(db_url) as writer:
        tid = fill(writer, 30, templates=templates, bots=8, tournaments=1)[0]
    app = create_app(db_url)
    app.state.web.ratings = ratings = TrackedRatings(build=gated, first_wait_s=300, wait_s=300)
    cache: ResponseCache = app.state.responses
    cache.ttl_s = 600  # the clock plays no part here
    with TestClient(app) as client:
        kept = ["/", "/api/leaderboard", f"/tournaments/{tid}", f"/api/leaderboard?tournament={tid}"]
        for p in kept:  # each waits for its scopes' first fits and is kept as made from them
            client.get(p)
        first = {p: client.get(p).content for p in kept}
        fits = ratings.fits_made
        assert fits >= 2  # the overall scope and the tournament's (its page: every version)
        hits = cache.hits
        assert all(client.get(p).content == first[p] for p in kept) and cache.hits == hits + len(kept)

        # another scope's fit: the answers above are still the kept ones
        assert not client.get("/api/leaderboard?players=2").json()["fit"]["fitting"]
        assert ratings.fits_made == fits + 1
        two = (None, 2, "union_pacific")  # its scope's number, stored with the fit, is the newest one given
        assert ratings.number(two) == ratings.fits_made and ratings.number((None, 3, "union_pacific")) == 0
        hits = cache.hits
        assert all(client.get(p).content == first[p] for p in kept) and cache.hits == hits + len(kept)

        # the page of a scope whose first fit is not done: shown without ratings, then with them
        ratings.first_wait_s = 0.2
        waiting = client.get("/api/leaderboard?players=3").json()
        assert waiting["fit"]["fitting"] and waiting["rows"] == []
        assert client.get("/api/leaderboard?players=3").json() == waiting  # kept while the fit runs
        gate.set()
        _wait_for_fits(ratings, fits + 2)
        fitted = client.get("/api/leaderboard?players=3").json()
        assert not fitted["fit"]["fitting"] and fitted["rows"]
        hits = cache.hits
        assert all(client.get(p).content == first[p] for p in kept) and cache.hits == hits + len(kept)


def test_a_page_that_waited_for_its_scopes_refit_is_made_once(db_url: str, templates: dict[int, list[Any]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that waited for its scope's fit (the first, or the refit after a new match on a small
    store) makes its page from that fit and keeps it as made from it: the next views are given the
    kept page, not a second one made because the fit ended after the page asked for it."""
    from leaderboard.web.context import Web

    built: dict[str, int] = {}  # pages made (by path), answers of the API made ("api")
    page, api = Web.page, Web.api

    def counted_page(self: Web, request: Any, *args: Any, **kwargs: Any) -> Any:
        built[request.url.path] = built.get(request.url.path, 0) + 1
        return page(self, request, *args, **kwargs)

    def counted_api(self: Web, *args: Any, **kwargs: Any) -> Any:
        built["api"] = built.get("api", 0) + 1
        return api(self, *args, **kwargs)

    monkeypatch.setattr(Web, "page", counted_page)
    monkeypatch.setattr(Web, "api", counted_api)
    with Store.open(db_url) as writer:
        tid = fill(writer, 12, templates=templates, bots=6, tournaments=1)[0]
        app = create_app(db_url)
        ratings = app.state.web.ratings
        ratings.wait_s = ratings.first_wait_s = 300  # every view waits for its fit, however loaded the machine
        app.state.responses.ttl_s = 600  # the clock plays no part here
        with TestClient(app) as client:
            paths = ["/", f"/tournaments/{tid}", "/api/leaderboard"]
            for p in paths:  # each waits for its scopes' first fits
                client.get(p)
            assert built == {"/": 1, f"/tournaments/{tid}": 1, "api": 1}
            first = {p: client.get(p).content for p in paths}  # kept: not made again
            assert built == {"/": 1, f"/tournaments/{tid}": 1, "api": 1}

            fill(writer, 1, templates=templates, bots=6, tournaments=1)  # a new match: the views wait for the refit
            stored = sum(tallies.match_counts(writer).values())
            built.clear()
            fresh = client.get("/api/leaderboard").json()["fit"]
            assert fresh["matches"] == stored and fresh["behind"] == 0 and not fresh["refitting"]
            pages = {p: client.get(p).content for p in paths[:2]}
            assert pages["/"] != first["/"]
            for _ in range(2):
                assert {p: client.get(p).content for p in paths[:2]} == pages
                assert client.get("/api/leaderboard").json()["fit"] == fresh
            assert built == {"/": 1, f"/tournaments/{tid}": 1, "api": 1}  # each made once, from the refit


def test_a_page_made_while_its_refit_runs_is_kept_until_the_refit_ends_stored_or_failed(
        db_url: str, templates: dict[int, list[Any]]) -> None:
    """A view not waiting for its scope's refit is given the previous fit (marked as being
    refitted): its page is kept while the refit runs, and made again once the refit ends, whether
    the new fit was stored (the page shows it) or the refit failed (the page no longer says it is
    being fitted); the scope's fit number moves in both cases, and only then."""
    import threading

    from leaderboard.web.fits import build_fit
    from leaderboard.web.tracked import TrackedRatings

    gate, outcome, calls = threading.Event(), ["fit"], []

    def gated(store: Store, *scope: Any) -> Any:  # the refits wait for the test, then fail or fit
        calls.append(scope)
        if len(calls) > 1:
            assert gate.wait(120)
            gate.clear()
            if outcome[0] == "fail":
                raise RuntimeError("a broken fit")
        return build_fit(store, *scope)

    with Store.open(db_url) as writer:
        fill(writer, 12, templates=templates, bots=6, tournaments=1)
        app = create_app(db_url)
        app.state.web.ratings = ratings = TrackedRatings(build=gated, first_wait_s=300, wait_s=0)
        cache: ResponseCache = app.state.responses
        cache.ttl_s = 600  # the clock plays no part here
        scope = (None, None, "union_pacific")
        with TestClient(app) as client:
            fitted = client.get("/api/leaderboard").json()
            assert not fitted["fit"]["fitting"] and ratings.number(scope) == 1

            def refit_ends(how: str) -> tuple[dict[str, Any], dict[str, Any]]:
                """A new match; the views while its refit runs, then the first view after it ended."""
                outcome[0] = how
                fill(writer, 1, templates=templates, bots=6, tournaments=1)
                number = ratings.number(scope)
                during = client.get("/api/leaderboard").json()  # the previous fit, at once
                assert during["fit"]["refitting"] and during["fit"]["behind"] > 0
                hits = cache.hits
                assert client.get("/api/leaderboard").json() == during and cache.hits == hits + 1  # kept
                assert ratings.number(scope) == number
                gate.set()
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline and ratings.number(scope) == number:
                    time.sleep(0.02)
                assert ratings.number(scope) == number + 1
                after = client.get("/api/leaderboard").json()
                assert cache.hits == hits + 1  # made again
                return during, after

            during, after = refit_ends("fail")
            assert after["rows"] == during["rows"] == fitted["rows"]
            assert after["fit"]["behind"] == during["fit"]["behind"]
            assert not after["fit"]["refitting"]  # the failed refit: the previous fit, no longer "being fitted"
            hits = cache.hits
            assert client.get("/api/leaderboard").json() == after and cache.hits == hits + 1  # kept again

            during, after = refit_ends("fit")
            assert during["rows"] == fitted["rows"] and after["rows"] != fitted["rows"]
            assert after["fit"]["behind"] == 0 and not after["fit"]["refitting"]
            assert after["fit"]["matches"] == sum(tallies.match_counts(writer).values())
            hits = cache.hits
            assert client.get("/api/leaderboard").json() == after and cache.hits == hits + 1
            assert len(calls) == 3  # the first fit, the failed refit, the refit of the second match


def test_an_untracked_ratings_cache_keys_answers_by_every_fit(tmp_path: Path,
                                                              templates: dict[int, list[Any]]) -> None:
    """A plain RatingsCache (no scopes noted): any fit made remakes every kept answer."""
    from leaderboard.web.fits import RatingsCache

    url = f"sqlite:///{tmp_path / 'arena.sqlite'}"
    with Store.open(url) as writer:
        fill(writer, 12, templates=templates, bots=6, tournaments=1)
    app = create_app(url)
    app.state.web.ratings = ratings = RatingsCache(first_wait_s=300, wait_s=300)
    cache: ResponseCache = app.state.responses
    cache.ttl_s = 600
    with TestClient(app) as client:
        client.get("/api/leaderboard")
        client.get("/api/leaderboard")  # the first was made before its fit counted: made again
        hits = cache.hits
        client.get("/api/leaderboard")
        assert cache.hits == hits + 1
        client.get("/api/leaderboard?players=2")
        assert ratings.fits_made == 2
        hits = cache.hits
        client.get("/api/leaderboard")
        assert cache.hits == hits  # made again


def test_a_tournaments_progress_is_shared_briefly_and_shows_a_new_match_at_once(
        db_url: str, templates: dict[int, list[Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """/api/tournaments/{id}/progress is kept at most app.PROGRESS_TTL_S seconds (the clock and
    the workers' claims are not in the data version), and a match stored shows at once."""
    import leaderboard.web.app as web_app

    with Store.open(db_url) as writer:
        tid = fill(writer, 12, templates=templates, bots=6, tournaments=1)[0]
        app = create_app(db_url)
        cache: ResponseCache = app.state.responses
        cache.ttl_s = 600
        path = f"/api/tournaments/{tid}/progress"
        with TestClient(app) as client:
            monkeypatch.setattr(web_app, "PROGRESS_TTL_S", 600)
            first = client.get(path)
            hits = cache.hits
            assert client.get(path).content == first.content and cache.hits == hits + 1
            done = first.json()["done"]
            assert done == tallies.match_count(writer, tid)
            from arena.bench.store import Filler

            deal = Filler(templates, [b.participant for b in writer.list_bots()], seed=5).deal("late", 1.8e9)
            writer.record_matches([(tid, 1000 + k, 99, r) for k, r in enumerate(deal)])
            assert client.get(path).json()["done"] == done + len(deal)
            monkeypatch.setattr(web_app, "PROGRESS_TTL_S", 0)  # not kept at all
            hits = cache.hits
            client.get(path)
            client.get(path)
            assert cache.hits == hits


def test_an_answer_near_its_ttl_is_made_again_by_one_view_while_the_others_get_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past cache.REFRESH_SHARE of its ttl a kept answer is due: the first view makes it again,
    the views meanwhile get the kept one at once (it is still within its ttl) instead of
    waiting; past the ttl itself every view waits for the new one."""
    import threading

    from starlette.applications import Starlette
    from starlette.routing import Route

    import leaderboard.web.cache as cache_module

    monkeypatch.setattr(cache_module, "REFRESH_SHARE", 0.0)  # every kept answer is due at once
    started, gate = threading.Event(), threading.Event()
    made: list[int] = []

    @cached(lambda request: "v1")
    def page(request: Any) -> Response:
        made.append(1)
        if len(made) == 2:  # the remake: held until the test has viewed the page meanwhile
            started.set()
            assert gate.wait(60)
        return Response(f"page{len(made)}".encode())

    app = Starlette(routes=[Route("/", page)])
    app.state.responses = cache = ResponseCache(ttl_s=600)
    with TestClient(app) as client:
        assert client.get("/").content == b"page1"
        remade: list[bytes] = []
        remaking = threading.Thread(target=lambda: remade.append(client.get("/").content))
        remaking.start()
        assert started.wait(60)
        assert client.get("/").content == b"page1" and len(made) == 2  # not waiting for the remake
        gate.set()
        remaking.join()
        assert remade == [b"page2"]
        monkeypatch.setattr(cache_module, "REFRESH_SHARE", 1.0)
        assert client.get("/").content == b"page2"  # the remake was kept
        cache.ttl_s = 0  # past the ttl: made afresh, every time
        assert [client.get("/").content for _ in range(2)] == [b"page3", b"page4"]
