"""Host speed: a decision over gRPC next to the same decision in-process, and whole matches.

The decision round trip is what the match runner does for one decision of a bot:
build the observation, encode the request, call Decide, read the reply.  It is
timed against the Python random sample bot, one decision at a time, through
real games; "transport" is the Decide call alone (request already encoded).
The in-process figure is the same decision made by a :class:`RandomPolicy`
(legal actions included on both sides).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.games import get_game
from arena.host.client import SeatClient, encoder_for
from arena.host.clock import Clocks
from arena.host.manifest import BotSpec, load_manifest
from arena.host.match import MatchConfig, run_match
from arena.host.process import BotPool
from arena.policies import RandomPolicy, play_in_process
from arena.protocol import REPO_ROOT
from arena.v1 import bot_pb2

#: The bot the benchmark talks to.
RANDOM_SAMPLE = REPO_ROOT / "sample_bots" / "python" / "random_bot" / "bot.toml"


@dataclass(frozen=True)
class HostFigures:
    decisions: int
    grpc_p50_us: float  # observation + encode + Decide round trip + reply read
    grpc_p99_us: float
    transport_p50_us: float  # the Decide call alone
    transport_p99_us: float
    host_p50_us: float  # the host's own work before sending: legal actions, observation, encoding
    host_p99_us: float
    local_p50_us: float  # legal actions + RandomPolicy, in-process
    local_p99_us: float
    match_players: int
    matches: int
    match_grpc_ms: float  # median whole match, one bot process per seat
    match_local_ms: float  # median whole match, in-process random policies


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_host(manifest: str | Path = RANDOM_SAMPLE, *, decisions: int = 2000, matches: int = 5,
               players: int = 4, seed: int = 0) -> HostFigures:
    """Measure the figures with the bot of ``manifest`` (default: the Python random sample bot)."""
    game = get_game("union_pacific")
    bot = load_manifest(manifest)
    clocks = Clocks(decision_ms=10_000, bank_ms=0)
    grpc_times: list[float] = []
    wire_times: list[float] = []
    host_times: list[float] = []
    local_times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-host-") as tmp:
        with BotPool(log_dir=Path(tmp) / "logs", verify_describe=False) as pool:  # one bot under several names
            handle = pool.acquire(BotSpec(manifest=bot))
            encoder = encoder_for(game)
            game_no = 0
            while len(grpc_times) < decisions:
                state = game.new_state(players, seed + game_no)
                match_id = f"bench-{game_no}"
                clients = [SeatClient(handle.connection, match_id=match_id, seat=s, clocks=clocks, encoder=encoder)
                           for s in range(players)]
                for s, client in enumerate(clients):
                    client.start_match(bot_pb2.StartMatchRequest(match_id=match_id, seat=s, num_players=players,
                                                                 variant="standard", game=game.name))
                local = RandomPolicy(game_no)
                while not state.is_terminal() and len(grpc_times) < decisions:
                    seat = state.current_seats()[0]
                    client = clients[seat]
                    t0 = time.perf_counter()
                    legal = state.legal_actions(seat)
                    local(state, seat, legal)
                    t1 = time.perf_counter()
                    legal = state.legal_actions(seat)
                    payload = client.payload(state, len(state.history), state.observation(seat), legal)
                    t2 = time.perf_counter()
                    decision = client.decide(payload, len(legal))
                    t3 = time.perf_counter()
                    if decision.index is None:
                        raise RuntimeError(f"the bot failed a decision: {decision.fault}")
                    local_times.append(t1 - t0)
                    grpc_times.append(t3 - t1)
                    wire_times.append(t3 - t2)
                    host_times.append(t2 - t1)
                    state.apply_action(seat, legal[decision.index])
                game_no += 1

        # Whole matches: one process per seat (copies of the manifest), against in-process play.
        specs = []
        for s in range(players):
            copy = Path(tmp) / f"bot-{s}" / "bot.toml"
            copy.parent.mkdir()
            command = ", ".join(f'"{part}"' for part in bot.command)
            copy.write_text(f'name = "{bot.name}-{s}"\nversion = "{bot.version}"\nlanguage = "{bot.language}"\n'
                            f'command = [{command}]\nworking_dir = "{bot.working_dir}"\n')
            specs.append(BotSpec(manifest=load_manifest(copy)))
        grpc_matches: list[float] = []
        local_matches: list[float] = []
        with BotPool(log_dir=Path(tmp) / "logs", verify_describe=False) as pool:  # one bot under several names
            for spec in specs:
                pool.acquire(spec)
            for i in range(matches):
                t0 = time.perf_counter()
                run_match(pool, specs, seed=seed + i, config=MatchConfig(clocks=Clocks()))
                t1 = time.perf_counter()
                play_in_process(game.new_state(players, seed + i), [RandomPolicy(i * 10 + s) for s in range(players)])
                t2 = time.perf_counter()
                grpc_matches.append(t1 - t0)
                local_matches.append(t2 - t1)
    us = 1e6
    return HostFigures(
        decisions=len(grpc_times),
        grpc_p50_us=_percentile(grpc_times, 0.5) * us, grpc_p99_us=_percentile(grpc_times, 0.99) * us,
        transport_p50_us=_percentile(wire_times, 0.5) * us, transport_p99_us=_percentile(wire_times, 0.99) * us,
        host_p50_us=_percentile(host_times, 0.5) * us, host_p99_us=_percentile(host_times, 0.99) * us,
        local_p50_us=_percentile(local_times, 0.5) * us, local_p99_us=_percentile(local_times, 0.99) * us,
        match_players=players, matches=matches,
        match_grpc_ms=statistics.median(grpc_matches) * 1000, match_local_ms=statistics.median(local_matches) * 1000,
    )
