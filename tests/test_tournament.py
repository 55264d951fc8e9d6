"""Tournaments end to end: real bot processes over gRPC, a real database (SQLite and
PostgreSQL), the real `arena` command in a subprocess; Ctrl-C, kill -9 and resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from itertools import combinations
from math import comb
from pathlib import Path

import pytest

from leaderboard.store import Store

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots" / "python"


def arena(*args: str, db: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", *args, "--db", db], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture
def bots(tmp_path: Path) -> list[str]:
    """Four Python bots: random, investor, and two renamed copies of the random bot."""
    out = [str(SAMPLES / "random_bot"), str(SAMPLES / "investor_bot")]
    for name in ("random-two", "random-three"):
        folder = tmp_path / name
        shutil.copytree(SAMPLES / "random_bot", folder, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = folder / "bot.toml"
        for file in (folder / "bot.toml", folder / "bot.py"):  # the manifest and Describe agree
            file.write_text(file.read_text().replace('name = "random-bot"', f'name = "{name}"'))
        out.append(str(folder))
    return out


def _show(db: str, tid: int) -> dict:
    return json.loads(arena("tournament", "show", str(tid), "--json", db=db).stdout)


def test_round_robin_stores_every_scheduled_match_once(db_url: str, bots: list[str], tmp_path: Path) -> None:
    run = arena("tournament", "run", *[a for b in bots[:3] for a in ("--bot", b)], "--players", "2,3",
                "--concurrency", "2", "--seed", "7", "--decision-ms", "2000", "--quiet",
                "--logs", str(tmp_path / "logs"), db=db_url)
    assert "played 9 matches" in run.stdout
    shown = _show(db_url, 1)
    assert shown["status"] == "finished"
    assert shown["matches_scheduled"] == comb(3, 2) * 2 + comb(3, 3) * 3 == 9
    assert sorted(m["schedule_index"] for m in shown["matches"]) == list(range(9))
    assert all(m["status"] == "finished" for m in shown["matches"])
    # duplicate format: the rotations of one subset share a deck seed
    by_subset: dict[tuple, set[int]] = {}
    for m in shown["matches"]:
        by_subset.setdefault((m["table_size"], tuple(sorted(m["seats"]))), set()).add(m["seed"])
    assert all(len(seeds) == 1 for seeds in by_subset.values())

    with Store.open(db_url) as store:
        stored = store.list_matches(tournament_id=1)
        assert len(stored) == 9
        two = [m for m in stored if m.table_size == 2]
        assert len(two) == 6 and all([r.name for r in m.references] == ["imaginary"] for m in two)
        replay = store.get_match(stored[0].id).replay
        assert replay["format"] == "arena-replay" and replay["match"]["match_id"] == stored[0].id

    board = json.loads(arena("leaderboard", "--tournament", "1", "--json", db=db_url).stdout)
    names = {row["name"] for row in board}
    assert {"random-bot@1", "investor-bot@1", "random-two@1", "(imaginary)"} <= names
    assert [row["rank"] for row in board if not row["reference"]] == [1, 2, 3]
    assert sum(row["matches"] for row in board if not row["reference"]) == 6 * 2 + 3 * 3
    # the cross-table, against the stored results counted by hand
    cross = json.loads(arena("leaderboard", "--tournament", "1", "--cross", "--json", db=db_url).stdout)
    assert [row["name"] for row in cross["leaderboard"]] == [row["name"] for row in board]
    by_hand: dict[tuple[str, str], list[int]] = {}
    for m in stored:
        places = m.rated_places
        for a, b in combinations(sorted(places), 2):
            counts = by_hand.setdefault((a, b), [0, 0, 0, 0])
            counts[0] += 1
            counts[1 if places[a] < places[b] else 2 if places[a] > places[b] else 3] += 1
    assert {(p["a"], p["b"]): [p["meetings"], p["ahead"], p["behind"], p["tied"]]
            for p in cross["cross_table"]} == by_hand
    text = arena("leaderboard", "--tournament", "1", "--cross", db=db_url).stdout
    assert "cross-table · tournament 1" in text and "rank by this" in text and "match by match" in text
    # one table size on its own
    two = json.loads(arena("leaderboard", "--tournament", "1", "--players", "2", "--json", db=db_url).stdout)
    assert sum(row["matches"] for row in two if not row["reference"]) == 6 * 2
    three = json.loads(arena("leaderboard", "--tournament", "1", "--players", "3", "--json", db=db_url).stdout)
    assert [row["matches"] for row in three] == [3, 3, 3]  # no imaginary shareholder at three
    listed = json.loads(arena("tournament", "list", "--json", db=db_url).stdout)
    assert [(t["id"], t["matches_stored"], t["matches_scheduled"]) for t in listed] == [(1, 9, 9)]


def _bot_pids(marker: str) -> set[int]:
    """Live processes whose command line mentions ``marker`` (the bots of one test)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                status = (entry / "status").read_text()
            except OSError:
                continue
            if marker in cmdline and "\nState:\tZ" not in status:
                pids.add(int(entry.name))
    return pids


def _describe_processes(pids: set[int]) -> str:
    """What is known of these processes, for a failure message."""
    lines = []
    for pid in sorted(pids):
        try:
            status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                          if ":\t" in line)
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cgroup = Path(f"/proc/{pid}/cgroup").read_text().replace("\n", " ")
        except OSError:
            continue
        lines.append(f"pid {pid} ppid {status.get('PPid')} state {status.get('State')}: {cmdline[:200]} | {cgroup}")
    return "left running:\n" + "\n".join(lines)


def _stored(db: str, tid: int) -> int:
    with Store.open(db) as store:
        return len(store.stored_schedule_indexes(tid))


# Each way of stopping on one backend (suite time); both backends' claims and records are
# proved by tests/test_queue.py and tests/test_workers.py.
@pytest.mark.parametrize(("db_url", "how"), [("sqlite", "sigkill"), pytest.param("postgres", "sigint",
                                                                                  marks=pytest.mark.postgres)],
                         indirect=["db_url"])
def test_a_killed_tournament_resumes_with_exactly_the_scheduled_matches(
        db_url: str, bots: list[str], tmp_path: Path, how: str) -> None:
    marker = str(tmp_path)  # the copied bots live here, so their command lines mention it
    args = [sys.executable, "-m", "arena.cli.main", "tournament", "run",
            *[a for b in bots for a in ("--bot", b)], "--players", "2,4", "--concurrency", "2", "--seed", "3",
            "--quiet", "--logs", str(tmp_path / "logs"), "--db", db_url]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    total = comb(4, 2) * 2 + comb(4, 4) * 4  # 16
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"the tournament ended before it was killed:\n{proc.stdout.read()}\n{proc.stderr.read()}")
            try:
                if _stored(db_url, 1) >= 3:
                    break
            except Exception:  # noqa: BLE001 - the database may not exist yet
                pass
            time.sleep(0.05)
        assert _bot_pids(marker), "the copied bots should be running"
        proc.send_signal(signal.SIGKILL if how == "sigkill" else signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    if how == "sigint":
        assert proc.returncode == 130, err
        assert "arena tournament resume 1" in out + err
    before = _stored(db_url, 1)
    assert 3 <= before < total
    deadline = time.monotonic() + 10
    while _bot_pids(marker) and time.monotonic() < deadline:  # no orphans, even after kill -9
        time.sleep(0.1)
    assert not _bot_pids(marker), _describe_processes(_bot_pids(marker))

    resumed = arena("tournament", "resume", "1", "--quiet", "--logs", str(tmp_path / "logs"), db=db_url)
    assert f"{before} of {total} matches already stored" in resumed.stdout
    shown = _show(db_url, 1)
    assert shown["status"] == "finished"
    assert sorted(m["schedule_index"] for m in shown["matches"] if m["status"] == "finished") == list(range(total))
    with Store.open(db_url) as store:
        assert len(store.list_matches(tournament_id=1)) == total  # each once: nothing counted twice


def test_run_refuses_bad_input_with_one_clear_line(tmp_path: Path, bots: list[str]) -> None:
    db = str(tmp_path / "a.sqlite")
    unknown = arena("tournament", "run", "--bot", "nobody", "--bot", bots[0], db=db, check=False)
    assert unknown.returncode == 2 and "no bot named 'nobody'" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    too_big = arena("tournament", "run", "--bot", bots[0], "--bot", bots[1], "--players", "3",
                    "--logs", str(tmp_path / "logs"), db=db, check=False)
    assert too_big.returncode == 2 and "table size 3" in too_big.stderr.lower()
    missing = arena("tournament", "show", "42", db=db, check=False)
    assert missing.returncode == 2 and "42" in missing.stderr and "Traceback" not in missing.stderr
    assert os.path.exists(db)
