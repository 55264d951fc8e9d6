"""``arena sprt`` end to end: real sample bots over gRPC, a real database, the real command;
an interrupted test resumes where it stopped; bad input gets one clear line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.host.sandbox import Isolation
from arena.scheduler.sprt_deals import deal, deal_scores
from arena.sprt import SprtConfig, create_sprt, load_progress, run_sprt, stored_places
from arena.stats.sprt import SequentialTest
from arena.tournaments import resolve_bots
from leaderboard.store import Store

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots" / "python"
# greedy beats random by several hundred Elo: wide bounds decide within a few deals
WIDE = ("--elo0", "0", "--elo1", "400", "--alpha", "0.1", "--beta", "0.1")


def arena(*args: str, db: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", *args, "--db", db], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def renamed_copy(tmp_path: Path, sample: str, old: str, new: str) -> str:
    """A copy of a sample bot under another name (a second bot with the same play)."""
    folder = tmp_path / new
    shutil.copytree(SAMPLES / sample, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file in (folder / "bot.toml", folder / "bot.py"):
        file.write_text(file.read_text().replace(f'name = "{old}"', f'name = "{new}"'))
    assert f'name = "{new}"' in (folder / "bot.toml").read_text()
    return str(folder)


@pytest.fixture
def pool_bot(tmp_path: Path) -> str:
    """A renamed copy of the random sample bot, the pool's one opponent."""
    return renamed_copy(tmp_path, "random_bot", "random-bot", "random-two")


def read(capsys: pytest.CaptureFixture[str], *args: str, db: str) -> str:
    """A read-only command in this process (quicker than a new interpreter)."""
    capsys.readouterr()
    assert main([*args, "--db", db]) == 0
    return capsys.readouterr().out


def _check_deals(db: str, tid: int, counted: int, shown: dict, new: str = "greedy-bot", old: str = "random-bot",
                 pool: str = "random-two") -> None:
    """Every counted deal: NEW's and OLD's twins in every rotation, one deck; the test's state is the one
    the stored matches give."""
    by_deal: dict[int, list[dict]] = defaultdict(list)
    for m in shown["matches"]:
        by_deal[m["deal"]].append(m)
    assert sorted(m["schedule_index"] for m in shown["matches"]) == list(range(len(shown["matches"])))
    seeds = set()
    for number in range(1, counted + 1):
        matches = sorted(by_deal[number], key=lambda m: m["schedule_index"])
        assert len(matches) == 4  # a table of 2: two rotations, NEW and OLD each
        assert len({m["seed"] for m in matches}) == 1
        seeds.add(matches[0]["seed"])
        for new_match, old_match in (matches[0:2], matches[2:4]):
            assert [(f"{new}@1" if b == f"{old}@1" else b) for b in old_match["seats"]] == new_match["seats"]
            assert f"{new}@1" in new_match["seats"] and f"{pool}@1" in new_match["seats"]
    assert len(seeds) == counted  # a new deck every deal
    with Store.open(db) as store:
        config, progress = load_progress(store, tid)
        places = stored_places(store, tid)
        row = store.get_tournament(tid)
    test = SequentialTest(config.params())
    for number in range(1, counted + 1):
        new_score, old_score = deal_scores(deal(config.entrants(), row.seed, number), places)
        state = test.add(float(new_score), float(old_score))
    assert state.llr == pytest.approx(shown["sprt"]["llr"], abs=1e-5)
    assert progress.report().to_json() == shown["sprt"]


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # on PostgreSQL: the resume test below
def test_sprt_finds_greedy_better_than_random(db_url: str, pool_bot: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = arena("sprt", "--candidate", str(SAMPLES / "greedy_bot"), "--baseline", str(SAMPLES / "random_bot"),
                "--pool", pool_bot, "--players", "2", *WIDE, "--seed", "3", "--isolation", "none", "--quiet",
                "--logs", str(tmp_path / "logs"), db=db_url)
    assert "H1 accepted: greedy-bot is better than random-bot" in run.stdout
    assert "deal 1: LLR" in run.stdout  # the running LLR, a line per deal when not on a terminal
    shown = json.loads(read(capsys, "tournament", "show", "1", "--json", db=db_url))
    sprt = shown["sprt"]
    assert shown["status"] == "finished" and shown["published"] and sprt["verdict"] == "H1 accepted"
    assert sprt["llr"] >= sprt["upper"] and 1 <= sprt["counted_deals"] <= 40
    assert sprt["new_score"] > sprt["old_score"] and sprt["elo"] > 0
    assert shown["config"]["format"] == "sprt" and shown["config"]["pool"] == ["random-two"]
    _check_deals(db_url, 1, sprt["counted_deals"], shown)
    listed = json.loads(read(capsys, "tournament", "list", "--json", db=db_url))
    assert listed[0]["matches_scheduled"] is None and listed[0]["sprt"]["verdict"] == "H1 accepted"
    assert "H1 accepted" in read(capsys, "tournament", "list", db=db_url)
    assert "H1 accepted after" in read(capsys, "tournament", "show", "1", db=db_url)
    board = json.loads(read(capsys, "leaderboard", "--tournament", "1", "--json", db=db_url))
    assert board[0]["name"] == "greedy-bot@1" and board[0]["bot"] == "greedy-bot"
    assert "already finished" in read(capsys, "tournament", "resume", "1", db=db_url)


TTR = "ticket_to_ride_pennsylvania"


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_ticket_to_ride_sprt_finds_the_sensible_bot_better_than_random(db_url: str, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """``--game``: a TTR bot author's SPRT, with the TTR sample bots over gRPC (no imaginary
    shareholder in TTR's two-player game: one opponent, 2 pairs per side of a deal)."""
    pool = renamed_copy(tmp_path, "ttr_random_bot", "ttr-random-bot", "ttr-random-two")
    run = arena("sprt", "--game", TTR, "--candidate", str(SAMPLES / "ttr_sensible_bot"),
                "--baseline", str(SAMPLES / "ttr_random_bot"), "--pool", pool, "--players", "2", *WIDE,
                "--seed", "3", "--isolation", "none", "--quiet", "--logs", str(tmp_path / "logs"), db=db_url)
    assert "Ticket to Ride: Pennsylvania, table sizes 2" in run.stdout
    assert "H1 accepted: ttr-sensible-bot is better than ttr-random-bot" in run.stdout
    assert "cash" not in run.stdout  # the standings head the score column with TTR's name, not Union Pacific's
    shown = json.loads(read(capsys, "tournament", "show", "1", "--json", db=db_url))
    assert shown["game"] == TTR and shown["status"] == "finished" and shown["sprt"]["verdict"] == "H1 accepted"
    assert "game" not in shown["config"]  # the tournament row's column says it, as for a tournament
    _check_deals(db_url, 1, shown["sprt"]["counted_deals"], shown, "ttr-sensible-bot", "ttr-random-bot",
                 "ttr-random-two")
    with Store.open(db_url) as store:
        stored = store.list_matches(tournament_id=1)
        assert stored and {m.game for m in stored} == {TTR}
        assert all(len(m.references) == 0 for m in stored)  # and no imaginary shareholder
    assert "Ticket to Ride: Pennsylvania, table sizes 2" in read(capsys, "tournament", "show", "1", db=db_url)
    # resuming a finished TTR SPRT with the wrong --game is refused; with the right one it says so
    wrong = arena("tournament", "resume", "1", "--game", "union_pacific", db=db_url, check=False)
    assert wrong.returncode == 2 and f"plays {TTR}, not union_pacific" in wrong.stderr
    assert "already finished" in read(capsys, "tournament", "resume", "1", "--game", TTR, db=db_url)


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)  # on SQLite: the test above
def test_an_interrupted_sprt_resumes_where_it_stopped(db_url: str, pool_bot: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    with Store.open(db_url) as store:
        rows = resolve_bots(store, [str(SAMPLES / "greedy_bot"), str(SAMPLES / "random_bot"), pool_bot],
                            log_dir=logs)
        config = SprtConfig(candidate="greedy-bot", baseline="random-bot", pool=("random-two",), table_sizes=(2,),
                            elo0=0, elo1=400, alpha=0.1, beta=0.1, concurrency=1,
                            isolation={"level": Isolation.NONE.value},
                            files_sha256={r.name: r.files_sha256 for r in rows})
        tid = create_sprt(store, config, seed=4)
        stop = threading.Event()
        seen = []

        def on_done(outcome, report) -> None:
            seen.append(report)
            if len(seen) == 6:
                stop.set()  # as Ctrl-C does

        summary = run_sprt(store, tid, log_dir=logs, on_done=on_done, cancel=stop)
        assert not summary.complete and summary.report.counted_deals == 1  # deal 2 is half played
        assert [r.counted_deals for r in seen] == [0, 0, 0, 1, 1, 1]
        assert str(store.get_tournament(tid).status) == "interrupted"
        assert len(store.stored_schedule_indexes(tid)) == 6

    resumed = arena("tournament", "resume", str(tid), "--quiet", "--logs", str(logs), db=db_url)
    assert "6 matches already stored, 1 deals counted" in resumed.stdout
    assert "H1 accepted" in resumed.stdout
    shown = json.loads(read(capsys, "tournament", "show", str(tid), "--json", db=db_url))
    assert shown["status"] == "finished"
    _check_deals(db_url, tid, shown["sprt"]["counted_deals"], shown)
    # concurrency 1: nothing was played beyond the deciding deal
    assert shown["matches_stored"] == 4 * shown["sprt"]["counted_deals"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--candidate", "a", "--baseline", "b"), "needs --pool"),
        (("--candidate", "a", "--baseline", "b", "--pool", "a,c"), "'a' is in the pool"),
        (("--candidate", "a", "--baseline", "a", "--pool", "c"), "the same bot"),
        (("--candidate", "a", "--baseline", "b", "--pool", "c"), "table size 4 needs 3 pool bots"),
        (("--candidate", "a", "--baseline", "b", "--pool", "c", "--players", "2", "--elo0", "5", "--elo1", "5"),
         "--elo0 must be below --elo1"),
        (("--candidate", "a", "--baseline", "b", "--pool", "c", "--players", "2", "--alpha", "1.5"),
         "--alpha and --beta"),
        (("--candidate", "nobody", "--baseline", "b", "--pool", "c", "--players", "2"), "no bot named 'nobody'"),
        (("--simulate", "--runs", "0"), "--runs must be at least 1"),
        (("--game", TTR, "--candidate", "a", "--baseline", "b", "--pool", "c,d,e,f,g", "--players", "6"),
         "table size 6 is outside 2..5 (Ticket to Ride: Pennsylvania)"),
        (("--game", TTR, "--candidate", "a", "--baseline", "b", "--pool", "c", "--players", "2", "--variant", "pro"),
         "Ticket to Ride: Pennsylvania has no variant 'pro'"),
        (("--game", TTR, "--simulate", "--players", "2,6", "--runs", "1"),
         "table size 6 is outside 2..5 (Ticket to Ride: Pennsylvania)"),
    ],
)
def test_bad_input_gets_one_clear_line(tmp_path: Path, args: tuple[str, ...], message: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", *args, "--db", str(tmp_path / "a.sqlite")]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # refused before anything is played or simulated
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_simulate_prints_error_rates_and_expected_length(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = read(capsys, "sprt", "--simulate", "--players", "3", "--elo0", "0", "--elo1", "60", "--runs", "40",
               db=str(tmp_path / "a.sqlite"))
    assert "simulated table of 3: 40 tests per row" in out
    lines = [line for line in out.splitlines() if line.startswith("│")]
    assert len(lines) == 5  # five true Elo differences
    first, last = lines[0].split("│")[1:-1], lines[-1].split("│")[1:-1]
    assert first[0].strip() == "-30" and float(first[1]) < 0.2  # far below elo0: H1 rarely accepted
    assert last[0].strip() == "+90" and float(last[1]) > 0.8
    assert all(float(line.split("│")[5]) > 0 for line in lines)  # mean deals


def _config(**kwargs) -> SprtConfig:
    return SprtConfig(**{"candidate": "new", "baseline": "old", "pool": ("a", "b"), "table_sizes": (2, 3),
                         "elo0": 0, "elo1": 200, "isolation": {"level": "none"}} | kwargs)


def _places(config: SprtConfig, key: int, deals: int, new_wins: bool) -> dict[int, dict[str, int]]:
    """Finishing orders for the first ``deals`` deals: NEW first every time (or second, as OLD always is)."""
    places = {}
    for number in range(1, deals + 1):
        d = deal(config.entrants(), key, number)
        for p in d.pairings:
            bot, others = p.subset[0], list(p.subset[1:]) + (["(imaginary)"] if d.table_size == 2 else [])
            first = bot == "new" and new_wins
            order = [bot, *others] if first else [others[0], bot, *others[1:]]
            places[p.index] = {name: place for place, name in enumerate(order, start=1)}
    return places


def test_the_pending_schedule_skips_what_is_stored_and_ends_with_the_test() -> None:
    from arena.sprt import SprtProgress

    config = _config()
    stored = _places(config, 7, 3, new_wins=True)
    del stored[deal(config.entrants(), 7, 2).first_index + 1]  # deal 2 lacks one of OLD's matches
    progress = SprtProgress(config, 7, stored)
    assert progress.report().counted_deals == 1  # deal 3 is complete but waits for deal 2
    pending = progress.pending(threading.Event())
    first = [next(pending) for _ in range(3)]
    assert [p.index for p in first] == [deal(config.entrants(), 7, 2).first_index + 1,
                                        *deal(config.entrants(), 7, 4).indexes[:2]]
    # storing the missing match counts deals 2 and 3 at once
    missing = _places(config, 7, 2, new_wins=True)[first[0].index]
    assert progress.add(first[0].index, missing).counted_deals == 3
    # a NEW that always wins decides H1 within a few deals; then nothing more is pending
    more = _places(config, 7, 40, new_wins=True)
    for index in sorted(more):
        if progress.add(index, more[index]).finished:
            break
    report = progress.report()
    assert report.verdict == "H1 accepted" and report.counted_deals < 40
    assert list(progress.pending(threading.Event())) == []


def test_max_deals_ends_an_undecided_test_as_inconclusive() -> None:
    from arena.sprt import SprtProgress

    config = _config(elo1=10, max_deals=3)
    progress = SprtProgress(config, 1, _places(config, 1, 3, new_wins=False))
    report = progress.report()
    assert report.finished and report.exhausted and report.verdict == "inconclusive (--max-deals reached)"
    assert list(progress.pending(threading.Event())) == []


def test_a_bot_changed_since_the_test_started_is_refused_before_anything_runs(tmp_path: Path) -> None:
    from arena.errors import UserError

    with Store.open(str(tmp_path / "a.sqlite")) as store:
        for name in ("new", "old", "a", "b"):
            store.add_bot(name, "1", "me", "python", address="127.0.0.1:9", files_sha256="0" * 64)
        tid = create_sprt(store, _config(files_sha256={"new": "1" * 64, "old": "0" * 64}), seed=1)
        with pytest.raises(UserError, match="bot 'new' changed since this SPRT started"):
            run_sprt(store, tid, log_dir=tmp_path / "logs")
        assert store.list_matches(tournament_id=tid) == []
