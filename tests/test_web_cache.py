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
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.responses import Response
from starlette.testclient import TestClient

from arena.bench.store import fill, play_templates
from arena.cli.main import main
from leaderboard import queries
from leaderboard.queries import DEFAULT_LIMIT, MAX_LIMIT
from leaderboard.rows import TournamentStatus
from leaderboard.store import Store
from leaderboard.web import create_app
from leaderboard.web.cache import ResponseCache


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
    cache = ResponseCache(max_bytes=8_000, ttl_s=60)
    for k in range(20):
        cache.put(("", f"/p{k}", ""), "v", 0.0 + 1e12, Response(b"x" * 900))
        assert cache.bytes <= 8_000
    assert len(cache) == 8 and cache.get(("", "/p0", ""), "v") is None  # the oldest were dropped
    assert cache.get(("", "/p19", ""), "v") is not None
    assert cache.get(("", "/p19", ""), "other version") is None
    cache.put(("", "/big", ""), "v", 1e12, Response(b"x" * 1_001))  # over an eighth of the whole: not kept
    cache.put(("", "/missing", ""), "v", 1e12, Response(b"no", status_code=404))
    assert cache.get(("", "/big", ""), "v") is None and cache.get(("", "/missing", ""), "v") is None
    stale = ResponseCache(ttl_s=0)  # nothing outlives its ttl
    stale.put(("", "/", ""), "v", 0.0, Response(b"x"))
    assert stale.get(("", "/", ""), "v") is None


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
        seen = [queries.data_version(store)]
        tid = fill(store, 2, templates=templates, bots=8, tournaments=1)[0]
        seen.append(queries.data_version(store))
        store.add_bot("other", "1.0", "me", "python", manifest_path="/x/bot.toml", files_sha256="ab" * 32)
        seen.append(queries.data_version(store))
        store.remove_bot("other")
        seen.append(queries.data_version(store))
        store.set_tournament_status(tid, TournamentStatus.RUNNING)
        seen.append(queries.data_version(store))
        assert len(set(seen)) == len(seen)
        assert queries.data_version(store) == seen[-1]  # nothing changed: the same


@pytest.mark.parametrize("few_seats", [1, 10_000])
def test_a_bots_matches_are_the_same_whichever_way_they_are_found(db_url: str, templates: dict[int, list[Any]],
                                                                  few_seats: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot with many seats is found by walking the matches, one with few from its seats
    (queries.FEW_SEATS): the pages are the same, with and without a tournament, for a bot,
    one version, and a new version with no match at all."""
    monkeypatch.setattr(queries, "FEW_SEATS", few_seats)
    with Store.open(db_url) as store:
        tournaments = fill(store, 30, templates=templates, bots=8, tournaments=2)
        bot = store.list_matches()[0].seats[0].bot
        name = bot.split("@")[0]
        store.add_bot(name, "2.0", "me", "python", manifest_path="/x/bot.toml", files_sha256="ab" * 32)
        for who in (bot, name, f"{name}@2"):
            for tid in (None, tournaments[1]):
                expected = [m.id for m in store.list_matches(tournament_id=tid, bot=who)]
                got, cursor = [], None
                while True:
                    page = queries.match_page(store, tournament_id=tid, bot=who, limit=4, cursor=cursor)
                    got += [m.id for m in page.items]
                    assert all(any(s.bot.split("@")[0] == name for s in m.seats) for m in page.items)
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                assert got == expected, (who, tid)
                assert (who == f"{name}@2") == (expected == [])
