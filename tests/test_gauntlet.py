"""The gauntlet format end to end: real bot processes, a real database, the real `arena`
command; an interrupted gauntlet resumes with exactly its scheduled matches."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from math import comb
from pathlib import Path

import pytest

from arena.host.sandbox import Isolation
from arena.tournaments import TournamentConfig, create_tournament, resolve_bots, run_tournament
from leaderboard.store import Store

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots" / "python"


def arena(*args: str, db: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", *args, "--db", db], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def copy_of_random_bot(tmp_path: Path, name: str) -> str:
    folder = tmp_path / name
    shutil.copytree(SAMPLES / "random_bot", folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file in (folder / "bot.toml", folder / "bot.py"):  # the manifest and Describe agree
        file.write_text(file.read_text().replace('name = "random-bot"', f'name = "{name}"'))
    return str(folder)


@pytest.fixture
def field(tmp_path: Path) -> list[str]:
    return [str(SAMPLES / "random_bot"), copy_of_random_bot(tmp_path, "random-two"),
            copy_of_random_bot(tmp_path, "random-three")]


@pytest.mark.slow
@pytest.mark.parametrize("db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)  # on SQLite: the resume test below
def test_gauntlet_plays_the_candidate_against_the_field_only(db_url: str, field: list[str], tmp_path: Path) -> None:
    run = arena("tournament", "run", "--gauntlet", str(SAMPLES / "greedy_bot"),
                *[a for b in field for a in ("--bot", b)], "--players", "2,4", "--seed", "5",
                "--isolation", "none", "--quiet", "--logs", str(tmp_path / "logs"), db=db_url)
    total = comb(3, 1) * 2 + comb(3, 3) * 4  # 10, where a round robin of 4 bots has 16
    assert f"played {total} matches" in run.stdout
    assert "gauntlet of greedy-bot against 3 bots" in run.stdout
    shown = json.loads(arena("tournament", "show", "1", "--json", db=db_url).stdout)
    assert shown["config"]["gauntlet"] == "greedy-bot"
    assert shown["matches_scheduled"] == total and shown["status"] == "finished"
    assert all("greedy-bot@1" in m["seats"] for m in shown["matches"])
    pairs = {tuple(sorted(m["seats"])) for m in shown["matches"] if m["table_size"] == 2}
    assert pairs == {tuple(sorted(("greedy-bot@1", f"{b}@1"))) for b in ("random-bot", "random-two", "random-three")}
    text = arena("tournament", "show", "1", db=db_url).stdout
    assert "gauntlet of greedy-bot" in text


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # on PostgreSQL: the test above
def test_an_interrupted_gauntlet_resumes_with_exactly_its_matches(db_url: str, field: list[str],
                                                                  tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with Store.open(db_url) as store:
        rows = resolve_bots(store, [str(SAMPLES / "greedy_bot"), *field], log_dir=logs)
        config = TournamentConfig(bots=tuple(r.name for r in rows), table_sizes=(2, 3), gauntlet="greedy-bot",
                                  isolation={"level": Isolation.NONE.value}, concurrency=1)
        tid = create_tournament(store, config, seed=9)
        stop = threading.Event()
        done: list[int] = []

        def on_done(outcome) -> None:
            done.append(outcome.pairing.index)
            if len(done) == 4:
                stop.set()  # as Ctrl-C does: the running match stops, nothing unfinished is stored

        summary = run_tournament(store, tid, log_dir=logs, on_done=on_done, cancel=stop)
        assert summary.cancelled
        assert str(store.get_tournament(tid).status) == "interrupted"
        before = len(store.stored_schedule_indexes(tid))
    total = comb(3, 1) * 2 + comb(3, 2) * 3  # 15
    assert before == 4

    resumed = arena("tournament", "resume", str(tid), "--quiet", "--logs", str(logs), db=db_url)
    assert f"{before} of {total} matches already stored" in resumed.stdout
    with Store.open(db_url) as store:
        matches = store.list_matches(tournament_id=tid)
        assert sorted(m.schedule_index for m in matches) == list(range(total))  # each once
        assert all("greedy-bot@1" in {s.bot for s in m.seats} for m in matches)
        assert str(store.get_tournament(tid).status) == "finished"
