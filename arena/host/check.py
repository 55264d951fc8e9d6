"""The compliance check a bot author runs before submitting a bot (``arena bot check``).

Steps: the manifest loads; the bot starts and answers Describe within the limit;
Describe's fields are filled in, its protocol version is supported and it plays
the game checked (``game``, by default the default game); it plays a few matches
of that game (the smallest, a middle and the largest table size) against Arena's random opponent bot within the clocks with zero faults
-- matches a bot cannot tell from a tournament's: real opponent processes (sandboxed
like it), random match ids and deck seeds, the tournament clocks;
it exits on stdin EOF and on SIGTERM within a few seconds.  A bot given by address
runs elsewhere: the start-up and shut-down steps are skipped.
"""

from __future__ import annotations

import secrets
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from arena.games import DEFAULT_GAME, game_spec, get_game
from arena.host.clock import Clocks
from arena.host.manifest import BotSpec, ManifestError, load_manifest, parse_bot_spec
from arena.host.match import MatchConfig, run_match
from arena.host.process import BotPool, BotProcess, BotStartError, start_bot
from arena.opponents import RANDOM_OPPONENT
from arena.records import FaultReason
from arena.host.sandbox import IsolationPolicy
from arena.protocol import PROTOCOL_VERSION



def check_table_sizes(game: str) -> tuple[int, ...]:
    """Table sizes of the check's matches: the game's smallest, a middle and its largest (the bot
    sits in a different seat in each)."""
    spec = game_spec(game)
    low, high = spec.min_players, spec.max_players
    return tuple(dict.fromkeys((low, (low + high + 1) // 2, high)))


#: The default game's table sizes.
CHECK_TABLE_SIZES = check_table_sizes(DEFAULT_GAME)


@dataclass(frozen=True)
class CheckStep:
    """One step: ``ok`` is True (passed), False (failed) or None (skipped)."""

    name: str
    ok: bool | None
    detail: str


@dataclass(frozen=True)
class CheckReport:
    """The steps run, in order; :attr:`passed` when none failed."""

    bot: str
    steps: tuple[CheckStep, ...]
    describe: dict[str, object] | None = None
    log_path: Path | None = None

    @property
    def passed(self) -> bool:
        return bool(self.steps) and all(step.ok is not False for step in self.steps)

    @property
    def failed(self) -> CheckStep | None:
        """The first step that failed, if any."""
        return next((step for step in self.steps if step.ok is False), None)


@dataclass
class _Steps:
    progress: Callable[[CheckStep], None] | None
    steps: list[CheckStep] = field(default_factory=list)

    def add(self, name: str, ok: bool | None, detail: str) -> bool:
        step = CheckStep(name, ok, detail)
        self.steps.append(step)
        if self.progress is not None:
            self.progress(step)
        return ok is not False


def check_bot(
    spec: BotSpec | str,
    *,
    log_dir: str | Path | None = None,
    ready_timeout: float = 10.0,
    clocks: Clocks | None = None,
    table_sizes: Sequence[int] | None = None,
    seed: int | None = None,
    shutdown_timeout: float = 3.0,
    progress: Callable[[CheckStep], None] | None = None,
    policy: IsolationPolicy | None = None,
    game: str = DEFAULT_GAME,
) -> CheckReport:
    """Run the compliance check on a manifest (path or :class:`BotSpec`) or a ``HOST:PORT``, for
    ``game`` (a registered game's name; ``table_sizes`` default to :func:`check_table_sizes`).

    ``progress`` is called with every step as soon as it is done.  Never raises for
    a bad bot: every problem is a failed step of the report.
    """
    steps = _Steps(progress)
    table_sizes = tuple(table_sizes) if table_sizes is not None else check_table_sizes(game)
    if seed is None:  # random, as a tournament's deals are: the check must not be recognisable
        seed = secrets.randbelow(1 << 62)
    if isinstance(spec, str):
        try:
            spec = parse_bot_spec(spec)
        except ManifestError as exc:
            steps.add("manifest", False, str(exc))
            return CheckReport(spec, tuple(steps.steps))
    if spec.manifest is not None:
        m = spec.manifest
        steps.add("manifest", True, f"{m.path}: {m.name} {m.version} ({m.language}), command {list(m.command)}")
    else:
        steps.add("manifest", None, f"skipped: the bot runs elsewhere, at {spec.address}")
    clocks = clocks if clocks is not None else Clocks()
    logs = Path(log_dir) if log_dir is not None else Path(tempfile.mkdtemp(prefix="arena-check-"))
    describe: dict[str, object] | None = None
    with BotPool(log_dir=logs, ready_timeout=ready_timeout, stop_timeout=shutdown_timeout,
                 max_start_failures=1, policy=policy, game=game, verify_describe=False) as pool:
        log_path = pool.log_path(spec)
        started = time.monotonic()
        try:
            handle = pool.acquire(spec)
        except BotStartError as exc:
            steps.add("start", False, str(exc))
            return CheckReport(spec.label, tuple(steps.steps), None, log_path)
        took = time.monotonic() - started
        where = f"pid {handle.process.pid}, {handle.connection.address}" if handle.process else spec.address
        steps.add("start", True, f"answered Describe {took:.2f} s after start ({where}; limit {ready_timeout:g} s)")

        d = handle.describe
        describe = {"name": d.name, "version": d.version, "author": d.author, "language": d.language,
                    "games": list(d.games), "protocol_version": d.protocol_version}
        problems = [f"field {key!r} is empty" for key in ("name", "version", "language") if not describe[key]]
        if d.protocol_version != PROTOCOL_VERSION:
            problems.append(f"protocol_version is {d.protocol_version}; this host speaks {PROTOCOL_VERSION}")
        if game not in d.games:
            problems.append(f"games {list(d.games)} does not include {game!r}, the game checked (list it in "
                            "Describe's games, or check another game with --game)")
        if spec.manifest is not None and d.name and d.name != spec.manifest.name:
            problems.append(f"name {d.name!r} is not the manifest's {spec.manifest.name!r} (the host refuses a "
                            "bot that answers as someone else)")
        if problems:
            steps.add("describe", False, "; ".join(problems))
            return CheckReport(spec.label, tuple(steps.steps), describe, log_path)
        steps.add("describe", True, f"{d.name} {d.version} by {d.author or '?'} ({d.language}), games "
                                    f"{list(d.games)}, protocol {d.protocol_version}")
        pool.verify_describe = True  # from here on, as in a tournament

        _check_matches(pool, spec, steps, clocks, table_sizes, seed, game)

        if handle.process is not None and spec.manifest is not None:
            handle.connection.close()
            _check_stdin_eof(handle.process, steps, shutdown_timeout)
            _check_sigterm(spec, steps, logs, log_path, ready_timeout, shutdown_timeout, pool.policy, game)
        else:
            steps.add("shutdown", None, "skipped: the bot runs elsewhere")
    return CheckReport(spec.label, tuple(steps.steps), describe, log_path)


def _check_matches(pool: BotPool, spec: BotSpec, steps: _Steps, clocks: Clocks, table_sizes: Sequence[int],
                   seed: int, game: str) -> None:
    config = MatchConfig(clocks=clocks)
    opponent = BotSpec(manifest=load_manifest(RANDOM_OPPONENT))
    slowest = 0.0
    decisions = 0
    for i, size in enumerate(table_sizes):
        seat = i % size
        # Like a tournament match in every way a bot can see: real opponent processes, a
        # random id, a random deck seed, the same clocks and start request.
        seats = [spec if s == seat else opponent for s in range(size)]
        name = f"match {i + 1} ({size} players, seat {seat})"
        try:
            record = run_match(pool, seats, seed=(seed + i) % (1 << 63), config=config, game=get_game(game))
        except Exception as exc:  # noqa: BLE001 - a host-side failure is reported, not raised
            steps.add(name, False, f"the match could not be played: {type(exc).__name__}: {exc}")
            return
        broken = [f for s in record.seats if s.seat != seat for f in s.faults if f.reason is FaultReason.NOT_READY]
        if broken:
            steps.add(name, False, f"the check's own opponent could not start (a problem of this host, not of "
                                   f"the bot): {broken[0].detail}")
            return
        mine = record.seats[seat]
        clock = next(s for s in record.replay["match"]["seats"] if s["seat"] == seat).get("clock", {})
        slowest = max(slowest, clock.get("max_decision_ms", 0.0))
        decisions += clock.get("decisions", 0)
        summary = (f"{clock.get('decisions', 0)} decisions, slowest {clock.get('max_decision_ms', 0):.1f} ms, "
                   f"mean {clock.get('mean_decision_ms', 0):.1f} ms, score {mine.score}, place {mine.place}")
        if mine.faults:
            listed = "; ".join(f"decision {f.decision}: {f.reason.value}: {f.detail}" for f in mine.faults[:5])
            more = f" (and {len(mine.faults) - 5} more)" if len(mine.faults) > 5 else ""
            forfeit = ", forfeited" if mine.forfeited else ""
            steps.add(name, False, f"{len(mine.faults)} fault(s){forfeit}: {listed}{more}")
            return
        steps.add(name, True, summary)


def _check_stdin_eof(process: BotProcess, steps: _Steps, timeout: float) -> None:
    process.close_stdin()
    started = time.monotonic()
    status = process.wait(timeout)
    if status is None:
        steps.add("exit on stdin EOF", False, f"still running {timeout:g} s after its stdin was closed: a bot "
                                              "must watch stdin and exit at EOF (the host is gone)")
    else:
        steps.add("exit on stdin EOF", True, f"exited (status {status}) {time.monotonic() - started:.2f} s "
                                             "after its stdin was closed")


def _check_sigterm(spec: BotSpec, steps: _Steps, logs: Path, log_path: Path | None, ready_timeout: float,
                   timeout: float, policy: IsolationPolicy, game: str) -> None:
    assert spec.manifest is not None
    try:
        process, connection, _ = start_bot(spec.manifest, log_path=log_path or logs / "bot.log",
                                           ready_timeout=ready_timeout, stop_timeout=timeout, policy=policy,
                                           game=game)
    except BotStartError as exc:
        steps.add("exit on SIGTERM", False, f"could not start it a second time: {exc}")
        return
    connection.close()
    try:
        process.signal_bot(signal.SIGTERM)
        started = time.monotonic()
        status = process.wait(timeout)
        if status is None:
            steps.add("exit on SIGTERM", False, f"still running {timeout:g} s after SIGTERM")
        else:
            steps.add("exit on SIGTERM", True, f"exited (status {status}) {time.monotonic() - started:.2f} s "
                                               "after SIGTERM")
    finally:
        process.stop(timeout)
