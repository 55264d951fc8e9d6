"""``arena bench ...``: benchmarks that print figures."""

from __future__ import annotations

import argparse
import statistics
import time

from arena.cli.console import make_console
from rich.table import Table

from arena.cli.errors import UserError
from arena.cli.game_option import add_game_option, chosen_games


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="benchmarks that print figures", description="Benchmarks that print figures.")
    bsub = p.add_subparsers(dest="bench_command", metavar="WHAT", required=True)
    e = bsub.add_parser("engine", help="random games per second at each table size",
                        description="Random games with the legal actions enumerated at every decision, "
                                    "for each table size of the game (--game; 'all': every game, one table each), "
                                    "on one core (process CPU time).")
    add_game_option(e, allow_all=True, what="the game whose engine is measured")
    e.add_argument("--games", type=int, default=300, help="games per table size (default 300)")
    e.add_argument("--seed", type=int, default=0)
    e.set_defaults(func=run_engine)

    h = bsub.add_parser("host", help="decision round trip over gRPC vs an empty gRPC call and in-process",
                        description="The decision round trip over gRPC (p50, p99 in microseconds) with a bot (by "
                                    "default the Python random sample bot), the host's own part of it, and an empty "
                                    "Python gRPC call timed in the same loop (the floor); the same decision "
                                    "in-process; a whole 4-player match with one process of the bot per seat over "
                                    "gRPC next to the same match in-process.")
    add_game_option(h)
    h.add_argument("--bot", metavar="MANIFEST", default=None,
                   help="the bot to time: a bot.toml (or its folder) or HOST:PORT (default: the Python random "
                        "sample bot; for another --game, Arena's own random opponent, which plays every game)")
    h.add_argument("--decisions", type=int, default=2000, help="decisions to time (default 2000)")
    h.add_argument("--matches", type=int, default=5, help="whole matches to time (default 5; 0: none)")
    h.set_defaults(func=run_host)

    t = bsub.add_parser("tournament", help="matches per minute at concurrency 1, 2 and 4",
                        description="Four Python random bots in 4-player tables (a real tournament on a temporary "
                                    "SQLite file) at each concurrency: matches per minute, and the CPU time of the "
                                    "engine, the host and the bots as a share of wall time.")
    t.add_argument("--rounds", type=int, default=8, help="rounds of 4 matches per concurrency (default 8)")
    t.add_argument("--concurrency", default="1,2,4", help="concurrencies to measure (default 1,2,4)")
    t.add_argument("--isolation", default="sandbox,none",
                   help="isolation levels to compare, alternating in one run (default sandbox,none)")
    t.add_argument("--repeat", type=int, default=1,
                   help="measure everything this many times, interleaved; with both isolation levels, the "
                        "sandboxed/unsandboxed ratio per concurrency is given as min / median / max (default 1)")
    t.set_defaults(func=run_tournament_bench)

    w = bsub.add_parser("workers", help="matches/min with 1, 2, 3 worker processes on one database; claim overhead",
                        description="Matches per minute with K local 'arena worker' processes (one match each at "
                                    "a time) on one database, the runs alternating K (e.g. 1,2,3,3,2,1); and the "
                                    "queue's cost per match: the claim plus the lease check of the recording "
                                    "transaction (median over --claims synthetic matches, next to a plain "
                                    "record). Adds tournaments to the database: give a scratch one with --db "
                                    "(PostgreSQL to measure what several machines would share; default: a "
                                    "temporary SQLite file).")
    w.add_argument("--workers", default="1,2,3", help="worker counts to measure (default 1,2,3)")
    w.add_argument("--rounds", type=int, default=2, help="rounds of 9 matches per measurement (default 2)")
    w.add_argument("--claims", type=int, default=300, help="synthetic matches for the claim overhead (default 300)")
    w.add_argument("--db", default=None, metavar="URL", help="a scratch database (default: a temporary SQLite file)")
    w.set_defaults(func=run_workers_bench)

    iso = bsub.add_parser("isolation", help="the sandbox's cost (bot start) and what it buys (a CPU hog's effect)",
                          description="Bot start time sandboxed vs not, and the mean decision time of a bot that "
                                      "thinks (fixed CPU work) against a random bot and against a CPU hog, "
                                      "sandboxed (the hog is frozen between its decisions) and not.")
    iso.add_argument("--starts", type=int, default=10, help="bot starts per isolation level (default 10)")
    iso.add_argument("--matches", type=int, default=4, help="2-player matches per measurement (default 4)")
    iso.set_defaults(func=run_isolation)

    r = bsub.add_parser("ratings", help="the batch rating fit on a synthetic history of known strengths",
                        description="Makes about N matches among bots of known strength (Plackett-Luce draws, table "
                                    "sizes 2-6, every deal in all its seat rotations, the imaginary shareholder at "
                                    "two-player tables) and times the batch fit with its bootstrap "
                                    "intervals, as the leaderboard runs it; then checks the fit against the truth.")
    r.add_argument("--matches", type=int, default=100_000, help="matches to fit (default 100000)")
    r.add_argument("--bots", type=int, default=20, help="bots (default 20)")
    r.add_argument("--resamples", type=int, default=200, help="bootstrap resamples (default 200, as the leaderboard)")
    r.add_argument("--seed", type=int, default=0)
    r.set_defaults(func=run_ratings)

    st = bsub.add_parser("store", help="fill a store with N realistic matches and time the web pages on it",
                         description="Plays a few real games (random and greedy policies, table sizes 2-6) and "
                                     "stores N matches made from their replays through the store's own API (new "
                                     "ids, bots, deck seeds; every deal in all its seat rotations), then starts "
                                     "'arena serve' on 127.0.0.1 and times every kind of page and endpoint: cold "
                                     "(the first view of a scope fits its ratings) and warm (median, 90th "
                                     "percentile), the refit one new match costs, storage per match, and latency "
                                     "and memory with parallel clients. Without --db the store is a temporary "
                                     "SQLite file, deleted at the end; with --db the matches are added to it "
                                     "(run again to grow it: 20,000 then 80,000 more gives 100,000; --matches 0 times it as it is, "
                                     "but for the one deal stored to time the refit).")
    st.add_argument("--matches", type=int, required=True, metavar="N", help="matches to add (whole deals: a few more; 0: none, with --db)")
    st.add_argument("--db", metavar="URL", default=None,
                    help="the store to fill and time (default: a temporary SQLite file); never your default store")
    st.add_argument("--bots", type=int, default=20, help="bots (default 20)")
    st.add_argument("--tournaments", type=int, default=4, help="new tournaments the matches are spread over (default 4)")
    st.add_argument("--repeat", type=int, default=20, help="warm requests per page (default 20)")
    st.add_argument("--clients", type=int, default=10, help="parallel clients (default 10; 0: none)")
    st.add_argument("--requests", type=int, default=20, help="requests per parallel client (default 20)")
    st.add_argument("--seed", type=int, default=0)
    st.set_defaults(func=run_store)

    g = bsub.add_parser("greedy", help="the greedy sample bot's win rate against random players",
                        description="The greedy sample bot against random players, in-process but with every "
                                    "decision passed through the protocol codec as the SDK would: wins (a shared "
                                    "first place counts), 95% interval, mean place and mean lead, per table size.")
    g.add_argument("--players", default="2,3,4", help="table sizes (default 2,3,4)")
    g.add_argument("--matches", type=int, default=200, help="matches per table size (default 200)")
    g.add_argument("--seed", type=int, default=0)
    g.set_defaults(func=run_greedy)


def run_engine(args: argparse.Namespace) -> int:
    from arena.bench.engine import bench_engine  # the engines load here, not for 'arena --help'
    from arena.games import get_game

    if args.games < 1:
        raise UserError("--games must be at least 1")
    console = make_console()
    for name in chosen_games(args):
        game = get_game(name)
        table = Table(title=f"engine, {game.spec.title}: {args.games} random games per table size, legal actions "
                            "at every decision")
        for col in ("players", "median ms/game", "games/s", "decisions/s", "decisions/game"):
            table.add_column(col, justify="right")
        with console.status(f"playing {name}..."):
            for players in game.spec.seat_counts:
                f = bench_engine(game, players, args.games, args.seed)
                table.add_row(str(players), f"{f.median_ms:.2f}", f"{f.games_per_s:.0f}", f"{f.decisions_per_s:,.0f}",
                              f"{f.decisions_per_game:.0f}")
        console.print(table)
    return 0


def run_host(args: argparse.Namespace) -> int:
    from arena.bench.host import RANDOM_SAMPLE, bench_host
    from arena.games import DEFAULT_GAME
    from arena.host.manifest import ManifestError, parse_bot_spec
    from arena.host.process import BotStartError
    from arena.opponents import RANDOM_OPPONENT

    if args.decisions < 1 or args.matches < 0:
        raise UserError("--decisions must be at least 1 and --matches at least 0")
    default = RANDOM_SAMPLE if args.game == DEFAULT_GAME else RANDOM_OPPONENT
    try:
        spec = parse_bot_spec(args.bot if args.bot is not None else str(default))
    except ManifestError as exc:
        raise UserError(str(exc)) from None
    console = make_console()
    try:
        with console.status(f"timing decisions of {spec.label} and empty calls over gRPC..."):
            f = bench_host(spec, decisions=args.decisions, matches=args.matches, game_name=args.game)
    except (BotStartError, RuntimeError) as exc:
        raise UserError(f"bench host: {exc}") from None
    table = Table(title=f"host, {args.game}: {f.decisions} decisions with {f.bot}")
    for col in ("", "p50", "p99"):
        table.add_column(col, justify="right" if col else "left")
    table.add_row("decision over gRPC (host's work, Decide, reply)", f"{f.grpc_p50_us:,.0f} µs",
                  f"{f.grpc_p99_us:,.0f} µs")
    table.add_row("  of which the Decide call alone", f"{f.transport_p50_us:,.0f} µs", f"{f.transport_p99_us:,.0f} µs")
    table.add_row("  of which the host's own work (legal actions, observation, encoding)", f"{f.host_p50_us:,.0f} µs",
                  f"{f.host_p99_us:,.0f} µs")
    table.add_row("empty gRPC call, same loop (the floor)", f"{f.empty_p50_us:,.0f} µs", f"{f.empty_p99_us:,.0f} µs")
    table.add_row("same decision in-process (random policy)", f"{f.local_p50_us:,.0f} µs", f"{f.local_p99_us:,.0f} µs")
    console.print(table)
    console.print(f"decision / empty call (p50): {f.floor_ratio:.2f}x; the host's own work: p50 {f.host_p50_us:,.0f} µs, "
                  f"mean {f.host_mean_us:,.0f} µs (p50 of its parts: legal actions {f.legal_p50_us:,.0f} µs, the request "
                  f"{f.request_p50_us:,.0f} µs)")
    if f.bot_cpu_us is not None and f.empty_cpu_us is not None:
        console.print(f"CPU per call (all threads): the bot {f.bot_cpu_us:,.0f} µs per decision, the empty server "
                      f"{f.empty_cpu_us:,.0f} µs per empty call ({f.bot_cpu_us / f.empty_cpu_us:.2f}x)")
    if f.matches:
        console.print(f"whole {f.match_players}-player match (median of {f.matches}): {f.match_grpc_ms:,.0f} ms over "
                      f"gRPC with {f.match_players} bot processes, {f.match_local_ms:,.1f} ms in-process")
    return 0


def run_tournament_bench(args: argparse.Namespace) -> int:
    from arena.bench.tournament import bench_tournament

    try:
        levels = [int(x) for x in args.concurrency.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--concurrency takes numbers like 1,2,4, got {args.concurrency!r}") from None
    if not levels or min(levels) < 1 or args.rounds < 1 or args.repeat < 1:
        raise UserError("--concurrency values, --rounds and --repeat must be at least 1")
    isolations = [x.strip() for x in args.isolation.split(",") if x.strip()]
    if not isolations or any(x not in ("sandbox", "none") for x in isolations):
        raise UserError(f"--isolation takes sandbox, none or both (sandbox,none), got {args.isolation!r}")
    if "sandbox" in isolations:
        from arena.host.sandbox import SandboxUnavailable, require_sandbox

        try:
            require_sandbox()
        except SandboxUnavailable as exc:
            raise UserError(str(exc)) from None
    console = make_console()
    table = Table(title="tournament: four Python random bots, 4-player tables",
                  caption="wall time includes starting the bot processes (sandboxed: a fresh process per seat of "
                          "every match, started ahead while matches play); CPU/match: every process, bots' "
                          "sandboxes and the zygote included; shares: CPU seconds per wall second (two cores: "
                          "they may sum past 100 %)")
    for col in ("isolation", "concurrency", "matches", "wall s", "matches/min", "CPU/match", "engine", "host", "bots"):
        table.add_column(col, justify="right")
    rates: dict[tuple[int, str], list[float]] = {}
    with console.status("running benchmark tournaments..."):
        figures = [f for _ in range(args.repeat)
                   for f in bench_tournament(levels, rounds=args.rounds, isolations=isolations)]
        for f in figures:
            rates.setdefault((f.concurrency, f.isolation), []).append(f.matches_per_min)
            table.add_row(f.isolation, str(f.concurrency), str(f.matches), f"{f.wall_s:.1f}",
                          f"{f.matches_per_min:.0f}", f"{f.cpu_per_match_ms:.0f} ms", f"{f.engine_share:.0%}",
                          f"{f.host_share:.0%}", f"{f.bots_share:.0%}" + ("" if f.exact else " (at least)"))
    console.print(table)
    for c in levels:
        if (c, "sandbox") in rates and (c, "none") in rates:
            # Each sandboxed run against the unsandboxed one that ran right after it.
            ratios = sorted(s / n for s, n in zip(rates[(c, "sandbox")], rates[(c, "none")]))
            if len(ratios) == 1:
                said = f"{ratios[0]:.0%}"
            else:
                said = (f"{statistics.median(ratios):.0%} (median of {len(ratios)}; min {ratios[0]:.0%}, "
                        f"max {ratios[-1]:.0%})")
            console.print(f"concurrency {c}: sandboxed at {said} of unsandboxed (goal: at least 60 %)")
    return 0


def run_isolation(args: argparse.Namespace) -> int:
    from arena.bench.isolation import bench_fairness, bench_start
    from arena.host.sandbox import SandboxUnavailable, require_sandbox

    if args.starts < 1 or args.matches < 1:
        raise UserError("--starts and --matches must be at least 1")
    try:
        require_sandbox()
    except SandboxUnavailable as exc:
        raise UserError(str(exc)) from None
    console = make_console()
    with console.status("starting bots..."):
        s = bench_start(args.starts)
    starts = Table(title=f"bot start: the Python random bot until it answers Describe, then stopped ({s.starts} each)",
                   caption="CPU: every process of the start and the stop (host, zygote, sandbox, bot)"
                           + ("" if s.exact else "; a lower bound here: no cpuacct cgroup could be made"))
    for col in ("started by", "ready (median)", "CPU per start"):
        starts.add_column(col, justify="right" if col != "started by" else "left")
    labels = {"zygote": "sandbox: zygote (Python bots)", "bubblewrap": "sandbox: bubblewrap (other bots)",
              "none": "no sandbox"}
    for way, label in labels.items():
        starts.add_row(label, f"{s.ready_ms[way]:.0f} ms", f"{s.cpu_ms[way]:.0f} ms")
    console.print(starts)
    table = Table(title="a thinking bot's mean decision time, against a random bot and against a CPU hog",
                  caption="the hog forks four spinning processes per core at StartMatch, each in its own session; "
                          "goal: sandboxed slowdown <= 10 %")
    for col in ("isolation", "vs random", "vs hog", "slowdown"):
        table.add_column(col, justify="right" if col != "isolation" else "left")
    with console.status("playing matches..."):
        for f in bench_fairness(args.matches):
            table.add_row(f.level, f"{f.baseline_ms:.1f} ms", f"{f.hogged_ms:.1f} ms", f"{f.slowdown:+.0%}")
    console.print(table)
    return 0


def run_greedy(args: argparse.Namespace) -> int:
    from arena.bench.greedy import bench_greedy

    try:
        sizes = [int(x) for x in args.players.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--players takes numbers like 2,3,4, got {args.players!r}") from None
    if not sizes or not all(2 <= k <= 6 for k in sizes) or args.matches < 1:
        raise UserError("--players must be table sizes 2-6 and --matches at least 1")
    console = make_console()
    table = Table(title=f"greedy bot vs random players, {args.matches} matches per table size (greedy seat rotating)")
    for col in ("players", "wins", "win rate", "95% interval", "mean place", "mean lead"):
        table.add_column(col, justify="right")
    with console.status("playing..."):
        for k in sizes:
            f = bench_greedy(k, args.matches, args.seed)
            low, high = f.win_rate_interval()
            table.add_row(str(k), f"{f.wins}/{args.matches}", f"{f.win_rate:.1%}", f"{low:.1%}-{high:.1%}",
                          f"{f.mean_place:.2f}", f"{f.mean_margin:+.1f}")
    console.print(table)
    return 0


def run_ratings(args: argparse.Namespace) -> int:
    from leaderboard.ratings_bench import bench_ratings

    if args.matches < 1 or args.bots < 2 or args.resamples < 0:
        raise UserError("--matches must be at least 1, --bots at least 2, --resamples at least 0")
    console = make_console()
    with console.status("...") as status:
        f = bench_ratings(args.matches, args.bots, args.resamples, args.seed,
                          on_stage=lambda text: status.update(text))
    table = Table(title=f"ratings: {f.matches:,} matches ({f.deals:,} deals), {f.participants} participants, "
                        f"{f.stage_sets:,} distinct stage sets")
    table.add_column("step")
    table.add_column("wall s", justify="right")
    table.add_row("matches -> arrays (part of the fit)", f"{f.orders_s:.2f}")
    table.add_row("point fit alone (Newton)", f"{f.point_s:.2f}")
    table.add_row(f"whole fit with {f.resamples} bootstrap resamples ({f.method or 'none'})",
                  f"{f.fit_s:.2f}")
    table.add_row("cross-table", f"{f.cross_s:.2f}")
    console.print(table)
    console.print(f"fit of {f.matches:,} matches: {f.fit_s:.1f} s wall, {f.fit_cpu_s:.1f} s CPU (goal at a million: "
                  f"<= 30 s); making the synthetic matches took {f.generate_s:.1f} s (not part of the fit)")
    console.print(f"against the truth: largest error {f.max_error:.1f} Elo; {f.covered:.0%} of the 95% intervals hold "
                  f"the true rating; order {'right' if f.order_correct else 'not quite right'} "
                  f"({f.pairs_in_order:.1%} of the pairs of bots in their true order)")
    return 0


def run_workers_bench(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from arena.bench.workers import claim_overhead, throughput
    from leaderboard.database import resolve_db_url

    try:
        counts = [int(x) for x in args.workers.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--workers takes numbers like 1,2,3, got {args.workers!r}") from None
    if not counts or min(counts) < 1 or args.rounds < 1 or args.claims < 1:
        raise UserError("--workers values, --rounds and --claims must be at least 1")
    console = make_console()
    with tempfile.TemporaryDirectory(prefix="arena-bench-workers-") as tmp:
        url = resolve_db_url(args.db or str(Path(tmp) / "bench.sqlite"))
        console.print(f"database {url.split('@')[-1]}")
        claims = claim_overhead(url, args.claims)
        console.print(f"claim overhead over {claims.matches} matches (medians): claim {claims.claim_ms:.2f} ms, "
                      f"record through the queue {claims.record_queue_ms:.2f} ms vs plain record "
                      f"{claims.record_plain_ms:.2f} ms: [bold]{claims.overhead_ms:.2f} ms per match[/bold]")
        order = counts + counts[::-1]
        figures: dict[int, list] = {k: [] for k in counts}
        for k in order:
            f = throughput(url, k, args.rounds, Path(tmp) / "logs")
            figures[k].append(f)
            console.print(f"{k} worker(s): {f.matches} matches in {f.wall_s:.1f} s = {f.per_minute:.1f} matches/min")
    table = Table(title="matches per minute (alternating runs)")
    for col in ("workers", "runs", "matches/min", "vs 1 worker"):
        table.add_column(col, justify="right")
    base = sum(f.per_minute for f in figures[counts[0]]) / len(figures[counts[0]])
    for k in counts:
        rate = sum(f.per_minute for f in figures[k]) / len(figures[k])
        table.add_row(str(k), str(len(figures[k])), f"{rate:.1f}", f"{rate / base:.2f}x")
    console.print(table)
    return 0


def run_store(args: argparse.Namespace) -> int:
    import shutil
    import tempfile

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    from urllib.parse import quote

    from arena.bench.store import Server, bench_paths, fill, load, play_templates, time_paths
    from arena.cli.options import open_store
    from leaderboard import match_lists, tallies

    if args.matches < 0 or (args.matches == 0 and args.db is None) or args.bots < 6 or args.tournaments < 1 or args.repeat < 1 or args.clients < 0 \
            or args.requests < 1:
        raise UserError("--matches (but 0 with --db), --tournaments, --repeat and --requests must be at least 1, "
                        "--bots at least 6 (a table seats up to 6), --clients at least 0")
    import os

    from leaderboard.database import SQLITE_SYNCHRONOUS_ENV

    os.environ[SQLITE_SYNCHRONOUS_ENV] = "OFF"  # filling a benchmark's store: no flush to disk per match
    console = make_console()
    folder = None
    if args.db is None:
        folder = tempfile.mkdtemp(prefix="arena-bench-store-")
        args.db = f"sqlite:///{folder}/arena.sqlite"
    try:
        with open_store(args, create=True) as store:
            with console.status("playing the template games (random and greedy, 2-6 players)..."):
                templates = play_templates(seed=args.seed)
            columns = (TextColumn("storing matches"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
            fill_start = time.perf_counter()
            with Progress(*columns, console=console, transient=False) as progress:
                task = progress.add_task("fill", total=args.matches, rate="")

                def advance(done: int) -> None:
                    rate = done / max(1e-9, time.perf_counter() - fill_start)
                    progress.update(task, completed=min(done, args.matches), rate=f"{rate:,.0f}/s")

                if args.matches:
                    fill(store, args.matches, bots=args.bots, tournaments=args.tournaments, seed=args.seed,
                         templates=templates, progress=advance)
            fill_s = time.perf_counter() - fill_start
            counts = tallies.match_counts(store)
            total = sum(counts.values())
            size = tallies.storage_bytes(store)
            url = store.url
            biggest = max(counts, key=lambda t: (counts[t], t))  # the tournament-scoped pages: the largest one
            newest = match_lists.match_page(store, tournament_id=biggest, limit=1).items[0]
            bot = newest.seats[0].bot
            paths = bench_paths(store, bot, biggest, newest.id)
            filled = (f"stored {args.matches:,} matches in {fill_s:,.0f} s ({args.matches / fill_s:,.0f}/s); "
                      if args.matches else "stored no matches; ")
            console.print(f"{filled}the store holds {total:,} matches in {size / 1e6:,.1f} MB: "
                          f"[bold]{size / total / 1024:,.2f} KB per match[/bold] ({url})")
            with Server(args.db) as server:
                b = quote(bot, safe="")
                fitted_paths = ("/api/leaderboard", "/api/leaderboard?players=4", f"/api/bots/{b}",
                                f"/api/leaderboard?tournament={biggest}", f"/api/bots/{b}?tournament={biggest}",
                                f"/api/leaderboard?tournament={biggest}&versions=all")

                def settle() -> None:  # the refits run one at a time in the server's background
                    for path in fitted_paths:
                        server.wait_for_fit(path)

                with console.status(f"timing {len(paths)} pages and endpoints (cold, the fits, warm, afresh)..."):
                    timings = time_paths(server.get, paths, args.repeat, lambda p: server.get(p, fresh=True), settle)
                table = Table(title=f"{total:,} matches: each page cold, then (the fits done) warm x{args.repeat}, then "
                                    f"made afresh x{args.repeat} (Cache-Control: no-cache) (ms, over HTTP on 127.0.0.1)")
                for col in ("page", "status", "cold", "warm median", "warm p90", "afresh median", "KB"):
                    table.add_column(col, justify="left" if col == "page" else "right")
                for t in timings:
                    table.add_row(t.path if len(t.path) <= 70 else t.path[:67] + "...", str(t.status),
                                  f"{t.cold_ms:,.1f}", f"{t.median_ms:,.1f}", f"{t.p90_ms:,.1f}",
                                  f"{t.fresh_ms or 0:,.1f}", f"{t.bytes / 1024:,.1f}")
                console.print(table)
                fitted = server.json("/api/leaderboard")["fit"]
                console.print(f"rating fit of all {fitted['matches']:,} matches (the leaderboard's, made by the "
                              f"server at the first view): {fitted['fit_s']:,.1f} s")
                extra = fill(store, 1, bots=args.bots, tournaments=1, seed=args.seed + 1, templates=templates)
                wait_start = time.perf_counter()
                refit = time_paths(server.get, ["/"], 3)[0]
                fresh = server.wait_for_fit()
                console.print(f"after one more deal stored (tournament {extra[0]}): '/' answers in "
                              f"{refit.cold_ms:,.0f} ms, then {refit.median_ms:,.1f} ms warm (the previous fit while "
                              f"the refit runs in the background); the refit took {fresh['fit_s']:,.1f} s, in "
                              f"{time.perf_counter() - wait_start:,.1f} s after the deal was stored it was shown")
                if args.clients:
                    for path in paths:  # every scope's fit made again after the new deal
                        server.get(path)
                    settle()
                    for path in paths:  # warm: each answer made once with the new fits
                        server.get(path)
                    with console.status(f"{args.clients} parallel clients x {args.requests} requests..."):
                        f = load(server, paths, clients=args.clients, requests=args.requests)
                    with console.status("the same, every answer made afresh (Cache-Control: no-cache)..."):
                        g = load(server, paths, clients=args.clients, requests=args.requests, fresh=True)
                    for what, h in (("", f), (", every answer made afresh (no-cache)", g)):
                        console.print(f"arena serve, {h.clients} parallel clients{what}, {h.requests} requests over "
                                      f"the pages above ({h.errors} not 200) in {h.seconds:,.1f} s: latency p50 "
                                      f"{h.p50_ms:,.0f} ms, p90 {h.p90_ms:,.0f} ms, p99 {h.p99_ms:,.0f} ms, max "
                                      f"{h.max_ms:,.0f} ms; server memory {h.rss_mb:,.0f} MB resident "
                                      f"(peak {h.peak_rss_mb:,.0f} MB)")
                else:
                    rss, peak = server.rss_mb()
                    console.print(f"server memory {rss:,.0f} MB resident (peak {peak:,.0f} MB)")
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0
