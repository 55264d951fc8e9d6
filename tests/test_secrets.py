"""Secrets stay secret (issue 8): match ids are random everywhere, a tournament's deals
derive from a secret key, nothing of a deal (deck seed, replay, fault details, debug
text) is public before its tournament is finished, and no bot address reaches a page.

Real SQLite files, the real web app through Starlette's TestClient, the real
``arena`` command in-process, and real bot processes for the tournament and check ids.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from arena.cli.main import main
from arena.matchids import MATCH_ID_PATTERN, new_match_id
from arena.records import Fault, FaultReason
from arena.registry import register_bot
from arena.scheduler.pairings import generate_schedule, subset_seed
from arena.tournaments import TournamentConfig, create_tournament, run_tournament
from leaderboard.rows import SECRET_UNTIL_FINISHED, TournamentStatus
from leaderboard.store import Store
from leaderboard.web import create_app
from tests.fake_bots import manifest_path
from tests.test_web_api import SHA, T0, play_record

BOTS = ["ann", "bob", "cyd"]
DEBUG = "my hand: 2 EPRG, 1 BNL -- secret"
DETAIL = "action_index 7 is out of range [0, 5)"
ADDRESS = "10.9.8.7:50123"
SOCKET = "unix:/tmp/arena-sock-7f3a/bot.sock"
SANDBOX = {"level": "sandbox", "fresh_processes": True,
           "limits": {"memory_mb": 1024, "pids": 128, "cpus": 1.0, "file_mb": 64, "tmp_mb": 64, "log_mb": 10}}
SANDBOX_LINE = ("isolation: sandbox — memory 1024 MB, 128 processes, 1 CPU, files 64 MB, tmp 64 MB, "
                "fresh process per match")


def sqlite_url(tmp_path: Path, name: str = "arena.sqlite") -> str:
    return f"sqlite:///{(tmp_path / name).as_posix()}"


def long_key() -> int:
    """A random 63-bit key with 19 decimal digits, so finding it in a page is no accident."""
    return (1 << 62) | secrets.randbits(61)


# -- ids ----------------------------------------------------------------------------------


def test_new_match_ids_are_random_and_opaque() -> None:
    ids = [new_match_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert all(MATCH_ID_PATTERN.fullmatch(i) for i in ids)
    assert not MATCH_ID_PATTERN.fullmatch("t1-m00004-7a811698")  # the old tournament ids do not pass


def test_arena_play_ids_are_random_and_hold_no_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed = 123_456_789
    ids = []
    for run in range(2):
        replays = tmp_path / f"replays{run}"
        assert main(["play", "--bot", str(manifest_path("random")), "--bot", str(manifest_path("random")),
                     "--seed", str(seed), "--replays", str(replays), "--logs", str(tmp_path / "logs")]) == 0
        out = " ".join(capsys.readouterr().out.split())
        [path] = list(replays.glob("*.json"))
        replay = json.loads(path.read_text())
        match_id = replay["match"]["match_id"]
        assert MATCH_ID_PATTERN.fullmatch(match_id), match_id
        assert match_id in path.name and str(seed) not in path.name
        assert replay["seed"] == seed  # reproducible locally: the replay keeps the seed ...
        assert f"deck seed {seed}: --seed {seed} deals the same hands again" in out  # ... and so does the console
        ids.append(match_id)
    assert ids[0] != ids[1], "the same seed gave the same id"
    assert all(str(seed) not in i and str(seed)[:6] not in i for i in ids)


def test_arena_play_without_a_seed_draws_a_random_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seeds = []
    for run in range(2):
        replays = tmp_path / f"r{run}"
        assert main(["play", "--bot", str(manifest_path("random")), "--bot", str(manifest_path("random")),
                     "--replays", str(replays), "--logs", str(tmp_path / "logs")]) == 0
        out = " ".join(capsys.readouterr().out.split())
        seed = json.loads(next(replays.glob("*.json")).read_text())["seed"]
        assert f"deck seed {seed}:" in out
        seeds.append(seed)
    assert seeds[0] != seeds[1]


def test_the_checks_ids_have_the_tournaments_pattern(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.host.check import check_bot
    from arena.host.sandbox import IsolationPolicy
    from tests.test_host_match import read_records

    recording = tmp_path / "requests.bin"
    monkeypatch.setenv("FAKE_BOT_RECORD", str(recording))  # reaches the bot: unsandboxed on purpose
    report = check_bot(str(manifest_path("record")), log_dir=tmp_path, policy=IsolationPolicy.none())
    assert report.passed, report.failed
    ids = {r.match_id for r in read_records(recording)}
    assert len(ids) == 3
    assert all(MATCH_ID_PATTERN.fullmatch(i) for i in ids), ids


# -- the tournament key ---------------------------------------------------------------------


def test_deck_seeds_are_a_keyed_sha256_of_the_deal() -> None:
    """The derivation is pinned (resuming a stored tournament relies on it) and keyed."""
    key = long_key()
    payload = json.dumps(["arena.scheduler.pairings/v1", key, 2, 3, ["ann", "bob", "cyd"]], separators=(",", ":"))
    expected = int.from_bytes(hashlib.sha256(payload.encode()).digest()[:8], "big") & ((1 << 63) - 1)
    assert subset_seed(key, 2, 3, ("ann", "bob", "cyd")) == expected
    other = key ^ 1
    assert subset_seed(other, 2, 3, ("ann", "bob", "cyd")) != expected
    deals = {p.seed for p in generate_schedule(BOTS, [2, 3], 2, key)}
    assert len(deals) == (3 + 1) * 2  # one seed per subset and round, none repeated
    assert key not in deals


def test_tournament_key_is_random_unless_given(tmp_path: Path) -> None:
    config = TournamentConfig(bots=("ann", "bob"), table_sizes=(2,))
    with Store.open(sqlite_url(tmp_path)) as store:
        keys = [store.get_tournament(create_tournament(store, config)).seed for _ in range(3)]
        chosen = store.get_tournament(create_tournament(store, config, 7)).seed
    assert len(set(keys)) == 3 and all(0 <= k < 2**63 for k in keys)
    assert 1 not in keys and chosen == 7


def test_run_help_warns_that_an_explicit_seed_is_for_local_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["tournament", "run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "makes every deal predictable to anyone who knows it" in text and "local runs only" in text
    assert "--publish-deals" in text


# -- a real tournament: interrupted, then finished ---------------------------------------------


def register_fakes(store: Store) -> list[str]:
    """Registered as `arena bot add` does (a frozen copy of their files), without the check."""
    names = []
    for mode in ("random", "debug"):  # fake-debug sends a 300-character debug text at every decision
        row, _ = register_bot(store, str(manifest_path(mode)), log_dir=Path("unused"), check=False)
        names.append(row.name)
    return names


def pages_and_json(client: TestClient, tid: int, match_ids: list[str], bots: list[str]) -> dict[str, str]:
    """Every page and JSON answer that shows something of tournament ``tid``."""
    paths = ["/", "/tournaments", f"/tournaments/{tid}", "/bots", "/api/leaderboard",
             f"/api/leaderboard?tournament={tid}", "/api/tournaments", f"/api/tournaments/{tid}", "/api/bots",
             "/api/matches", f"/api/matches?tournament={tid}"]
    for bot in bots:
        b = quote(bot, safe="")
        paths += [f"/bots/{b}", f"/bots/{b}?tournament={tid}", f"/api/bots/{b}", f"/api/bots/{b}?tournament={tid}",
                  f"/api/matches?bot={b}"]
    for match_id in match_ids:
        paths += [f"/matches/{match_id}", f"/api/matches/{match_id}"]
    texts = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code in (200, 403), (path, response.status_code, response.text[:300])
        texts[path] = response.text
    return texts


def leaks(texts: dict[str, str], secrets_: dict[str, str]) -> list[str]:
    return [f"{what} in {path}" for path, text in texts.items() for what, value in secrets_.items() if value in text]


@pytest.mark.slow
def test_a_real_tournament_shows_no_secret_until_it_is_finished(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    url = sqlite_url(tmp_path)
    cancel = threading.Event()
    with Store.open(url) as store:
        bots = register_fakes(store)
        tid = create_tournament(store, TournamentConfig(bots=tuple(bots), table_sizes=(2,), rounds=2, concurrency=1))
        key = store.get_tournament(tid).seed
        run_tournament(store, tid, log_dir=tmp_path / "logs", cancel=cancel, on_done=lambda outcome: cancel.set())
        row = store.get_tournament(tid)
        assert row.status is TournamentStatus.INTERRUPTED
        stored = store.list_matches(tournament_id=tid)
        assert 1 <= len(stored) < 4
        replays = {m.id: store.get_match(m.id).replay for m in stored}
    schedule_seeds = {p.seed for p in generate_schedule(bots, [2], 2, key)}
    for match in stored:
        assert MATCH_ID_PATTERN.fullmatch(match.id), match.id
        assert str(match.seed) not in match.id and f"t{tid}-" not in match.id
        assert replays[match.id]["match"]["match_id"] == match.id  # what the bots were told
    debug = "d" * 199  # what fake-debug sends with every decision (300 characters, cut to 199 and "…")
    assert all(any(d["text"].startswith(debug) for d in r["match"]["debug"]) for r in replays.values())
    hidden = {"the key": str(key), "the debug text": debug, "a replay": '"events"'}
    hidden |= {f"deck seed {s}": str(s) for s in schedule_seeds}
    ids = [m.id for m in stored]

    with TestClient(create_app(url)) as client:
        texts = pages_and_json(client, tid, ids, bots)
        assert not leaks(texts, hidden)
        for match_id in ids:
            api = client.get(f"/api/matches/{match_id}")
            assert api.status_code == 403
            assert api.json()["error"] == (f"The replay and deck seed of match {match_id} are published when "
                                           f"tournament {tid} is finished (it is interrupted now).")
            page = texts[f"/matches/{match_id}"]
            assert 'data-testid="replay-hidden"' in page and 'id="replay"' not in page
            assert f"seed <span class=\"muted\">{SECRET_UNTIL_FINISHED}</span>" in page
            assert 'data-testid="result"' in page  # the result is public
        listed = client.get(f"/api/tournaments/{tid}").json()
        assert "seed" not in listed and listed["published"] is False
        assert [m["id"] for m in listed["matches"]] == ids and all("seed" not in m for m in listed["matches"])
        assert f"<dd><span class=\"muted\">{SECRET_UNTIL_FINISHED}</span></dd>" in texts[f"/tournaments/{tid}"]

    for args in (["tournament", "show", str(tid)], ["tournament", "list"], ["tournament", "show", str(tid), "--json"],
                 ["tournament", "list", "--json"]):
        assert main([*args, "--db", url]) == 0
        out = capsys.readouterr().out
        assert not [what for what, value in hidden.items() if value in out], args
        if "--json" in args:
            data = json.loads(out)
            for t in data if isinstance(data, list) else [data]:
                assert "seed" not in t and t["published"] is False
                assert all("seed" not in m for m in t.get("matches", []))
        else:
            assert SECRET_UNTIL_FINISHED in " ".join(out.split())

    with Store.open(url) as store:  # resume: the tournament finishes, and everything is published
        run_tournament(store, tid, log_dir=tmp_path / "logs")
        assert store.get_tournament(tid).status is TournamentStatus.FINISHED
        stored = store.list_matches(tournament_id=tid)
    assert len(stored) == 4 and {m.seed for m in stored} == schedule_seeds
    with TestClient(create_app(url)) as client:
        texts = pages_and_json(client, tid, [m.id for m in stored], bots)
        assert str(key) in texts[f"/tournaments/{tid}"] and str(key) in texts["/api/tournaments"]
        for match in stored:
            assert str(match.seed) in texts[f"/matches/{match.id}"]
            api = client.get(f"/api/matches/{match.id}")
            assert api.status_code == 200 and api.json()["replay"]["seed"] == match.seed
        assert all(debug in texts[f"/api/matches/{match_id}"] and debug in texts[f"/matches/{match_id}"]
                   for match_id in ids)
    assert main(["tournament", "show", str(tid), "--json", "--db", url]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["seed"] == key and {m["seed"] for m in shown["matches"]} == schedule_seeds


def test_tournament_run_without_seed_uses_a_secret_key_and_random_ids(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    url = sqlite_url(tmp_path)
    with Store.open(url) as store:
        bots = register_fakes(store)
    for _ in range(2):
        assert main(["tournament", "run", "--bot", bots[0], "--bot", bots[1], "--players", "2", "--concurrency", "1",
                     "--quiet", "--publish-deals", "--logs", str(tmp_path / "logs"), "--db", url]) == 0
    out = capsys.readouterr().out
    with Store.open(url) as store:
        rows = store.list_tournaments()
        matches = store.list_matches()
    assert [r.status for r in rows] == [TournamentStatus.FINISHED] * 2
    assert rows[0].seed != rows[1].seed and 1 not in {r.seed for r in rows}
    assert all(str(r.seed) not in out for r in rows), "the key was printed while the tournament ran"
    assert all(r.config["publish_deals"] is True for r in rows)
    assert TournamentConfig.from_json(rows[0].config).publish_deals
    assert len(matches) == 4 and all(MATCH_ID_PATTERN.fullmatch(m.id) for m in matches)


# -- in-process results: a running tournament, published deals, addresses, isolation -----------------


def store_deals(url: str, *, key: int, status: TournamentStatus, publish_deals: bool = False,
                indexes: tuple[int, ...] = (0, 1, 2, 6), isolation: dict[str, Any] | None = None,
                ) -> tuple[int, dict[int, str], list[Any]]:
    """A tournament among BOTS at table sizes 2 and 3 with some of its schedule stored.

    Schedule: (ann,bob) x2 [0,1], (ann,cyd) x2 [2,3], (bob,cyd) x2 [4,5], (ann,bob,cyd) x3 [6,7,8].
    Each stored match has a fault whose detail tells a hidden count, and debug text.
    """
    schedule = generate_schedule(BOTS, [2, 3], 1, key)
    ids: dict[int, str] = {}
    with Store.open(url) as store:
        for bot in BOTS:
            if bot not in {b.name for b in store.list_bots()}:
                store.add_bot(bot, "1.0", "tests", "python", manifest_path=f"/bots/{bot}/bot.toml",
                              files_sha256=SHA)
        config = TournamentConfig(bots=tuple(BOTS), table_sizes=(2, 3), publish_deals=publish_deals).to_json()
        tid = store.create_tournament("union_pacific", config, key)
        for index in indexes:
            p = schedule[index]
            match_id = new_match_id()
            record = play_record(match_id, list(p.seats), p.seed, started_at=T0 + index,
                                 faults=[Fault(0, 3, FaultReason.ILLEGAL_ACTION, DETAIL)],
                                 debug=[{"decision": 2, "seat": 1, "text": DEBUG}])
            if isolation is not None:
                record.replay["match"]["isolation"] = isolation
            store.record_match(tid, index, p.round, record)
            ids[index] = match_id
        store.set_tournament_status(tid, status)
    return tid, ids, schedule


@pytest.mark.parametrize("status", [TournamentStatus.CREATED, TournamentStatus.RUNNING,
                                    TournamentStatus.INTERRUPTED])
def test_an_unfinished_tournament_shows_results_but_no_deal(tmp_path: Path, status: TournamentStatus) -> None:
    url = sqlite_url(tmp_path)
    key = long_key()
    tid, ids, schedule = store_deals(url, key=key, status=status)
    hidden = {"the key": str(key), "debug text": DEBUG, "a fault detail": DETAIL, "a replay": '"events"'}
    hidden |= {f"seed of #{p.index}": str(p.seed) for p in schedule}
    with TestClient(create_app(url)) as client:
        texts = pages_and_json(client, tid, list(ids.values()), BOTS)
        assert not leaks(texts, hidden)
        summaries = client.get(f"/api/matches?tournament={tid}").json()
        assert len(summaries) == len(ids) and all(m["published"] is False for m in summaries)
        assert all(f["detail"] == "published with the replay" for m in summaries for s in m["seats"]
                   for f in s["faults"])
        ann = client.get("/api/bots/ann").json()
        assert ann["faults"] and all(f["detail"] == "published with the replay" for f in ann["faults"])
        for match_id in ids.values():
            assert client.get(f"/api/matches/{match_id}").status_code == 403
        # the results are there
        board = client.get(f"/api/leaderboard?tournament={tid}").json()
        assert sum(r["matches"] for r in board["rows"] if not r["reference"]) == 2 + 2 + 2 + 3

        with Store.open(url) as store:
            store.set_tournament_status(tid, TournamentStatus.FINISHED)
        texts = pages_and_json(client, tid, list(ids.values()), BOTS)
        assert str(key) in texts[f"/tournaments/{tid}"]
        for index, match_id in ids.items():
            page, api = texts[f"/matches/{match_id}"], texts[f"/api/matches/{match_id}"]
            assert str(schedule[index].seed) in page and str(schedule[index].seed) in api
            assert DEBUG in page and DETAIL in page and '"events"' in api
            assert client.get(f"/api/matches/{match_id}").json()["replay"]["seed"] == schedule[index].seed


def test_publish_deals_publishes_a_deal_once_every_rotation_is_stored(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    # (ann,bob): both rotations stored; (ann,cyd): one of two; (ann,bob,cyd): one of three
    tid, ids, schedule = store_deals(url, key=long_key(), status=TournamentStatus.RUNNING, publish_deals=True,
                                     indexes=(0, 1, 2, 6))
    complete, partial = {0, 1}, {2, 6}
    with TestClient(create_app(url)) as client:
        for index in complete:
            api = client.get(f"/api/matches/{ids[index]}")
            assert api.status_code == 200 and api.json()["replay"]["seed"] == schedule[index].seed
            page = client.get(f"/matches/{ids[index]}").text
            assert 'id="replay"' in page and str(schedule[index].seed) in page
        texts = pages_and_json(client, tid, [ids[i] for i in partial], BOTS)
        hidden = {f"seed of #{i}": str(schedule[i].seed) for i in range(len(schedule)) if i not in complete}
        hidden["the key"] = str(store_key(url, tid))
        assert not leaks(texts, hidden)
        for index in partial:
            api = client.get(f"/api/matches/{ids[index]}")
            assert api.status_code == 403
            assert "once every seating of its deal has been played" in api.json()["error"]
        summaries = {m["id"]: m for m in client.get(f"/api/tournaments/{tid}").json()["matches"]}
        assert {i for i in ids if summaries[ids[i]]["published"]} == complete
        assert "each deal's replays once all its seatings are played" in client.get(f"/tournaments/{tid}").text
    # without the option, the same complete deal stays hidden
    url2 = sqlite_url(tmp_path, "other.sqlite")
    tid2, ids2, _ = store_deals(url2, key=long_key(), status=TournamentStatus.RUNNING, indexes=(0, 1))
    with TestClient(create_app(url2)) as client:
        assert all(client.get(f"/api/matches/{i}").status_code == 403 for i in ids2.values())


def store_key(url: str, tid: int) -> int:
    with Store.open(url) as store:
        return store.get_tournament(tid).seed


def test_bot_addresses_never_reach_a_page(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    with Store.open(url) as store:
        store.add_bot("remote", "1.0", "tests", "python", address=ADDRESS, files_sha256=SHA)
        store.add_bot("local", "1.0", "tests", "python", manifest_path="/bots/local/bot.toml", files_sha256=SHA)
        tid = store.create_tournament("union_pacific", {"bots": ["remote", "local"]}, 5)
        match_id = new_match_id()
        record = play_record(match_id, ["remote", "local"], 11, started_at=T0,
                             faults=[Fault(0, 4, FaultReason.DISCONNECT,
                                           f"failed to connect to all addresses; last error: ipv4:{ADDRESS}: "
                                           "Connection refused")])
        record.replay["match"]["seats"][0]["address"] = ADDRESS
        record.replay["match"]["seats"][1]["address"] = SOCKET
        record.replay["match"]["notes"] = [{"seat": 0, "note": f"the bot at {ADDRESS} restarted"}]
        store.record_match(tid, 0, 1, record)
        store.set_tournament_status(tid, TournamentStatus.FINISHED)
    with TestClient(create_app(url)) as client:
        texts = pages_and_json(client, tid, [match_id], ["remote", "local"])
        assert not leaks(texts, {"the address": ADDRESS, "the socket": SOCKET})
        got = client.get(f"/api/matches/{match_id}").json()
        assert all("address" not in seat for seat in got["replay"]["match"]["seats"])
        assert got["seats"][0]["faults"][0]["detail"].endswith("ipv4:(address hidden): Connection refused")
        assert "the bot at (address hidden) restarted" in texts[f"/matches/{match_id}"]
        assert client.get("/api/bots").json()[1]["name"] == "remote"  # shown, but not where it runs


def test_isolation_is_shown_on_match_and_bot_pages_even_while_secret(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    tid, ids, _ = store_deals(url, key=long_key(), status=TournamentStatus.RUNNING, indexes=(0,), isolation=SANDBOX)
    none = {"level": "none", "fresh_processes": False, "limits": {}}
    with Store.open(url) as store:  # a second tournament: one unsandboxed match, one recorded before isolation was
        tid2 = store.create_tournament("union_pacific", {"bots": BOTS}, 3)
        for index, iso in enumerate((none, None)):
            record = play_record(new_match_id(), ["ann", "bob"], 40 + index, started_at=T0 + 100 + index)
            if iso is not None:
                record.replay["match"]["isolation"] = iso
            store.record_match(tid2, index, 1, record)
            ids[100 + index] = record.match_id
        store.set_tournament_status(tid2, TournamentStatus.FINISHED)
    with TestClient(create_app(url)) as client:
        page = client.get(f"/matches/{ids[0]}").text
        assert SANDBOX_LINE in page and 'data-testid="replay-hidden"' in page
        assert ("isolation: none — no sandbox, no limits, processes reused across matches"
                in client.get(f"/matches/{ids[100]}").text)
        assert "isolation: unknown (not recorded for this match)" in client.get(f"/matches/{ids[101]}").text
        bot = client.get("/bots/ann").text
        assert ">Isolation</th>" in bot
        assert SANDBOX_LINE.removeprefix("isolation: ") in bot  # the cell's title
        recent = {m["id"]: m["isolation"] for m in client.get("/api/bots/ann").json()["recent_matches"]}
        assert recent[ids[0]]["level"] == "sandbox" and recent[ids[0]]["limits"]["memory_mb"] == 1024
        assert recent[ids[100]]["level"] == "none" and recent[ids[101]]["level"] == "unknown"
        assert client.get(f"/api/matches/{ids[100]}").json()["isolation"]["fresh_processes"] is False
