"""Tournament throughput: four Python random bots in 4-player tables, at several
concurrencies, and where the time goes (engine, host, bots).

Each run is a real tournament: bot processes over gRPC, a real SQLite file, the
trio executor.  CPU time is read from the operating system: the host process's
own (``RUSAGE_SELF``) and that of every process it starts (:class:`arena.bench.cpu.TreeCpu`:
a cpuacct cgroup where the host may make one, which also counts sandboxes killed as a
whole and those the zygote starts; else ``RUSAGE_CHILDREN``, which misses them).  The
engine's part of the host's time is measured by
re-doing the engine work of every stored match in-process (legal actions,
observation and apply at every decision, as the host does); the host's part is the
rest of its CPU time (gRPC, encoding, clocks, the store).  Shares are CPU seconds
per wall second, so on two cores they may add up to more than 100 %.
"""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from arena.bench.cpu import TreeCpu
from arena.games import get_game
from arena.host.sandbox import IsolationPolicy
from arena.registry import register_bot
from arena.tournaments import TournamentConfig, create_tournament, run_tournament
from leaderboard.store import Store

RANDOM_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random_bot"


@dataclass(frozen=True)
class TournamentFigures:
    isolation: str
    concurrency: int
    matches: int
    wall_s: float
    matches_per_min: float
    engine_share: float  # engine CPU / wall
    host_share: float  # host CPU other than the engine / wall
    bots_share: float  # bot processes' CPU / wall (their sandboxes and the zygote included)
    cpu_per_match_ms: float  # all of it, per match
    exact: bool  # whether the bots' CPU is exact (a cpuacct cgroup), else a lower bound


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _engine_seconds(store: Store, tournament_id: int) -> float:
    """Re-do the host's engine work for every stored match of the tournament."""
    game = get_game("union_pacific")
    total = 0.0
    for row in store.list_matches(tournament_id=tournament_id):
        replay = store.get_match(row.id).replay
        assert replay is not None
        start = time.process_time()
        state = game.new_state(replay["players"], replay["seed"], replay["variant"])
        for entry in replay["actions"]:
            seat = entry["seat"]
            state.legal_actions(seat)
            state.observation(seat)
            state.apply_action(seat, state.string_to_action(entry["action"]))
        total += time.process_time() - start
    return total


def bench_tournament(concurrencies: Sequence[int] = (1, 2, 4), rounds: int = 8, seed: int = 0,
                     isolations: Sequence[str] = ("none",)) -> list[TournamentFigures]:
    """One tournament per (concurrency, isolation), the isolations alternating at each
    concurrency so that both see the same machine."""
    figures = []
    for concurrency, isolation in [(c, i) for c in concurrencies for i in isolations]:
        with tempfile.TemporaryDirectory(prefix="arena-bench-tournament-") as tmp:
            root = Path(tmp)
            with Store.open(f"sqlite:///{root / 'bench.sqlite'}") as store:
                names = []
                for letter in "abcd":
                    folder = root / f"random-{letter}"
                    shutil.copytree(RANDOM_BOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
                    manifest = folder / "bot.toml"
                    for file in (manifest, folder / "bot.py"):  # the manifest and Describe agree
                        file.write_text(file.read_text().replace('name = "random-bot"', f'name = "random-{letter}"'))
                    row, _ = register_bot(store, str(manifest), log_dir=root / "logs", check=False,
                                          policy=IsolationPolicy.none())
                    names.append(row.name)
                config = TournamentConfig(bots=tuple(names), table_sizes=(4,), rounds=rounds,
                                          concurrency=concurrency, isolation={"level": isolation})
                tid = create_tournament(store, config, seed)
                with TreeCpu() as tree:
                    self_before = _cpu(resource.RUSAGE_SELF)
                    start = time.perf_counter()
                    summary = run_tournament(store, tid, log_dir=root / "logs")
                    wall = time.perf_counter() - start
                    host_cpu = _cpu(resource.RUSAGE_SELF) - self_before
                    total_cpu = tree.seconds()
                bots_cpu = max(total_cpu - host_cpu, 0.0)
                if not summary.complete:
                    raise RuntimeError(f"the benchmark tournament did not complete: {summary.failed}")
                engine = _engine_seconds(store, tid)
                figures.append(TournamentFigures(
                    isolation=isolation, concurrency=concurrency, matches=summary.played, wall_s=wall,
                    matches_per_min=summary.played / wall * 60, engine_share=engine / wall,
                    host_share=max(host_cpu - engine, 0.0) / wall, bots_share=bots_cpu / wall,
                    cpu_per_match_ms=(host_cpu + bots_cpu) / max(summary.played, 1) * 1000, exact=tree.exact))
    return figures
