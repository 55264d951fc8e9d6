"""The benchmarks run and report sane figures (speed itself is printed by `arena bench`, never asserted)."""

from __future__ import annotations

import os
import re

import pytest

from arena.bench.engine import bench_engine
from arena.bench.tournament import bench_tournament
from arena.cli.main import main
from arena.games.union_pacific import default_game
from arena.host.sandbox import sandbox_available


def test_bench_engine_counts_games_and_decisions() -> None:
    f = bench_engine(default_game(), players=3, games=5, seed=1)
    assert f.games == 5 and f.decisions_per_game > 50
    assert f.games_per_s > 0 and f.decisions_per_s > f.games_per_s and f.median_ms > 0


def test_bench_instructions_counts_each_part_in_the_same_games() -> None:
    """The callgrind worker (valgrind itself is not needed here): every part plays the same games."""
    from arena.bench.instructions import PARTS, play

    decisions = {part: play(players=3, games=2, part=part) for part in PARTS}
    assert len(set(decisions.values())) == 1 and decisions["all"] > 50


def test_bench_tournament_plays_a_real_tournament() -> None:
    (f,) = bench_tournament((2,), rounds=1)
    assert f.concurrency == 2 and f.matches == 4  # C(4,4) * 4 rotations
    assert f.matches_per_min > 0 and f.wall_s > 0
    assert f.engine_share > 0 and f.host_share >= 0 and f.bots_share > 0  # every part measured
    assert f.cpu_per_match_ms > 0


def test_bench_engine_command_prints_every_table_size(capsys) -> None:
    assert main(["bench", "engine", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert all(f"│       {k} │" in out for k in range(2, 7))


def test_the_tree_cpu_counts_a_process_killed_before_anyone_waited_for_it() -> None:
    """What rusage misses: a grandchild that spins, then dies of SIGKILL with its parent unwaited."""
    import signal
    import subprocess
    import sys
    import time

    from arena.bench.cpu import TreeCpu

    spin = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\ntime.sleep(60)"
    with TreeCpu() as tree:
        parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys, time\n"
                                   f"subprocess.Popen([sys.executable, '-c', {spin!r}])\ntime.sleep(60)"],
                                  start_new_session=True)
        time.sleep(1.5)
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
        used = tree.seconds()
    if not tree.exact:
        pytest.skip("no cpuacct cgroup can be made here (cgroup v1 as root): only rusage, which misses it")
    assert used >= 0.25, f"the grandchild's 0.3 s of CPU were not counted: {used:.3f} s"


@pytest.mark.skipif(not sandbox_available() and os.environ.get("CI") != "true", reason="no sandbox here")
def test_bench_start_times_every_way_a_bot_starts() -> None:
    from arena.bench.isolation import START_WAYS, bench_start

    f = bench_start(starts=1)
    assert set(f.ready_ms) == set(f.cpu_ms) == set(START_WAYS)
    assert all(value > 0 for value in [*f.ready_ms.values(), *f.cpu_ms.values()])


def test_bench_ratings_fits_a_synthetic_history_and_checks_it(capsys) -> None:
    from leaderboard.ratings_bench import bench_ratings

    f = bench_ratings(3000, bots=5, resamples=50, seed=1)
    assert 2900 <= f.matches <= 3100 and f.participants == 6 and f.deals < f.matches  # deals of several rotations
    assert f.method == "refit" and f.order_correct and f.max_error < 60 and f.fit_s > 0
    assert main(["bench", "ratings", "--matches", "2000", "--bots", "4", "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "whole fit with 20 bootstrap resamples (refit)" in out and "order right" in out
    assert re.search(r"fit of 1,9\d\d matches: [\d.]+ s wall", out)
