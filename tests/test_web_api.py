"""The web app (``arena serve``): JSON endpoints against the store, pages, 404s, escaping.

The data are real games played in-process (random policies), wrapped in
MatchRecords the way the host fills them, and stored with ``Store.record_match``.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser
import os
import re
import socket
import subprocess
import sys
import time
import itertools
import zlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from markupsafe import escape
from sqlalchemy import text

from arena.games import get_game
from arena.host.match import places_with_forfeits
from arena.policies import RandomPolicy, play_in_process
from arena.records import Fault, FaultReason, MatchRecord, MatchTermination, ReferenceResult, SeatResult
from arena.replay import action_event_spans, build_replay
from leaderboard.database import create_db_engine, resolve_db_url
from leaderboard.ratings import live_elo_history
from leaderboard.rows import TournamentStatus

IMAGINARY_PARTICIPANT = "(imaginary)"
from leaderboard.standings import compute_leaderboard, compute_standings
from leaderboard.store import Store
from leaderboard.web import create_app
from leaderboard.web.progress import duration_text, progress_json

from starlette.testclient import TestClient

HOSTILE = "<script>alert(1)</script>"
HOSTILE_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
HOSTILE_V1 = f"{HOSTILE}@1"  # its version 1, the participant that plays
ODD = "slash/bot?x=1&y #frag"  # a free-text name that needs percent-encoding in links
ODD_V1 = f"{ODD}@1"
DEBUG_TEXT = "<img src=x onerror=alert(2)>"
SHA = "cd" * 32
T0 = 1_760_000_000.0


def esc(value: str) -> str:
    """``value`` as Jinja2's autoescape writes it."""
    return str(escape(value))


# -- building real records ------------------------------------------------------------


def play_record(
    match_id: str,
    bots: Sequence[str],
    seed: int,
    *,
    started_at: float,
    forfeited: Sequence[int] = (),
    faults: Sequence[Fault] = (),
    debug: Sequence[dict[str, Any]] = (),
) -> MatchRecord:
    """An in-process random game wrapped as the host wraps a match (see arena/host/match.py);
    each seat is version 1 of its bot (``NAME@1``), as a tournament names them."""
    bots = [f"{name}@1" for name in bots]
    game = get_game("union_pacific")
    state = game.new_state(len(bots), seed, "standard")
    play_in_process(state, [RandomPolicy(seed * 31 + seat) for seat in range(len(bots))])
    outcome = state.outcome()
    gone = {str(seat) for seat in forfeited}
    places = places_with_forfeits(outcome.cash, gone)
    termination = MatchTermination.FORFEIT if gone else MatchTermination(outcome.termination.value)
    seat_faults = defaultdict(list)
    for f in faults:
        seat_faults[f.seat].append(f)
    seats = tuple(
        SeatResult(seat=s, bot=name, score=outcome.cash[str(s)], place=places[str(s)],
                   forfeited=s in forfeited, faults=tuple(seat_faults[s]))
        for s, name in enumerate(bots)
    )
    references = tuple(ReferenceResult(name, outcome.cash[name], places[name])
                       for name in game.spec.reference(len(bots)))
    match = {
        "match_id": match_id,
        "termination": termination.value,
        "cash": dict(outcome.cash),
        "places": places,
        "forfeited_seats": sorted(forfeited),
        "faults": [f.to_json() for f in faults],
        "forfeits": [{"seat": s, "decision": 13, "reason": "3 faults (the limit is 3)"} for s in forfeited],
        "restarts": [],
        "seats": [{"seat": s, "bot": name, "kind": "bot", "version": "1.0.0"} for s, name in enumerate(bots)],
        "debug": list(debug),
        "notes": [],
        "started_at": started_at,
        "duration_s": 0.5,
    }
    replay = build_replay(game, state, seed=seed, variant="standard", seats=list(bots), match=match)
    return MatchRecord(match_id=match_id, game=game.name, seed=seed, variant="standard", players=len(bots),
                       seats=seats, termination=termination, replay=replay, started_at=started_at,
                       duration_s=0.5, references=references, extra={"decisions": len(state.history)})


@dataclass
class Data:
    url: str
    tournaments: list[int]
    records: dict[str, MatchRecord]  # match id -> record
    by_tournament: dict[int, list[str]]


def add_bot(store: Store, name: str, *, version: str = "1.0.0", author: str = "tests") -> None:
    store.add_bot(name, version, author, "python", manifest_path=f"/bots/{len(name)}/bot.toml", files_sha256=SHA)


def fill_store(url: str) -> Data:
    """Two finished tournaments: 2- and 3-player tables, a fault, a forfeit, hostile names and debug text."""
    data = Data(url=url, tournaments=[], records={}, by_tournament={})
    with Store.open(url) as store:
        add_bot(store, "alpha")
        add_bot(store, "beta", author="<b>author</b>")
        add_bot(store, HOSTILE, version="<i>9</i>", author=HOSTILE)
        add_bot(store, ODD)
        tables = [
            ("alpha", "beta"), ("beta", "alpha"), ("alpha", HOSTILE), (HOSTILE, "beta"),
            ("alpha", "beta", HOSTILE), (HOSTILE, "alpha", "beta"), ("beta", HOSTILE, ODD),
        ]
        for t in range(2):
            tid = store.create_tournament("union_pacific", {"bots": ["alpha", "beta", HOSTILE, ODD],
                                                            "table_sizes": [2, 3], "rounds": 1}, 100 + t)
            data.tournaments.append(tid)
            data.by_tournament[tid] = []
            for index, bots in enumerate([b for b in tables if "alpha" not in b] if t else tables):
                match_id = f"t{tid}-m{index:03d}"
                seed = 1000 * tid + index
                kwargs: dict[str, Any] = {}
                if t == 0 and index == 4:  # HOSTILE faults twice and forfeits; its debug text is hostile
                    seat = bots.index(HOSTILE)  # seat 2: it decides at decisions 2, 7, 12 and 13 of this game
                    kwargs = {
                        "forfeited": [seat],
                        "faults": [Fault(seat, 7, FaultReason.TIMEOUT, f"no reply {DEBUG_TEXT}"),
                                   Fault(seat, 12, FaultReason.ILLEGAL_ACTION, "index 99 of 12")],
                        "debug": [{"decision": 2, "seat": seat, "text": DEBUG_TEXT}],
                    }
                record = play_record(match_id, bots, seed, started_at=T0 + 60 * (10 * tid + index), **kwargs)
                store.record_match(tid, index, 1, record)
                data.records[match_id] = record
                data.by_tournament[tid].append(match_id)
            # finished: everything is public (tests/test_secrets.py covers running tournaments)
            store.set_tournament_status(tid, TournamentStatus.FINISHED)
    return data


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Data:
    path = tmp_path_factory.mktemp("web") / "arena.sqlite"
    return fill_store(f"sqlite:///{path.as_posix()}")


@pytest.fixture
def client(data: Data) -> Iterator[TestClient]:
    with TestClient(create_app(data.url)) as c:
        yield c


@pytest.fixture
def store(data: Data) -> Iterator[Store]:
    with Store.open(data.url) as s:
        yield s


def page_text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text[:500]
    assert response.headers["content-type"].startswith("text/html")
    return response.text


# -- JSON endpoints against the store ------------------------------------------------------


@pytest.mark.parametrize("scope", [None, 0, 1])
def test_leaderboard_json_is_the_standings(client: TestClient, store: Store, data: Data, scope: int | None) -> None:
    tid = None if scope is None else data.tournaments[scope]
    got = client.get("/api/leaderboard", params={} if tid is None else {"tournament": tid}).json()
    expected = compute_standings(store, tid, save=False)
    assert [r["name"] for r in got["rows"]] == [s.name for s in expected]
    for row, s in zip(got["rows"], expected):
        assert row["rank"] == s.rank and row["reference"] == s.reference
        assert row["elo"] == pytest.approx(s.elo) and row["live_elo"] == pytest.approx(s.live_elo)
        assert (row["matches"], row["wins"], row["forfeits"], row["faults"]) == (s.matches, s.wins, s.forfeits,
                                                                                  s.faults)
        assert row["ci_half_width"] == pytest.approx(s.ci_half_width)
    if tid is None:
        assert got["tournament"] is None
    else:
        assert got["tournament"]["id"] == tid and got["tournament"]["matches_stored"] == len(data.by_tournament[tid])
    references = [r for r in got["rows"] if r["reference"]]
    assert [r["name"] for r in references] == [IMAGINARY_PARTICIPANT] and references[0]["rank"] is None
    hostile = next(r for r in got["rows"] if r["name"] == HOSTILE_V1)
    assert hostile["matches"] == sum(HOSTILE_V1 in r.places for m, r in data.records.items()
                                     if tid is None or m in data.by_tournament[tid])
    assert sum(r["matches"] for r in got["rows"] if not r["reference"]) == sum(
        r.players for m, r in data.records.items() if tid is None or m in data.by_tournament[tid])


def head_to_head_by_hand(data: Data, tid: int | None, players: int | None = None) -> dict[tuple[str, str], list[int]]:
    """(a, b) -> [matches together, a ahead, a behind, shared place], from the records themselves."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for match_id, r in data.records.items():
        if (tid is not None and match_id not in data.by_tournament[tid]) or (players and r.players != players):
            continue
        places = r.rated_places
        for a, b in itertools.permutations(places, 2):
            c = counts[(a, b)]
            c[0] += 1
            c[1 if places[a] < places[b] else 2 if places[a] > places[b] else 3] += 1
    return counts


@pytest.mark.parametrize("scope", [None, 0])
@pytest.mark.parametrize("players", [None, 2, 3])
def test_leaderboard_json_has_superiority_and_cross_table(client: TestClient, store: Store, data: Data,
                                                          scope: int | None, players: int | None) -> None:
    tid = None if scope is None else data.tournaments[scope]
    params = {k: v for k, v in (("tournament", tid), ("players", players)) if v is not None}
    got = client.get("/api/leaderboard", params=params).json()
    board = compute_leaderboard(store, tid, players=players, save=False)
    names = [r["name"] for r in got["rows"]]
    assert names == [s.name for s in board.standings] and names
    assert got["players"] == players and got["table_sizes"] == [2, 3]
    assert got["bootstrap"] == {"resamples": 200, "method": "refit"}
    # a two-player scope has the imaginary shareholder, a three-player one does not
    assert (IMAGINARY_PARTICIPANT in names) == (players != 3)
    scoped = [r for m, r in data.records.items()
              if (tid is None or m in data.by_tournament[tid]) and players in (None, r.players)]
    for row in got["rows"]:
        took_part = [r for r in scoped if row["name"] in r.rated_places]
        assert row["matches"] == len(took_part)
    # each row against the next three, with the probabilities of the fit
    expected = [(names[i], names[j], j - i) for i in range(len(names)) for j in range(i + 1, min(i + 4, len(names)))]
    assert [(e["above"], e["below"], e["distance"]) for e in got["superiority"]] == expected
    assert [e["p"] for e in got["superiority"]] == [s.p for s in board.superiority]
    assert all(0.0 <= e["p"] <= 1.0 for e in got["superiority"])
    # the cross-table, against the records counted by hand
    by_hand = head_to_head_by_hand(data, tid, players)
    cross = got["cross_table"]
    assert cross["names"] == names and cross["truncated"] is False
    met = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if (a, b) in by_hand]
    assert [(p["a"], p["b"]) for p in cross["pairs"]] == met
    for p in cross["pairs"]:
        meetings, ahead, behind, tied = by_hand[(p["a"], p["b"])]
        assert (p["meetings"], p["ahead"], p["behind"], p["tied"]) == (meetings, ahead, behind, tied)
        assert p["score"] == pytest.approx((ahead + tied / 2) / meetings)


def test_leaderboard_of_a_table_size_nobody_played(client: TestClient) -> None:
    got = client.get("/api/leaderboard", params={"players": 5}).json()
    assert got["rows"] == [] and got["superiority"] == [] and got["cross_table"]["pairs"] == []
    assert got["table_sizes"] == [2, 3]
    assert "No matches at 5-player tables here." in page_text(client.get("/?players=5"))


def test_pages_never_write_ratings(client: TestClient, store: Store, data: Data) -> None:
    for path in ["/", f"/tournaments/{data.tournaments[0]}", "/bots/alpha", "/api/leaderboard", "/api/bots/beta"]:
        assert client.get(path).status_code == 200
    assert store.load_ratings(None) is None
    assert store.load_ratings(data.tournaments[0]) is None


def test_tournaments_json(client: TestClient, data: Data) -> None:
    got = client.get("/api/tournaments").json()
    assert [t["id"] for t in got] == data.tournaments
    for t in got:
        assert t["matches_stored"] == len(data.by_tournament[t["id"]])
        assert t["config"]["bots"] == ["alpha", "beta", HOSTILE, ODD] and t["game"] == "union_pacific"
        assert t["matches_total"] == 2 * 6 + 3 * 4  # the schedule: C(4,2) pairs x 2 seatings + C(4,3) x 3
    one = client.get(f"/api/tournaments/{data.tournaments[1]}").json()
    assert sorted(m["id"] for m in one["matches"]) == sorted(data.by_tournament[data.tournaments[1]])


def test_matches_json_filters(client: TestClient, data: Data) -> None:
    every = client.get("/api/matches").json()
    assert sorted(m["id"] for m in every) == sorted(data.records)
    assert [m["started_at"] for m in every] == sorted((m["started_at"] for m in every), reverse=True)
    with_odd = client.get("/api/matches", params={"bot": ODD}).json()
    assert sorted(m["id"] for m in with_odd) == sorted(k for k, r in data.records.items() if ODD_V1 in r.places)
    two = client.get("/api/matches", params={"tournament": data.tournaments[0], "limit": 2}).json()
    assert [m["id"] for m in two] == [m["id"] for m in every if m["tournament_id"] == data.tournaments[0]][:2]
    summary = next(m for m in every if m["id"] == "t1-m004")
    record = data.records["t1-m004"]
    assert summary["termination"] == "forfeit"
    assert [(s["bot"], s["score"], s["place"], s["forfeited"]) for s in summary["seats"]] == [
        (s.bot, s.score, s.place, s.forfeited) for s in record.seats]
    assert summary["score_name"] == "cash" and summary["score_unit"] == "dollars"
    assert client.get("/api/matches", params={"limit": "x"}).status_code == 400


def test_match_json_carries_the_stored_replay(client: TestClient, store: Store, data: Data) -> None:
    for match_id in ("t1-m000", "t2-m001"):
        got = client.get(f"/api/matches/{match_id}").json()
        assert got["replay"] == store.get_match(match_id).replay == data.records[match_id].replay
        assert got["replay_error"] is None
        record = data.records[match_id]
        assert got["references"] == [{"name": r.name, "participant": r.participant, "score": r.score,
                                      "place": r.place} for r in record.references]
    faulty = client.get("/api/matches/t1-m004").json()
    seat = [s["bot"] for s in faulty["seats"]].index(HOSTILE_V1)
    assert [f["reason"] for f in faulty["seats"][seat]["faults"]] == ["timeout", "illegal_action"]


def test_board_json(client: TestClient) -> None:
    board = client.get("/api/board", params={"game": "union_pacific"}).json()
    game = get_game("union_pacific")
    assert board["sha256"] == game.board_info()["sha256"]
    assert len(board["cities"]) == 40 and len(board["sections"]) == 71
    assert sum(s["spaces"] for s in board["sections"]) == 174
    assert [s["index"] for s in board["sections"]] == list(range(71))
    assert all({"lon", "lat", "name"} <= set(c) for c in board["cities"])
    codes = [c["code"] for c in board["companies"]]
    assert codes == ["EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW"]
    colours = {c["code"]: c["colour"] for c in board["companies"]}
    assert colours["DM"] == "#1b1b1b" and colours["EPRG"].startswith("#2e8b")  # rules: DM black, EPRG green
    assert len(set(colours.values())) == 10
    shapes = {c["code"]: c["shape"] for c in board["companies"]}
    assert len(set(shapes.values())) == 10  # a train reads by its shape too, not by colour alone
    assert set(board["track_styles"]) == {"PLAIN", "COAST", "BORDER", "MOUNTAIN"}


def test_bot_json_head_to_head_faults_history(client: TestClient, store: Store, data: Data) -> None:
    got = client.get(f"/api/bots/{quote(HOSTILE, safe='')}").json()
    assert got["bot"]["name"] == HOSTILE and got["bot"]["author"] == HOSTILE and got["bot"]["version"] == "<i>9</i>"
    assert "manifest_path" not in got["bot"]
    mine = {k: r for k, r in data.records.items() if HOSTILE_V1 in r.places}
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in mine.values():
        place = r.places[HOSTILE_V1]
        others = [(s.bot, s.place) for s in r.seats if s.bot != HOSTILE_V1]
        others += [(ref.participant, ref.place) for ref in r.references]
        for other, p in others:
            e = expected[other]
            e[0] += 1
            e[1 if place < p else 2 if place > p else 3] += 1
    assert {h["opponent"]: [h["matches"], h["ahead"], h["behind"], h["tied"]] for h in got["head_to_head"]} == expected
    assert got["head_to_head"][-1]["opponent"] == IMAGINARY_PARTICIPANT and got["head_to_head"][-1]["reference"]
    assert [(f["match_id"], f["reason"], f["decision"]) for f in got["faults"]] == [
        ("t1-m004", "timeout", 7), ("t1-m004", "illegal_action", 12)]
    assert [f["match_id"] for f in got["forfeits"]] == ["t1-m004"]
    assert got["matches"] == len(mine)
    assert [m["id"] for m in got["recent_matches"]] == sorted(mine, key=lambda k: -mine[k].started_at)[:20]
    assert all(m["place"] == mine[m["id"]].places[HOSTILE_V1] for m in got["recent_matches"])
    history = [(key, after[HOSTILE_V1]) for key, after in live_elo_history(store.rated_matches()) if HOSTILE_V1 in after]
    assert [(p["match_id"], p["elo"]) for p in got["history"]] == history
    assert got["standing"]["name"] == HOSTILE_V1 and got["standing"]["live_elo"] == pytest.approx(history[-1][1])
    scoped = client.get(f"/api/bots/{quote(HOSTILE, safe='')}", params={"tournament": data.tournaments[1]}).json()
    assert scoped["matches"] == sum(k in data.by_tournament[data.tournaments[1]] for k in mine)
    assert scoped["faults"] == [] and scoped["tournament"]["id"] == data.tournaments[1]
    assert got["tournaments"] == scoped["tournaments"] == data.tournaments
    assert client.get("/api/bots/alpha").json()["tournaments"] == [data.tournaments[0]]


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/tournaments/999", "no tournament with id 999"),
        ("/bots/nobody", "no bot named 'nobody'"),
        ("/matches/no-such-match", "no match with id 'no-such-match'"),
        ("/no/such/page", "There is no page at /no/such/page."),
        ("/bots/alpha?tournament=999", "no tournament with id 999"),
    ],
)
def test_unknown_things_are_a_404_page(client: TestClient, path: str, message: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert esc(message) in response.text
    assert "<h1>Not found</h1>" in response.text


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/api/tournaments/999", 404, "no tournament with id 999"),
        ("/api/bots/nobody", 404, "no bot named 'nobody'"),
        ("/api/matches/nope", 404, "no match with id 'nope'"),
        ("/api/leaderboard?tournament=999", 404, "no tournament with id 999"),
        ("/api/leaderboard?tournament=one", 400, "tournament (a tournament id) must be a whole number, got 'one'"),
        ("/api/leaderboard?tournament=" + "9" * 30, 400, "tournament (a tournament id) must be a whole number, got '"
         + "9" * 30 + "'"),
        ("/api/leaderboard?tournament=99999999999999999999", 400,
         "tournament (a tournament id) must be between 1 and 9223372036854775807, got 99999999999999999999"),
        ("/api/bots/alpha?tournament=0", 400,
         "tournament (a tournament id) must be between 1 and 9223372036854775807, got 0"),
        ("/api/tournaments/99999999999999999999", 400,
         "the tournament id must be between 1 and 9223372036854775807, got 99999999999999999999"),
        ("/api/matches?limit=-1", 400, "limit (rows per page) must be between 1 and 500, got -1"),
        ("/api/matches?limit=501", 400, "limit (rows per page) must be between 1 and 500, got 501"),
        ("/api/bots?limit=0", 400, "limit (rows per page) must be between 1 and 500, got 0"),
        ("/api/matches?cursor=bm90IG91cnM", 400, "cursor 'bm90IG91cnM' is not a cursor of this list"),
        ("/api/matches?limit=1e3", 400, "limit (rows per page) must be a whole number, got '1e3'"),
        ("/api/matches?limit=18446744073709551616", 400,
         "limit (rows per page) must be between 1 and 500, got 18446744073709551616"),
        ("/api/leaderboard?players=three", 400, "players (a table size) must be a whole number, got 'three'"),
        ("/api/leaderboard?players=0", 400, "players (a table size) must be between 1 and 99, got 0"),
    ],
)
def test_api_errors_are_json(client: TestClient, path: str, status: int, message: str) -> None:
    response = client.get(path)
    assert response.status_code == status
    assert response.json() == {"error": message, "status": status}


def test_out_of_range_numbers_in_a_page_path_are_a_400_page(client: TestClient) -> None:
    response = client.get("/tournaments/99999999999999999999")
    assert response.status_code == 400
    assert "<h1>Bad request</h1>" in response.text and "must be between 1 and" in response.text


@pytest.mark.parametrize("path", ["/", "/bots/alpha", "/api/leaderboard", "/api/bots/nobody", "/no/such/page",
                                  "/api/matches?limit=x", "/static/style.css", "/matches/t1-m004",
                                  "/static/games/union_pacific/replay.js", "/api/replay-view/t1-m004"])
def test_every_response_carries_the_security_headers(client: TestClient, path: str) -> None:
    headers = client.get(path).headers
    csp = {part.split()[0]: part.split()[1:] for part in headers["content-security-policy"].split("; ")}
    assert csp["default-src"] == ["'none'"] and csp["script-src"] == ["'self'"]
    assert csp["style-src"] == ["'self'"] and csp["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"


@pytest.mark.parametrize("path", ["/static/replay-core.js", "/static/games/union_pacific/replay.js"])
def test_static_modules_are_revalidated_so_an_upgrade_never_mixes_versions(client: TestClient, path: str) -> None:
    first = client.get(path)
    assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
    again = client.get(path, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304  # kept by the browser, asked again: unchanged


class _InlineCode(HTMLParser):
    """Collects what a strict Content-Security-Policy would block: inline scripts, styles, handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "script" and "src" not in names:
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("<style> element")
        self.found += [f"{tag} {name}=" for name in names if name == "style" or name.startswith("on")]


def test_pages_have_no_inline_script_or_style_the_policy_would_block(client: TestClient, data: Data) -> None:
    for path in all_pages(data):
        parser = _InlineCode()
        parser.feed(page_text(client.get(path)))
        assert parser.found == [], path


def test_corrupt_replay_shows_an_unreadable_replay_not_a_500(tmp_path: Path) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    with Store.open(url) as store:
        add_bot(store, "alpha")
        add_bot(store, "beta")
        tid = store.create_tournament("union_pacific", {}, 1)
        store.record_match(tid, 0, 1, play_record("m-bad", ["alpha", "beta"], 5, started_at=T0))
        store.set_tournament_status(tid, TournamentStatus.FINISHED)
    engine = create_db_engine(resolve_db_url(url))
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE matches SET replay_z = :r WHERE id = 'm-bad'"),
                               {"r": zlib.compress(b"{not json")})
    finally:
        engine.dispose()
    with TestClient(create_app(url)) as client:
        body = page_text(client.get("/matches/m-bad"))
        assert "The replay is unreadable" in body
        assert "match &#39;m-bad&#39;: the stored replay is not valid JSON" in body
        assert 'id="replay"' not in body  # no viewer
        assert "alpha" in body and "beta" in body  # the result still shows
        api = client.get("/api/matches/m-bad").json()
        assert api["replay"] is None and "is not valid JSON" in api["replay_error"]
        assert [s["bot"] for s in api["seats"]] == ["alpha@1", "beta@1"]


# -- pages ------------------------------------------------------------------------------


def all_pages(data: Data) -> list[str]:
    t1 = data.tournaments[0]
    return ["/", "/tournaments", f"/tournaments/{t1}", "/bots", f"/bots/{quote(HOSTILE, safe='')}",
            f"/bots/{quote(HOSTILE, safe='')}?tournament={t1}", "/bots/alpha", f"/bots/{quote(ODD, safe='')}",
            "/matches/t1-m004", "/matches/t1-m003"]


def test_hostile_text_is_escaped_in_every_page(client: TestClient, data: Data) -> None:
    for path in all_pages(data):
        body = page_text(client.get(path))
        assert HOSTILE not in body, path
        assert "<img src=x" not in body and "<b>author" not in body and "<i>9" not in body, path
        assert HOSTILE_ESCAPED in body, path
    match = page_text(client.get("/matches/t1-m004"))
    assert esc(DEBUG_TEXT) in match  # debug text and fault details shown, as text
    assert esc(f"no reply {DEBUG_TEXT}") in match
    bot = page_text(client.get(f"/bots/{quote(HOSTILE, safe='')}"))
    assert "&lt;i&gt;9&lt;/i&gt;" in bot and "by <strong>" + HOSTILE_ESCAPED in bot
    missing = client.get(f"/bots/{quote('<script>x()</script>', safe='')}")
    assert missing.status_code == 404 and "<script>x()" not in missing.text and "&lt;script&gt;x()" in missing.text


def test_links_percent_encode_free_text_names(client: TestClient, data: Data) -> None:
    board = page_text(client.get(f"/tournaments/{data.tournaments[0]}"))
    hrefs = {html.unescape(h) for h in re.findall(r'href="([^"]*)"', board)}
    assert f"/bots/slash%2Fbot%3Fx%3D1%26y%20%23frag%401?tournament={data.tournaments[0]}" in hrefs
    for name in (ODD, HOSTILE):
        for href in (f"/bots/{quote(name, safe='')}", f"/bots/{quote(name + '@1', safe='')}"):
            page = page_text(client.get(href))
            assert f'data-testid="bot-title">{esc(name)}@1<' in page
    assert 'href="/matches/t1-m004"' in page_text(client.get("/bots/alpha"))


def test_leaderboard_page_shows_the_columns_and_the_reference_row(client: TestClient, data: Data) -> None:
    body = page_text(client.get("/"))
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", body.split(' id="standings"')[1].split("</thead>")[0])
    assert heads == ["#", "Bot", "Elo ± CI", "95% interval", "Live Elo", "Matches", "Wins", "Mean place",
                     "Mean cash", "Forfeits", "Faults"]  # the game's score_name
    assert 'class="reference"' in body and esc(IMAGINARY_PARTICIPANT) in body
    for tid in data.tournaments:
        assert f'href="/tournaments/{tid}"' in body


def test_leaderboard_page_draws_intervals_superiority_and_cross_table(client: TestClient) -> None:
    got = client.get("/api/leaderboard").json()
    body = page_text(client.get("/"))
    rows = {r["name"]: r for r in got["rows"]}
    # one bar per row, on one scale, from the interval's ends and through the rating
    bars = re.findall(r'<tr class="[^"]*" data-bot="([^"]*)">.*?<svg class="ci-bar"[^>]*data-low="([^"]*)" '
                      r'data-high="([^"]*)" data-scale-low="([^"]*)" data-scale-high="([^"]*)">.*?'
                      r'<rect class="range" x="([^"]*)" y="4" width="([^"]*)".*?<line class="point" x1="([^"]*)"',
                      body, re.S)
    assert [html.unescape(b[0]) for b in bars] == list(rows)
    for name, low, high, scale_low, scale_high, x, width, tick in bars:
        row = rows[html.unescape(name)]
        assert (float(low), float(high)) == pytest.approx((row["ci_low"], row["ci_high"]))
        lo, hi = float(scale_low), float(scale_high)
        assert lo < row["ci_low"] and row["ci_high"] < hi
        assert float(x) == pytest.approx(160 * (row["ci_low"] - lo) / (hi - lo), abs=0.01)
        assert float(x) + float(width) == pytest.approx(160 * (row["ci_high"] - lo) / (hi - lo), abs=0.02)
        assert float(tick) == pytest.approx(160 * (row["elo"] - lo) / (hi - lo), abs=0.01)
    line = re.search(r'<p class="caption" data-testid="columns-line">(.*?)</p>', body, re.S)
    assert line is not None and "rank by this" in line.group(1) and "match by match" in line.group(1)
    # the superiority matrix: neighbours only, each pair from both sides
    los = body.split('data-testid="superiority-matrix"')[1].split("</table>")[0]
    pairs = {}
    for row_html in los.split("<tr data-bot=")[1:]:
        row_name = html.unescape(row_html.split('"')[1])
        for column, p in re.findall(r'data-column="([^"]*)" data-p="([^"]*)"', row_html):
            pairs[(row_name, html.unescape(column))] = float(p)
    expected = {}
    for e in got["superiority"]:
        expected[(e["above"], e["below"])] = e["p"]
        expected[(e["below"], e["above"])] = 1 - e["p"]
    assert pairs == pytest.approx(expected)
    # the cross-table: every pair that met, from both sides
    table = body.split('data-testid="cross-matrix"')[1].split("</table>")[0]
    scores = {}
    for row_html in table.split("<tr data-bot=")[1:]:
        row_name = html.unescape(row_html.split('"')[1])
        for column, score, meetings in re.findall(
                r'data-column="([^"]*)" data-score="([^"]*)" data-meetings="([^"]*)"', row_html):
            scores[(row_name, html.unescape(column))] = (float(score), int(meetings))
    expected_scores = {}
    for p in got["cross_table"]["pairs"]:
        expected_scores[(p["a"], p["b"])] = (p["score"], p["meetings"])
        expected_scores[(p["b"], p["a"])] = (1 - p["score"], p["meetings"])
    assert scores == expected_scores
    # links to each table size's own standings
    assert 'href="/?players=2"' in body and 'href="/?players=3"' in body
    two = page_text(client.get("/?players=2"))
    assert "· 2-player tables" in two and 'class="active" data-players="2"' in two


def test_bot_page_draws_the_rating_history(client: TestClient, data: Data) -> None:
    got = client.get("/api/bots/beta").json()
    body = page_text(client.get("/bots/beta"))
    polyline = re.search(r'<polyline class="line" points="([^"]*)"', body)
    assert polyline is not None
    assert len(polyline.group(1).split()) == len(got["history"]) == got["matches"]
    for h in got["head_to_head"]:
        assert f'data-opponent="{esc(h["opponent"])}"' in body


def test_match_page_has_the_viewer_and_the_result(client: TestClient, data: Data) -> None:
    record = data.records["t1-m004"]
    body = page_text(client.get("/matches/t1-m004"))
    assert 'data-match-url="/api/matches/t1-m004"' in body and 'data-board-url="/api/board?game=union_pacific"' in body
    assert 'data-view-url="/api/replay-view/t1-m004"' in body
    for s in record.seats:
        assert f'<tr class="{"win" if s.place == 1 else ""}" data-seat="{s.seat}">' in body
    assert "forfeited" in body and "3 faults (the limit is 3)" in body
    assert '<script type="module" src="/static/games/union_pacific/replay.js">' in body  # the game's, from its kit
    parts = ["replay-core.js", "replay-svg.js", "replay-parts.js"] + [f"games/union_pacific/{part}" for part in (
        "replay.js", "replay-words.js", "replay-board.js", "replay-panels.js", "replay-chart.js")]
    for part in parts:
        response = client.get(f"/static/{part}")
        assert response.status_code == 200 and "javascript" in response.headers["content-type"], part
    assert client.get("/static/style.css").status_code == 200


def test_pages_work_on_each_backend(db_url: str) -> None:
    with Store.open(db_url) as store:
        add_bot(store, "alpha")
        add_bot(store, HOSTILE)
        tid = store.create_tournament("union_pacific", {"bots": ["alpha", HOSTILE]}, 1)
        store.record_match(tid, 0, 1, play_record("m-1", ["alpha", HOSTILE], 7, started_at=T0))
        store.set_tournament_status(tid, TournamentStatus.FINISHED)
    with TestClient(create_app(db_url)) as client:
        for path in ["/", f"/tournaments/{tid}", f"/bots/{quote(HOSTILE, safe='')}", "/matches/m-1"]:
            assert HOSTILE_ESCAPED in page_text(client.get(path))
        assert client.get("/api/matches/m-1").json()["replay"]["seats"][1]["name"] == HOSTILE_V1


# -- replay viewer data, decisions, progress --------------------------------------------------


def test_match_json_says_which_events_each_decision_produced(client: TestClient, data: Data) -> None:
    for match_id in ("t1-m000", "t1-m004"):
        got = client.get(f"/api/matches/{match_id}").json()
        replay = data.records[match_id].replay
        assert got["decision_events"] == [list(span) for span in action_event_spans(replay)]
        assert len(got["decision_events"]) == len(replay["actions"])


def test_fault_and_debug_decisions_link_to_the_replay(client: TestClient, data: Data) -> None:
    body = page_text(client.get("/matches/t1-m004"))
    for decision in (7, 12, 2):  # two faults and a debug line
        assert f'href="#decision={decision}"' in body
    bot_page = page_text(client.get(f"/bots/{quote(HOSTILE, safe='')}"))
    assert 'href="/matches/t1-m004#decision=7"' in bot_page and 'href="/matches/t1-m004#decision=12"' in bot_page


def test_a_replay_that_does_not_replay_has_no_decision_events(tmp_path: Path) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    with Store.open(url) as store:
        add_bot(store, "alpha")
        add_bot(store, "beta")
        tid = store.create_tournament("union_pacific", {"bots": ["alpha", "beta"], "table_sizes": [2], "rounds": 1}, 1)
        record = play_record("m-odd", ["alpha", "beta"], 5, started_at=T0)
        record.replay["events"][3] = {"type": "display", "display": []}  # no longer what the actions give
        store.record_match(tid, 0, 1, record)
        store.set_tournament_status(tid, TournamentStatus.FINISHED)
    with TestClient(create_app(url)) as client:
        got = client.get("/api/matches/m-odd").json()
        assert got["replay"] is not None and got["decision_events"] is None


def running_tournament(url: str, stored: int, *, start: float = T0, gap: float = 10.0) -> int:
    """A running tournament of three bots at 2-player tables, 2 rounds (12 matches), ``stored`` of them stored,
    started ``gap`` seconds apart from ``start`` (each lasting 0.5 s)."""
    with Store.open(url) as store:
        for name in ("a", "b", "c"):
            add_bot(store, name)
        tid = store.create_tournament("union_pacific", {"bots": ["a", "b", "c"], "table_sizes": [2], "rounds": 2}, 3)
        store.set_tournament_status(tid, TournamentStatus.RUNNING)
        pairs = [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]
        for i in range(stored):
            store.record_match(tid, i, 1 + i // 6, play_record(f"m-p{i}", pairs[i % 6], 50 + i, started_at=start + gap * i))
    return tid


def store_next_match(url: str, tid: int, started_at: float) -> None:
    """Store the next match of :func:`running_tournament`'s schedule."""
    pairs = [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]
    with Store.open(url) as store:
        i = len(store.stored_schedule_indexes(tid))
        store.record_match(tid, i, 1 + i // 6, play_record(f"m-p{i}", pairs[i % 6], 50 + i, started_at=started_at))


def test_progress_of_a_running_tournament(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    tid = running_tournament(url, 5)
    last_end = T0 + 40 + 0.5
    with Store.open(url) as store:
        row = store.get_tournament(tid)
        p = progress_json(store, row, now=datetime.fromtimestamp(last_end + 3, timezone.utc))
        assert (p["done"], p["total"], p["remaining"], p["fraction"]) == (5, 12, 7, round(5 / 12, 4))
        assert p["matches_per_minute"] == 6.0  # 4 gaps of 10 s between the 5 ends
        assert p["eta_seconds"] == 7 * 10 - 3 and not p["stalled"]
        assert p["last_match_at"] == datetime.fromtimestamp(last_end, timezone.utc).isoformat()
        later = progress_json(store, row, now=datetime.fromtimestamp(last_end + 600, timezone.utc))
        assert later["stalled"] and later["eta_seconds"] is None
        store.set_tournament_status(tid, TournamentStatus.INTERRUPTED)
        stopped = progress_json(store, store.get_tournament(tid), now=datetime.fromtimestamp(last_end + 3, timezone.utc))
        assert stopped["eta_seconds"] is None and stopped["matches_per_minute"] == 6.0 and not stopped["stalled"]
    with TestClient(create_app(url)) as client:
        got = client.get(f"/api/tournaments/{tid}/progress").json()
        assert (got["done"], got["total"], got["status"]) == (5, 12, "interrupted")
        body = page_text(client.get(f"/tournaments/{tid}"))
        assert "<strong>5</strong> of 12 matches" in body and f"arena tournament resume {tid}" in body
        assert "tournament.js" not in body  # only a running tournament's page refreshes itself
        assert client.get("/api/tournaments/99/progress").status_code == 404


def test_a_running_tournament_page_refreshes_itself(tmp_path: Path) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    tid = running_tournament(url, 3)
    with TestClient(create_app(url)) as client:
        body = page_text(client.get(f"/tournaments/{tid}"))
        assert "/static/tournament.js" in body and f'data-progress-url="/api/tournaments/{tid}/progress"' in body
        assert "<strong>3</strong> of 12 matches" in body
        assert client.get("/static/tournament.js").status_code == 200
        listing = page_text(client.get("/tournaments"))
        assert '3 <span class="muted">/ 12</span>' in listing


@pytest.mark.parametrize(("seconds", "text"), [(0, "0 s"), (59.4, "59 s"), (60, "1 min"), (200, "3 min 20 s"),
                                               (3599, "1 h"), (3600 + 65 * 60, "2 h 5 min"), (None, "")])
def test_duration_text(seconds: float | None, text: str) -> None:
    assert duration_text(seconds) == text


# -- the command ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_arena_serve_serves_the_pages(data: Data) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli.main", "serve", "--port", str(port), "--db", data.url],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/api/tournaments", timeout=2)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"arena serve did not come up: {proc.stdout.read() if proc.stdout else ''}")
                time.sleep(0.2)
        assert [t["id"] for t in response.json()] == data.tournaments
        assert HOSTILE_ESCAPED in httpx.get(f"http://127.0.0.1:{port}/", timeout=5).text
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert f"at http://127.0.0.1:{port}/" in out


def test_arena_serve_refuses_a_bad_port(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.main import main

    assert main(["serve", "--port", "70000", "--db", "sqlite://"]) == 2
    assert "--port must be between 0 and 65535, got 70000" in capsys.readouterr().err


def test_versions_on_the_leaderboard_and_the_bot_page(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'versions.sqlite'}"
    with Store.open(url) as store:
        for name in ("alpha", "beta"):
            add_bot(store, name)
        tid = store.create_tournament("union_pacific", {"bots": ["alpha", "beta"], "versions": {"alpha": 1}}, 1)
        store.record_match(tid, 0, 0, play_record("v1-a", ["alpha", "beta"], 3, started_at=T0))
        store.add_bot("alpha", "2.0", "tests", "python", manifest_path="/bots/a2/bot.toml", files_sha256="ef" * 32)
        # alpha@2 has not played: the leaderboard still shows alpha@1, the newest version with results
        with TestClient(create_app(url)) as client:
            rows = client.get("/api/leaderboard").json()["rows"]
            assert [r["name"] for r in rows if not r["reference"]] == sorted(
                ["alpha@1", "beta@1"], key=lambda n: [r["name"] for r in rows].index(n))
            assert {r["name"]: r["current"] for r in rows if not r["reference"]} == {"alpha@1": False, "beta@1": True}
        t2 = store.create_tournament("union_pacific", {"bots": ["alpha", "beta"], "versions": {"alpha": 2}}, 2)
        record = play_record("v2-a", ["alpha", "beta"], 4, started_at=T0 + 60)
        seats = tuple(SeatResult(s.seat, "alpha@2" if s.bot == "alpha@1" else s.bot, s.score, s.place, s.forfeited,
                                 s.faults) for s in record.seats)
        store.record_match(t2, 0, 0, MatchRecord(**{**record.__dict__, "seats": seats}))
    with TestClient(create_app(url)) as client:
        current = client.get("/api/leaderboard").json()
        every = client.get("/api/leaderboard", params={"versions": "all"}).json()
        assert not current["all_versions"] and every["all_versions"]
        assert sorted(r["name"] for r in current["rows"] if not r["reference"]) == ["alpha@2", "beta@1"]
        assert sorted(r["name"] for r in every["rows"] if not r["reference"]) == ["alpha@1", "alpha@2", "beta@1"]
        assert sorted(r["rank"] for r in current["rows"] if not r["reference"]) == [1, 2]
        assert sorted(r["rank"] for r in every["rows"] if not r["reference"]) == [1, 2, 3]
        assert client.get("/api/leaderboard", params={"versions": "some"}).status_code == 400
        page = page_text(client.get("/", params={"versions": "all"}))
        assert "alpha@1" in page and "alpha@2" in page
        assert "alpha@1" not in page_text(client.get("/")).split('id="standings"')[1].split("</table>")[0]
        # the bot page: the current version by default, one version by NAME@NUMBER, the history of versions
        bot = client.get("/api/bots/alpha").json()
        assert bot["bot"]["participant"] == "alpha@2" and bot["bot"]["current"]
        assert [(v["participant"], v["matches"], v["current"]) for v in bot["versions"]] == [
            ("alpha@2", 1, True), ("alpha@1", 1, False)]
        assert [m["id"] for m in bot["recent_matches"]] == ["v2-a"]
        old = client.get(f"/api/bots/{quote('alpha@1', safe='')}").json()
        assert old["bot"]["participant"] == "alpha@1" and not old["bot"]["current"]
        assert [m["id"] for m in old["recent_matches"]] == ["v1-a"] and old["standing"]["name"] == "alpha@1"
        html_page = page_text(client.get("/bots/alpha"))
        assert 'data-testid="versions"' in html_page and 'data-version="1"' in html_page and "older version" not in html_page
        assert "older version" in page_text(client.get(f"/bots/{quote('alpha@1', safe='')}"))
        assert client.get(f"/api/bots/{quote('alpha@3', safe='')}").status_code == 404
        assert [b["participant"] for b in client.get("/api/bots").json()] == ["alpha@2", "beta@1"]
        assert [b["participant"] for b in client.get("/api/bots", params={"versions": "all"}).json()] == [
            "alpha@1", "alpha@2", "beta@1"]


def test_an_unknown_match_s_replay_view_is_a_404_and_unknown_games_stay_out_of_the_view_cache(
        client: TestClient) -> None:
    from leaderboard.web import games

    assert client.get("/api/replay-view/no-such-match").status_code == 404
    before = games._view_of.cache_info().currsize
    for i in range(20):
        assert client.get("/api/board", params={"game": f"nope{i}"}).status_code == 400
    assert games._view_of.cache_info().currsize == before
