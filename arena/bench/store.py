"""``arena bench store``: fill a store with realistic matches and time the web pages on it.

Realistic matches without playing a million games: a few dozen real games are
played in-process (the engine with random and greedy policies, every table size
2-6) and their replays kept as templates; each stored match takes one template of
its table size with a fresh match id, its own bots in the seats (stronger bots
more often in the better placed seats, so the ratings have something to find),
a deck seed of its deal (a deal is played in every seat rotation, as tournaments
do) and now and then a fault.  The matches go through ``Store.record_matches`` (a
batch a transaction, with record_match's checks): each replay is encoded and
compressed like any other.

Then the pages and endpoints are timed over HTTP (``arena serve`` on 127.0.0.1): once
cold (the first request fits the ratings of its scope), ``repeat`` times warm (median
and 90th percentile; the server keeps its answers until the data change) and
``repeat`` times made afresh (``Cache-Control: no-cache``: what a view costs right
after a match is stored); then one more match is stored and the leaderboard timed
again (the refit a new result costs, then warm again).
Optionally, ``arena serve`` is started on 127.0.0.1 and loaded by parallel
clients: latency percentiles and the server's resident memory.
"""

from __future__ import annotations

import functools
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bench.greedy import direct_view, load_greedy_strategy
from arena.games import game_spec, get_game
from arena.policies import RandomPolicy
from arena.records import Fault, FaultReason, MatchRecord, MatchTermination, ReferenceResult, SeatResult
from arena.replay import build_replay

BOT_PREFIX = "bench-"
T0 = 1_700_000_000.0  # the first match's start (2023-11-14)
GAP_S = 7.0  # between two matches' starts
FAULT_RATE = 0.005  # share of seats with a (timeout) fault
_MATCH = "__BENCH_MATCH__"
BATCH = 500  # matches stored per transaction


def _seat_token(seat: int) -> str:
    return f"__BENCH_SEAT_{seat}__"


@dataclass(frozen=True)
class Template:
    """One real game: its replay as JSON text with the match id and seat names left as tokens."""

    players: int
    cash: dict[str, int]
    places: dict[str, int]  # "0".."n-1" and, two-player, "imaginary"
    termination: str
    text: str
    decisions: int

    @functools.cached_property
    def parsed(self) -> dict[str, Any]:
        return json.loads(self.text)

    def replay_for(self, match_id: str, names: Sequence[str]) -> dict[str, Any]:
        """The replay with ``match_id`` and the seats' ``names`` in place of the tokens.  Only the
        parts naming them (``seats``, ``match``) are new objects; the rest (board, actions,
        events: read-only to the store, which encodes it) is the template's."""
        small = json.dumps({"seats": self.parsed["seats"], "match": self.parsed["match"]})
        small = small.replace(_MATCH, match_id)
        for seat, name in enumerate(names):
            small = small.replace(_seat_token(seat), json.dumps(name)[1:-1])
        return {**self.parsed, **json.loads(small)}


def play_templates(games_per_size: int = 8, seed: int = 0) -> dict[int, list[Template]]:
    """``games_per_size`` real games at each table size 2-6, half with a greedy seat."""
    game = get_game("union_pacific")
    choose = load_greedy_strategy().choose
    found: dict[int, list[Template]] = {}
    for players in range(2, 7):
        for k in range(games_per_size):
            game_seed = seed * 1000 + players * 100 + k
            state = game.new_state(players, game_seed, "standard")
            greedy = k % players if k % 2 == 0 else None
            randoms = {s: RandomPolicy(game_seed * 8 + s) for s in range(players)}
            while not state.is_terminal():
                for seat in state.current_seats():
                    actions = state.legal_actions(seat)
                    if seat == greedy:
                        observation, legal = direct_view(state, seat, actions)
                        action = actions[choose(observation, legal)]
                    else:
                        action = randoms[seat](state, seat, actions)
                    state.apply_action(seat, action)
            outcome = state.outcome()
            names = [_seat_token(s) for s in range(players)]
            match = {"match_id": _MATCH, "termination": outcome.termination.value, "cash": dict(outcome.cash),
                     "places": dict(outcome.places), "forfeited_seats": [], "faults": [], "forfeits": [],
                     "restarts": [], "debug": [], "notes": [],
                     "seats": [{"seat": s, "bot": n, "kind": "bot", "version": "1.0.0"} for s, n in enumerate(names)],
                     "isolation": {"level": "sandbox", "fresh_processes": True,
                                   "limits": {"memory_mb": 1024, "pids": 128, "cpus": 1}}}
            replay = build_replay(game, state, seed=game_seed, variant="standard", seats=names, match=match)
            found.setdefault(players, []).append(Template(
                players=players, cash=dict(outcome.cash), places=dict(outcome.places),
                termination=outcome.termination.value, text=json.dumps(replay, separators=(",", ":")),
                decisions=len(state.history)))
    return found


@dataclass
class Filler:
    """Makes the records of one benchmark run: deals played in every rotation by bots of
    known strength."""

    templates: dict[int, list[Template]]
    bots: list[str]
    seed: int = 0
    rng: random.Random = field(init=False)
    strength: dict[str, float] = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.strength = {b: i / max(1, len(self.bots) - 1) for i, b in enumerate(self.bots)}

    def deal(self, first_id: str, started_at: float) -> list[MatchRecord]:
        """The matches of one deal: a table size, a subset of bots and a deck seed, in every
        seat rotation (ids ``first_id/0``, ``/1``...)."""
        rng = self.rng
        players = rng.choice(range(2, 7))
        chosen = rng.sample(self.bots, players)
        deck_seed = rng.getrandbits(62)
        records = []
        for rotation in range(players):
            template = rng.choice(self.templates[players])
            seating = chosen[rotation:] + chosen[:rotation]
            # the stronger bot (plus noise) takes the better placed seat
            by_place = sorted(range(players), key=lambda s: template.places[str(s)])
            by_strength = sorted(seating, key=lambda b: -(self.strength[b] + rng.gauss(0, 0.6)))
            who = dict(zip(by_place, by_strength))
            match_id = f"{first_id}/{rotation}"
            replay = template.replay_for(match_id, [who[s] for s in range(players)])
            seats = []
            for s in range(players):
                faults: tuple[Fault, ...] = ()
                if rng.random() < FAULT_RATE:
                    faults = (Fault(s, rng.randrange(template.decisions), FaultReason.TIMEOUT,
                                    "no reply within 1.0 s"),)
                seats.append(SeatResult(seat=s, bot=who[s], score=template.cash[str(s)],
                                        place=template.places[str(s)], forfeited=False, faults=faults))
            references = tuple(ReferenceResult(name, template.cash[name], template.places[name])
                               for name in game_spec("union_pacific").reference(players))
            start = started_at + rotation * GAP_S
            records.append(MatchRecord(
                match_id=match_id, game="union_pacific", seed=deck_seed, variant="standard", players=players,
                seats=tuple(seats), termination=MatchTermination(template.termination),
                replay=replay, started_at=start, duration_s=round(rng.uniform(0.3, 3.0), 3),
                references=references, extra={"decisions": template.decisions}))
        return records


def ensure_bots(store: Any, count: int) -> list[str]:
    """Bots ``bench-00``... registered (by manifest path: nothing is ever started), their
    current versions' participant names."""
    from leaderboard.errors import UnknownBotError

    names = []
    for i in range(count):
        name = f"{BOT_PREFIX}{i:02d}"
        try:
            row = store.get_bot(name)
        except UnknownBotError:
            row = store.add_bot(name, "1.0.0", "arena bench store", "python",
                                manifest_path=f"bench/{name}/bot.toml", files_sha256=f"{i:064x}")
        names.append(row.participant)
    return names


def fill(store: Any, matches: int, *, bots: int = 20, tournaments: int = 4, seed: int = 0,
         templates: dict[int, list[Template]] | None = None,
         progress: Callable[[int], None] | None = None, batch_size: int = BATCH) -> list[int]:
    """Store about ``matches`` matches (whole deals: up to 5 more) in ``tournaments`` new
    finished tournaments, through ``Store.record_matches`` (``batch_size`` matches a
    transaction); returns the tournaments' ids."""
    from leaderboard.rows import TournamentStatus

    templates = templates if templates is not None else play_templates(seed=seed)
    names = ensure_bots(store, bots)
    run = f"{random.Random().getrandbits(32):08x}"  # match ids unique across runs on one database
    filler = Filler(templates, names, seed)
    config = {"bots": names, "table_sizes": [2, 3, 4, 5, 6], "rounds": max(1, matches // (4 * tournaments)),
              "bench": True}
    ids = [store.create_tournament("union_pacific", config, seed + k) for k in range(tournaments)]
    index = dict.fromkeys(ids, 0)
    done = deal = 0
    started = T0 + store_offset(store)
    batch: list[tuple[int, int, int, MatchRecord]] = []
    while done < matches:
        tid = ids[deal % len(ids)]
        for record in filler.deal(f"b{run}-t{tid}-{deal:07d}", started + done * GAP_S):
            batch.append((tid, index[tid], index[tid] // 50, record))
            index[tid] += 1
            done += 1
        deal += 1
        if len(batch) >= batch_size or done >= matches:
            store.record_matches(batch)
            batch = []
            if progress is not None:
                progress(done)
    for tid in ids:
        store.set_tournament_status(tid, TournamentStatus.FINISHED)
    return ids


def store_offset(store: Any) -> float:
    """Seconds after :data:`T0` past the newest stored match (a second run appends in time)."""
    from leaderboard import match_lists

    newest = match_lists.match_page(store, limit=1).items
    return 0.0 if not newest else newest[0].started_at.timestamp() - T0 + 3600


# -- timing -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    path: str
    cold_ms: float
    median_ms: float
    p90_ms: float
    bytes: int
    status: int
    fresh_ms: float | None = None  # median made afresh (the cache passed by), when asked


def _times(get: Callable[[str], tuple[int, int]], path: str, repeat: int) -> list[float]:
    found = []
    for _ in range(repeat):
        start = time.perf_counter()
        get(path)
        found.append((time.perf_counter() - start) * 1000)
    return sorted(found)


def _time(get: Callable[[str], tuple[int, int]], path: str, repeat: int,
          fresh: Callable[[str], tuple[int, int]] | None = None, cold: float | None = None) -> Timing:
    start = time.perf_counter()
    status, size = get(path)
    cold = (time.perf_counter() - start) * 1000 if cold is None else cold
    warm = _times(get, path, repeat)
    afresh = None if fresh is None else statistics.median(_times(fresh, path, repeat))
    return Timing(path, cold, statistics.median(warm), warm[min(len(warm) - 1, int(0.9 * len(warm)))], size, status,
                  afresh)


def time_paths(get: Callable[[str], tuple[int, int]], paths: Sequence[str], repeat: int,
               fresh: Callable[[str], tuple[int, int]] | None = None,
               settle: Callable[[], None] | None = None) -> list[Timing]:
    """Each path cold, then ``repeat`` times warm, then (with ``fresh``, a ``get`` that passes
    the server's cache by) ``repeat`` times made afresh; ``get`` answers (status, body bytes).
    ``settle``: called after every path's cold view and before the warm ones (to wait for the
    rating fits the cold views started, so that warm means warm)."""
    colds = []
    for path in paths:
        start = time.perf_counter()
        get(path)
        colds.append((time.perf_counter() - start) * 1000)
    if settle is not None:
        settle()
    return [_time(get, path, repeat, fresh, cold) for path, cold in zip(paths, colds)]


def bench_paths(store: Any, bot: str, tournament: int, match_id: str) -> list[str]:
    """The pages and endpoints to time: every kind of page, scoped and not, and the lists."""
    from urllib.parse import quote

    from leaderboard import match_lists

    deep = match_lists.match_page(store, tournament_id=tournament, limit=500)
    for _ in range(3):  # a cursor some pages in
        if deep.next_cursor is None:
            break
        deep = match_lists.match_page(store, tournament_id=tournament, limit=500, cursor=deep.next_cursor)
    b = quote(bot, safe="")
    paths = [
        "/", "/api/leaderboard", f"/tournaments/{tournament}", f"/api/leaderboard?tournament={tournament}",
        "/?players=4", f"/bots/{b}", f"/api/bots/{b}", f"/bots/{b}?tournament={tournament}",
        f"/matches/{quote(match_id, safe='')}", f"/api/matches/{quote(match_id, safe='')}",
        "/api/matches", f"/api/matches?bot={b}", f"/api/matches?tournament={tournament}&limit=500",
        f"/matches?bot={b}", "/bots", "/api/bots", "/tournaments", "/api/tournaments",
        f"/api/tournaments/{tournament}/progress",
    ]
    if deep.next_cursor is not None:
        paths.append(f"/api/matches?tournament={tournament}&cursor={deep.next_cursor}")
    return paths


@dataclass(frozen=True)
class ServeFigures:
    clients: int
    requests: int
    errors: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    rss_mb: float  # resident memory at the end
    peak_rss_mb: float  # the most it held (VmHWM)
    seconds: float


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> tuple[float, float]:
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) / 1024
    return found.get("VmRSS", 0.0), found.get("VmHWM", 0.0)


class Server:
    """``arena serve`` over ``db_url`` on 127.0.0.1 (a free port), in a child process;
    use as a context manager (it is stopped at the end)."""

    def __init__(self, db_url: str, timeout: float = 300.0, options: Sequence[str] = ()) -> None:
        self.db_url = db_url
        self.options = list(options)  # more ``arena serve`` options
        self.timeout = timeout
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "Server":
        command = [sys.executable, "-c", "from arena.cli.main import main; raise SystemExit(main())",
                   "serve", "--db", self.db_url, "--port", str(self.port), *self.options]
        from leaderboard.database import SQLITE_SYNCHRONOUS_ENV

        env = {k: v for k, v in os.environ.items() if k != SQLITE_SYNCHRONOUS_ENV}  # it serves as users have it
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get("/api/board?game=union_pacific")
                return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise RuntimeError("arena serve did not start") from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            if self.process.stderr is not None:
                self.process.stderr.close()
            self.process = None

    def get(self, path: str, *, fresh: bool = False) -> tuple[int, int]:
        """(status, body bytes) of GET ``path``; an HTTP error status is an answer too.
        ``fresh``: ask with ``Cache-Control: no-cache`` (the server makes the answer again)."""
        request = urllib.request.Request(self.base + path, headers={"Cache-Control": "no-cache"} if fresh else {})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, len(response.read())
        except urllib.error.HTTPError as error:
            return error.code, len(error.read())

    def json(self, path: str) -> Any:
        """The JSON answer to GET ``path``."""
        with urllib.request.urlopen(self.base + path, timeout=self.timeout) as response:
            return json.loads(response.read())

    def wait_for_fit(self, path: str = "/api/leaderboard", *, limit_s: float = 3600.0) -> dict[str, Any]:
        """Ask ``path`` until its rating fit counts every stored match (a refit runs in the
        server's background); its ``fit`` (matches, age, ``fit_s``: how long the fit took)."""
        deadline = time.monotonic() + limit_s
        while True:
            fit = self.json(path)["fit"]
            if (fit["behind"] == 0 and not fit.get("fitting")) or time.monotonic() > deadline:
                return dict(fit)
            time.sleep(0.5)

    def rss_mb(self) -> tuple[float, float]:
        """The server's resident memory now and at its peak (VmRSS, VmHWM), MB."""
        assert self.process is not None
        return _rss_mb(self.process.pid)


def load(server: Server, paths: Sequence[str], *, clients: int = 10, requests: int = 20,
         fresh: bool = False) -> ServeFigures:
    """``clients`` threads asking ``requests`` paths each (round robin, each thread starting
    elsewhere in ``paths``), at the same time; ``fresh``: every answer made afresh
    (``Cache-Control: no-cache``, as when a match has just been stored)."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def client(k: int) -> None:
        for i in range(requests):
            path = paths[(k + i) % len(paths)]
            start = time.perf_counter()
            try:
                status, _ = server.get(path, fresh=fresh)
            except OSError:
                status = 0
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                if status != 200:
                    errors[0] += 1
                latencies.append(elapsed)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    rss, peak = server.rss_mb()
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")

    return ServeFigures(clients, len(latencies), errors[0], pct(0.5), pct(0.9), pct(0.99),
                        latencies[-1] if latencies else float("nan"), rss, peak, seconds)


__all__ = ["Filler", "ServeFigures", "Template", "Timing", "Server", "bench_paths", "ensure_bots", "fill",
           "load", "play_templates", "time_paths"]
