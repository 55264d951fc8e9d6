"""Host speed: a decision over gRPC next to an empty gRPC call and the same decision in-process.

The decision round trip is what the match runner does for one decision of a bot:
legal actions, the observation, encoding the request (the host's own work), the
Decide call, reading the reply; it is timed first at each decision, as the runner meets it
(the in-process decision, which computes the legal actions too, is timed after the empty
call, so it does not warm the host's path).  It is timed against a bot (by default the Python
random sample bot; ``--bot`` any manifest or ``HOST:PORT``), one decision at a time,
through real games.  In the same loop, after every decision, the benchmark times an
empty call (empty request, empty reply) to a Python grpcio server that does nothing
(:mod:`arena.bench.empty_server`), over the same kind of connection: the floor any
Python gRPC decision pays on this machine at this moment.  "Transport" is the Decide
call alone (request already encoded).  The in-process figure is the same decision
made by a :class:`RandomPolicy` (legal actions included).  Beside the wall times, the CPU
time the bot's process spends per decision and the empty server per empty call (all their
threads, from ``/proc``): on a loaded machine the steadier comparison of the bot's side.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.games import DEFAULT_GAME, get_game
from arena.host.client import SeatClient, channel_options, encoder_for
from arena.host.codec import ObservationEncoder
from arena.host.clock import Clocks
from arena.host.manifest import BotSpec, parse_bot_spec
from arena.host.match import MatchConfig, run_match
from arena.host.process import free_port
from arena.host.pool import BotPool
from arena.policies import RandomPolicy, play_in_process
from arena.protocol import REPO_ROOT
from arena.v1 import bot_pb2

#: The bot the benchmark talks to by default.
RANDOM_SAMPLE = REPO_ROOT / "sample_bots" / "python" / "random_bot" / "bot.toml"


@dataclass(frozen=True)
class HostFigures:
    bot: str
    decisions: int
    grpc_p50_us: float  # host's own work + Decide round trip + reply read
    grpc_p99_us: float
    transport_p50_us: float  # the Decide call alone
    transport_p99_us: float
    host_p50_us: float  # the host's own work before sending: legal actions, observation, encoding
    host_p99_us: float
    host_mean_us: float
    empty_p50_us: float  # an empty Python grpcio call, timed in the same loop
    empty_p99_us: float
    local_p50_us: float  # legal actions + RandomPolicy, in-process
    local_p99_us: float
    match_players: int
    matches: int
    match_grpc_ms: float  # median whole match, one bot process per seat
    match_local_ms: float  # median whole match, in-process random policies
    #: CPU time (all threads) of the bot's process per decision, and of the empty server per empty
    #: call, over the timed decisions (None where it cannot be read: a bot at an address, no /proc).
    #: Unlike wall times these hardly move with the machine's load.
    bot_cpu_us: float | None = None
    empty_cpu_us: float | None = None
    #: The host's own work split (p50 of each part): the engine's legal actions, and the request
    #: (the observation written from the state, the legal actions' bytes, the head).
    legal_p50_us: float = 0.0
    request_p50_us: float = 0.0

    @property
    def floor_ratio(self) -> float:
        """The decision's p50 over the empty call's p50 (1.0: the host and the bot add nothing)."""
        return self.grpc_p50_us / self.empty_p50_us


def _cpu_ns(pids: list[int]) -> int | None:
    """CPU time (ns) of every thread of ``pids`` so far (``/proc/PID/task/TID/schedstat``), or None."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return None
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that just ended
    return total if pids else None


def _cpu_per_call(before: int | None, after: int | None, calls: int) -> float | None:
    return (after - before) / 1000 / calls if before is not None and after is not None and calls else None


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class _EmptyServer:
    """The empty-call server in a process of its own, and a channel to it like a bot's."""

    def __init__(self) -> None:
        self.address = f"127.0.0.1:{free_port()}"
        self.process = subprocess.Popen([sys.executable, "-m", "arena.bench.empty_server", "--address",
                                         self.address], stdin=subprocess.PIPE)
        self.channel = grpc.insecure_channel(self.address, options=channel_options())
        self.call = self.channel.unary_unary("/arena.v1.Bot/Decide")
        deadline = time.monotonic() + 10.0
        while True:
            try:
                self.call(b"", timeout=1.0)
                return
            except grpc.RpcError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.close()
                    raise RuntimeError("the empty gRPC server did not start") from None
                time.sleep(0.05)

    def close(self) -> None:
        self.channel.close()
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _seat_copies(spec: BotSpec, players: int) -> list[BotSpec]:
    """One spec per seat, each its own process (a manifest under a distinct key), same bot."""
    manifest = spec.manifest
    if manifest is None:
        return [spec] * players  # a bot at an address: one process, whatever we do
    return [BotSpec(manifest=dataclasses.replace(manifest, path=manifest.path.with_name(f"{manifest.path.name}#{s}")))
            for s in range(players)]


def bench_host(bot: str | Path | BotSpec = RANDOM_SAMPLE, *, decisions: int = 2000, matches: int = 5,
               players: int = 4, seed: int = 0, game_name: str = DEFAULT_GAME) -> HostFigures:
    """Measure the figures with ``bot`` (a manifest, a folder holding ``bot.toml``, ``HOST:PORT``
    or a :class:`BotSpec`; default: the Python random sample bot) playing ``game_name``."""
    game = get_game(game_name)
    spec = bot if isinstance(bot, BotSpec) else parse_bot_spec(str(bot))
    clocks = Clocks(decision_ms=10_000, bank_ms=0)
    grpc_times: list[float] = []
    wire_times: list[float] = []
    host_times: list[float] = []
    legal_times: list[float] = []
    request_times: list[float] = []
    local_times: list[float] = []
    empty_times: list[float] = []
    empty = _EmptyServer()
    try:
        with tempfile.TemporaryDirectory(prefix="arena-bench-host-") as tmp:
            with BotPool(log_dir=Path(tmp) / "logs") as pool:
                handle = pool.acquire(spec)
                bot_pids = handle.process.bot_pids() if handle.process is not None else []
                cpu_start = (_cpu_ns(bot_pids), _cpu_ns([empty.process.pid]))
                encoder = encoder_for(game)
                game_no = 0
                while len(grpc_times) < decisions:
                    state = game.new_state(players, seed + game_no)
                    match_id = f"bench-{game_no}"
                    observations = ObservationEncoder()  # one per match, as the match runner has
                    clients = [SeatClient(handle.connection, match_id=match_id, seat=s, clocks=clocks,
                                          encoder=encoder, observations=observations) for s in range(players)]
                    for s, client in enumerate(clients):
                        fault = client.start_match(bot_pb2.StartMatchRequest(
                            match_id=match_id, seat=s, num_players=players, variant="standard", game=game.name))
                        if fault is not None:
                            raise RuntimeError(f"the bot refused StartMatch: {fault[1]}")
                    local = RandomPolicy(game_no)
                    while not state.is_terminal() and len(grpc_times) < decisions:
                        seat = state.current_seats()[0]
                        client = clients[seat]
                        # The host's path first, as the match runner meets it (nothing of it ran since
                        # the last decision); the in-process figure after the empty call.
                        t1 = time.perf_counter()
                        legal = state.legal_actions(seat)
                        t1b = time.perf_counter()
                        payload = client.payload(state, len(state.history), None, legal)  # as the match runner does
                        t2 = time.perf_counter()
                        decision = client.decide(payload, len(legal))
                        t3 = time.perf_counter()
                        empty.call(b"", timeout=10.0)
                        t4 = time.perf_counter()
                        local(state, seat, state.legal_actions(seat))
                        t5 = time.perf_counter()
                        if decision.index is None:
                            raise RuntimeError(f"the bot failed a decision: {decision.fault}")
                        local_times.append(t5 - t4)
                        grpc_times.append(t3 - t1)
                        wire_times.append(t3 - t2)
                        host_times.append(t2 - t1)
                        legal_times.append(t1b - t1)
                        request_times.append(t2 - t1b)
                        empty_times.append(t4 - t3)
                        state.apply_action(seat, legal[decision.index])
                    game_no += 1
                cpu_end = (_cpu_ns(bot_pids), _cpu_ns([empty.process.pid]))

            # Whole matches: one process per seat, against in-process play.
            specs = _seat_copies(spec, players)
            grpc_matches: list[float] = []
            local_matches: list[float] = []
            with BotPool(log_dir=Path(tmp) / "logs") as pool:
                for s in dict.fromkeys(specs):
                    pool.acquire(s)
                for i in range(matches):
                    t0 = time.perf_counter()
                    run_match(pool, specs, seed=seed + i, config=MatchConfig(clocks=Clocks()), game=game)
                    t1 = time.perf_counter()
                    play_in_process(game.new_state(players, seed + i),
                                    [RandomPolicy(i * 10 + s) for s in range(players)])
                    t2 = time.perf_counter()
                    grpc_matches.append(t1 - t0)
                    local_matches.append(t2 - t1)
    finally:
        empty.close()
    us = 1e6
    return HostFigures(
        bot=spec.label,
        decisions=len(grpc_times),
        grpc_p50_us=_percentile(grpc_times, 0.5) * us, grpc_p99_us=_percentile(grpc_times, 0.99) * us,
        transport_p50_us=_percentile(wire_times, 0.5) * us, transport_p99_us=_percentile(wire_times, 0.99) * us,
        host_p50_us=_percentile(host_times, 0.5) * us, host_p99_us=_percentile(host_times, 0.99) * us,
        host_mean_us=statistics.mean(host_times) * us,
        empty_p50_us=_percentile(empty_times, 0.5) * us, empty_p99_us=_percentile(empty_times, 0.99) * us,
        local_p50_us=_percentile(local_times, 0.5) * us, local_p99_us=_percentile(local_times, 0.99) * us,
        match_players=players, matches=matches,
        match_grpc_ms=statistics.median(grpc_matches) * 1000 if grpc_matches else 0.0,
        match_local_ms=statistics.median(local_matches) * 1000 if local_matches else 0.0,
        bot_cpu_us=_cpu_per_call(cpu_start[0], cpu_end[0], len(grpc_times)),
        empty_cpu_us=_cpu_per_call(cpu_start[1], cpu_end[1], len(grpc_times)),
        legal_p50_us=_percentile(legal_times, 0.5) * us, request_p50_us=_percentile(request_times, 0.5) * us,
    )
