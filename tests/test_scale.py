"""Issue 11, scale: every list is paged (bounded default, a most, links to the next page),
the rating fits are cached by a cheap key that a new match changes, replays are stored
compressed (and converted from an older database), and ``arena bench store`` runs.

The matches are made by the benchmark's own filler: real games played in-process
(random and greedy policies), stored through ``Store.record_match``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import time
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from sqlalchemy import MetaData, Table, text
from starlette.testclient import TestClient

from arena.bench.store import fill, play_templates
from arena.cli.main import main
from leaderboard import match_lists, paging, tallies
from leaderboard.database import create_db_engine, resolve_db_url
from leaderboard.errors import CorruptDataError
from leaderboard.paging import DEFAULT_LIMIT, MAX_LIMIT, BadCursor
from leaderboard.store import Store
from leaderboard.web import create_app
from leaderboard.web.fits import CHART_POINTS, RatingsCache, build_fit, spread
from tests.test_migrations import load_fixture, write_pre_migrations_db


@pytest.fixture(scope="module")
def templates() -> dict[int, list[Any]]:
    return play_templates(games_per_size=1)


def filled(url: str, templates: dict[int, list[Any]], matches: int, **options: Any) -> list[int]:
    with Store.open(url) as store:
        return fill(store, matches, templates=templates, bots=8, **options)


def every_page(client: TestClient, path: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Follow the Link headers from ``path``; the items and each page's length."""
    items: list[dict[str, Any]] = []
    sizes = []
    while path:
        response = client.get(path)
        assert response.status_code == 200, response.text
        page = response.json()
        items += page
        sizes.append(len(page))
        link = response.headers.get("link")
        if link is None:
            assert "x-next-cursor" not in response.headers
            break
        found = re.fullmatch(r'<([^>]+)>; rel="next"', link)
        assert found is not None, link
        path = found.group(1)
        assert parse_qs(urlsplit(path).query)["cursor"] == [response.headers["x-next-cursor"]]
    return items, sizes


def test_pages_of_matches_cover_every_match_once_newest_first(db_url: str, templates: dict[int, list[Any]]) -> None:
    tournaments = filled(db_url, templates, 60, tournaments=2)
    with Store.open(db_url) as store:
        everything = store.list_matches()
        assert len(everything) >= 60
        bot = everything[0].seats[0].bot
        for scope in ({}, {"tournament_id": tournaments[1]}, {"bot": bot}, {"bot": bot.split("@")[0]},
                      {"bot": bot, "tournament_id": tournaments[0]}):
            expected = [m.id for m in store.list_matches(**scope)]
            got, cursor = [], None
            while True:
                page = match_lists.match_page(store, limit=7, cursor=cursor, **scope)
                assert len(page.items) <= 7
                got += [m.id for m in page.items]
                cursor = page.next_cursor
                if cursor is None:
                    break
                assert len(page.items) == 7
            assert got == expected, scope
            assert all(m.replay is None for m in page.items)
        with pytest.raises(BadCursor):
            match_lists.match_page(store, cursor="not-a-cursor")
        tournament_cursor = paging.tournament_page(store, limit=1).next_cursor
        assert tournament_cursor is not None
        with pytest.raises(BadCursor, match="not a cursor of this list"):
            match_lists.match_page(store, cursor=tournament_cursor)
        with pytest.raises(ValueError, match="limit must be between 1 and 500"):
            match_lists.match_page(store, limit=MAX_LIMIT + 1)


def test_every_list_endpoint_is_paged_with_a_bounded_default_and_links(tmp_path: Path,
                                                                      templates: dict[int, list[Any]]) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    tournaments = filled(url, templates, DEFAULT_LIMIT + 12, tournaments=3)
    with Store.open(url) as store:
        total = len(store.list_matches())
        ids = [m.id for m in store.list_matches()]
        bot = store.list_matches(tournament_id=tournaments[0])[0].seats[0].bot
        mine = [m.id for m in store.list_matches(bot=bot)]
    with TestClient(create_app(url)) as client:
        first = client.get("/api/matches")
        assert len(first.json()) == DEFAULT_LIMIT and "link" in first.headers  # bounded without asking
        got, sizes = every_page(client, "/api/matches?limit=9")
        assert [m["id"] for m in got] == ids and max(sizes) == 9 and sum(sizes) == total
        got, _ = every_page(client, f"/api/matches?bot={quote(bot)}&limit=4")
        assert [m["id"] for m in got] == mine
        assert [t["id"] for t in every_page(client, "/api/tournaments?limit=1")[0]] == tournaments
        bots, sizes = every_page(client, "/api/bots?limit=3")
        assert len(bots) == 8 and sizes == [3, 3, 2]
        assert client.get(f"/api/matches?limit={MAX_LIMIT}").status_code == 200
        assert client.get(f"/api/matches?limit={MAX_LIMIT + 1}").status_code == 400
        bad = client.get("/api/matches?cursor=%00%01")
        assert bad.status_code == 400 and "cursor" in bad.json()["error"]

        # a tournament's matches, in its JSON and on its page: a page, and the way to the rest
        tid = tournaments[0]
        data = client.get(f"/api/tournaments/{tid}?limit=5").json()
        assert len(data["matches"]) == 5 and data["matches_next"].startswith(f"/api/tournaments/{tid}?")
        rest = client.get(data["matches_next"]).json()
        assert not {m["id"] for m in rest["matches"]} & {m["id"] for m in data["matches"]}

        # the bot page: recent matches and a link to the older ones, paged as HTML
        api_bot = client.get(f"/api/bots/{quote(bot, safe='')}").json()
        assert len(api_bot["recent_matches"]) == 20 and api_bot["matches"] == len(mine)
        assert [m["id"] for m in api_bot["recent_matches"]] == mine[:20]
        assert [m["id"] for m in client.get(api_bot["recent_next"]).json()] == mine[20:20 + DEFAULT_LIMIT]
        page = client.get(f"/bots/{quote(bot, safe='')}").text
        more = re.search(r'data-testid="more-matches" href="([^"]+)"', page)
        assert more is not None
        older = client.get(more.group(1).replace("&amp;", "&"))
        assert older.status_code == 200
        shown = re.findall(r'class="match-link" href="/matches/([^"]+)"', older.text)
        assert shown and shown[0] == quote(mine[20], safe="")

        # the HTML list of matches: a page, and a next-page link that continues it
        listed = client.get("/matches?limit=10")
        first_ids = re.findall(r'class="match-link" href="/matches/([^"]+)"', listed.text)
        assert first_ids == [quote(i, safe="") for i in ids[:10]]
        nxt = re.search(r'rel="next" data-testid="next-page" href="([^"]+)"', listed.text)
        assert nxt is not None
        second = client.get(nxt.group(1).replace("&amp;", "&")).text
        assert re.findall(r'class="match-link" href="/matches/([^"]+)"', second) == [
            quote(i, safe="") for i in ids[10:20]]


def test_the_fit_is_cached_until_a_match_or_a_version_is_stored(db_url: str, templates: dict[int, list[Any]]) -> None:
    tournaments = filled(db_url, templates, 12, tournaments=1)
    with Store.open(db_url) as store:
        cache = RatingsCache()
        first = cache.get(store, None)
        scoped = cache.get(store, tournaments[0], 2)
        assert cache.get(store, None) is first and cache.get(store, tournaments[0], 2) is scoped
        assert cache.fits_made == 2
        before = sum(s.matches for s in first.standings if not s.reference)
        key = tallies.results_key(store)

        counted = tallies.match_counts(store)
        fill(store, 1, templates=templates, bots=8, tournaments=1)  # one more deal, another tournament
        assert tallies.results_key(store) != key
        after = tallies.match_counts(store)  # kept by the database's triggers
        assert {t: n for t, n in after.items() if t in counted} == counted
        assert sum(after.values()) == len(store.list_matches()) > sum(counted.values())
        again = cache.get(store, None)
        assert again is not first and cache.fits_made == 3
        added = len(store.list_matches()) - len(store.list_matches(tournament_id=tournaments[0]))
        assert sum(s.matches for s in again.standings if not s.reference) > before and added >= 2
        assert cache.get(store, tournaments[0], 2) is scoped  # the other tournament's results did not change
        assert cache.fits_made == 3

        bot = store.list_bots()[0]
        store.add_bot(bot.name, "2.0", "me", "python", manifest_path="/x/bot.toml", files_sha256="ab" * 32)
        assert cache.get(store, None) is not again  # a new version changes which row is current
        assert cache.fits_made == 4


def test_the_chart_history_is_bounded_and_keeps_the_ends() -> None:
    assert spread(5) == [0, 1, 2, 3, 4]
    many = spread(100_000)
    assert len(many) <= CHART_POINTS and many[0] == 0 and many[-1] == 99_999
    assert many == sorted(set(many))


def test_an_old_database_gets_its_replays_compressed_text_unchanged(db_url: str,
                                                                   templates: dict[int, list[Any]]) -> None:
    data = load_fixture()
    write_pre_migrations_db(db_url, data)
    real = templates[4][0].text  # a real 4-player replay
    corrupt = "{not json"
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.begin() as connection:  # two more rows as the old code would have stored them
            matches = Table("matches", MetaData(), autoload_with=connection)
            model = dict(connection.execute(matches.select().limit(1)).mappings().one())
            for n, (match_id, replay) in enumerate((("old-real", real), ("old-corrupt", corrupt))):
                connection.execute(matches.insert(), [{**model, "id": match_id, "schedule_index": 1000 + n,
                                                       "replay_json": replay}])
    finally:
        engine.dispose()
    with Store.open(db_url) as store:
        counts: dict[int, int] = {}
        for m in store.list_matches():
            counts[m.tournament_id] = counts.get(m.tournament_id, 0) + 1
        assert tallies.match_counts(store) == counts and sum(counts.values()) == len(data["tables"]["matches"]["rows"]) + 2
        assert store.get_match("old-real").replay == json.loads(real)
        with pytest.raises(CorruptDataError, match="is not valid JSON"):
            store.get_match("old-corrupt")
        for m in data["tables"]["matches"]["rows"]:
            row = dict(zip(data["tables"]["matches"]["columns"], m))
            assert store.get_match(row["id"]).replay == json.loads(row["replay_json"])
    engine = create_db_engine(resolve_db_url(db_url))
    try:
        with engine.connect() as connection:
            stored = dict(connection.execute(text("SELECT id, replay_z FROM matches")).all())
            columns = [c.name for c in Table("matches", MetaData(), autoload_with=connection).columns]
    finally:
        engine.dispose()
    assert "replay_json" not in columns
    assert zlib.decompress(bytes(stored["old-corrupt"])).decode() == corrupt  # kept as it was, compressed
    assert zlib.decompress(bytes(stored["old-real"])).decode() == real
    assert len(bytes(stored["old-real"])) <= 10 * 1024 < len(real)


def test_bench_store_runs_at_a_tiny_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{(tmp_path / 'bench.sqlite').as_posix()}"
    code = main(["bench", "store", "--matches", "8", "--db", url, "--bots", "6", "--repeat", "1",
                 "--clients", "2", "--requests", "2", "--tournaments", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    stored = re.search(r"the store holds (\d+) matches in [\d.]+ MB: ([\d.]+) KB per match", out)
    assert stored is not None, out
    assert int(stored.group(1)) >= 8 and 0 < float(stored.group(2)) < 100
    rows = re.findall(r"│ (/\S*)\s+│\s+(\d+) │", out)
    assert len(rows) >= 15 and all(status == "200" for _, status in rows), rows
    assert re.search(r"rating fit of all \d+ matches .*: [\d.]+ s", out), out
    assert re.search(r"'/' answers in [\d,]+ ms, .* the refit took [\d.]+ s", out), out
    assert re.search(r"2 parallel clients, 4 requests over the pages above \(0 not 200\)", out), out
    assert re.search(r"2 parallel clients, every answer made afresh \(no-cache\), 4 requests over the pages above "
                     r"\(0 not 200\)", out), out
    assert "afresh median" in out
    with Store.open(url) as store:
        assert len(store.list_matches()) == int(stored.group(1)) + len(store.list_matches(
            tournament_id=store.list_tournaments()[-1].id))

    # --matches 0: the store timed as it is (but for the one deal that times the refit)
    code = main(["bench", "store", "--matches", "0", "--db", url, "--bots", "6", "--repeat", "1",
                 "--clients", "0", "--tournaments", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "stored no matches; the store holds" in out, out
    assert main(["bench", "store", "--matches", "0"]) != 0  # only with --db


def test_a_view_gets_the_previous_fit_while_the_refit_runs(tmp_path: Path, templates: dict[int, list[Any]]) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    filled(url, templates, 6, tournaments=1)
    gate = threading.Event()
    calls: list[tuple[Any, ...]] = []

    def slow(store: Store, *scope: Any) -> Any:  # the refits after the first wait for the gate
        calls.append(scope)
        if len(calls) > 1:
            assert gate.wait(120)
        return build_fit(store, *scope)

    app = create_app(url)
    app.state.web.ratings = cache = RatingsCache(build=slow, wait_s=0.2)
    with TestClient(app) as client:
        store = app.state.web.store
        stored = sum(tallies.match_counts(store).values())
        first = client.get("/api/leaderboard").json()["fit"]
        assert first["matches"] == stored and first["behind"] == 0 and not first["refitting"]
        rows = client.get("/api/leaderboard").json()["rows"]

        fill(store, 1, templates=templates, bots=8, tournaments=1)  # one more deal: the refit waits for the gate
        added = sum(tallies.match_counts(store).values()) - stored
        for _ in range(2):
            board = client.get("/api/leaderboard").json()  # the previous fit, at once
            assert board["rows"] == rows and board["fit"]["matches"] == stored
            assert board["fit"]["behind"] == added and board["fit"]["refitting"]
        page = client.get("/").text
        assert f"{added} newer matches are not counted yet (being fitted now; this page shows the previous fit)" in page
        assert len(calls) == 2  # one refit for all those views

        gate.set()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:  # until the refit is in
            fresh = client.get("/api/leaderboard").json()
            if fresh["fit"]["behind"] == 0:
                break
            time.sleep(0.05)
        assert fresh["fit"]["matches"] == stored + added and not fresh["fit"]["refitting"]
        assert sum(r["matches"] for r in fresh["rows"] if not r["reference"]) > \
            sum(r["matches"] for r in rows if not r["reference"])
        assert "newer match" not in client.get("/").text and len(calls) == 2 and cache.fits_made == 2


def test_a_failed_refit_raises_in_the_view_and_is_tried_again(tmp_path: Path, templates: dict[int, list[Any]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import leaderboard.web.fits as fits

    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    filled(url, templates, 4, tournaments=1)
    fail, tried = [True], []

    def flaky(store: Store, *scope: Any) -> Any:
        tried.append(scope)
        if fail[0]:
            raise RuntimeError("the fit failed")
        return build_fit(store, *scope)

    with Store.open(url) as store:
        cache = RatingsCache(build=flaky)
        with pytest.raises(RuntimeError, match="the fit failed"):
            cache.get(store, None)
        fail[0] = False
        with pytest.raises(RuntimeError, match="the fit failed"):  # the same results, a moment later: not again
            cache.get(store, None)
        assert len(tried) == 1
        monkeypatch.setattr(fits, "RETRY_S", 0.0)  # RETRY_S later: tried again
        assert cache.get(store, None).results == sum(tallies.match_counts(store).values())
        assert len(tried) == 2


def test_publish_deals_reads_only_the_deal_of_each_match(tmp_path: Path, templates: dict[int, list[Any]],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.bench.store import Filler, ensure_bots
    from leaderboard.web.publication import Visibility

    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    with Store.open(url) as store:
        tid = store.create_tournament("union_pacific", {"publish_deals": True}, 1)
        filler = Filler(templates, ensure_bots(store, 8), seed=3)
        def rotated(deal: list[Any]) -> list[Any]:  # every seat rotation of the deal's bots, one a match
            names = [seat.bot for seat in deal[0].seats]
            return [dataclasses.replace(r, seats=tuple(dataclasses.replace(seat, bot=names[(seat.seat + k) % len(names)])
                                                       for seat in r.seats)) for k, r in enumerate(deal)]

        deals = [rotated(filler.deal(f"d{k}", 1_700_000_000.0 + 1000 * k)) for k in range(12)]
        deals = [d for d in deals if len(d) > 2][:2] + [d for d in deals if len(d) == 2][:1]
        complete, partial = deals[0], deals[1][:-1]
        again = [dataclasses.replace(r, match_id=f"{r.match_id}-r1") for r in deals[0]]  # same deal, next round
        items = [(r, 0) for r in complete + partial] + [(r, 1) for r in again[:1]]
        store.record_matches((tid, i, rnd, r) for i, (r, rnd) in enumerate(items))

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("read every match of the tournament")

        monkeypatch.setattr(store, "list_matches", refuse)
        visibility = Visibility(store)
        shown = {m.id: visibility.published(m) for m in match_lists.match_page(store, tournament_id=tid).items}
        assert shown == {**{r.match_id: True for r in complete}, **{r.match_id: False for r in partial},
                         again[0].match_id: False}
        store.set_tournament_status(tid, "finished")
        assert all(Visibility(store).published(m) for m in match_lists.match_page(store, tournament_id=tid).items)


def test_a_refit_that_fails_keeps_the_previous_fit_and_is_not_retried_for_the_same_results(
        db_url: str, templates: dict[int, list[Any]], caplog: pytest.LogCaptureFixture) -> None:
    filled(db_url, templates, 4, tournaments=1)
    calls: list[Any] = []

    def breaks_after_the_first(store: Store, *scope: Any) -> Any:
        calls.append(scope)
        if len(calls) > 1:
            raise CorruptDataError("a broken row")
        return build_fit(store, *scope)

    with Store.open(db_url) as store:
        cache = RatingsCache(build=breaks_after_the_first, wait_s=30)
        first = cache.get(store, None)
        fill(store, 1, templates=templates, bots=8, tournaments=1)
        for _ in range(3):  # the previous fit, marked as behind; one failed refit for all these views
            stale = cache.get(store, None)
            assert stale.standings == first.standings and stale.behind > 0 and not stale.refitting
        assert len(calls) == 2
    assert "the rating fit of" in caplog.text and "a broken row" in caplog.text
