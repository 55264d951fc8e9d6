"""``arena sprt``: is NEW better than OLD?  A sequential test against a frozen pool
(docs/tournaments.md, "Is my change better?"); ``--simulate`` measures the test itself."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from arena.cli.errors import UserError
from arena.cli.game_option import add_game_option, check_variant, score_name, seats_help, variants_help
from arena.cli.leaderboard_view import make_console, standings_table
from arena.cli.options import add_db_option, add_isolation_options, describe_isolation, isolation_from_args, open_store
from arena.cli.tournament import DEFAULT_LOGS, _table_sizes

DEFAULT_RUNS = 200


def _names(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected bot names like A,B,C, got {text!r}")
    return names


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sprt", help="is NEW better than OLD? a sequential test against a frozen pool",
        description="Play deals until a sequential probability ratio test decides whether NEW is better than "
                    "OLD: H0 'NEW - OLD = elo0' against H1 'NEW - OLD = elo1' (Elo on the leaderboard's scale). "
                    "Every deal is played in every seat rotation twice, against the same pool opponents with "
                    "the same cards: once with NEW, once with OLD in its place. Stored like a tournament; "
                    "Ctrl-C stops cleanly and 'arena tournament resume ID' goes on. --simulate measures the test "
                    "on simulated bots instead (error rates, expected deals).")
    add_game_option(p, what="the game played (every bot must play it)")
    p.add_argument("--candidate", metavar="NEW", help="the bot to test (a registered name or a bot.toml)")
    p.add_argument("--baseline", metavar="OLD", help="the bot it should beat (a registered name or a bot.toml)")
    p.add_argument("--pool", type=_names, action="append", metavar="A,B,C",
                   help="the opponents, neither NEW nor OLD: names or bot.toml paths, comma-separated or repeated")
    p.add_argument("--players", type=_table_sizes, default=(4,), metavar="K[,K...]",
                   help="table sizes within the game's seat counts, played in turn (default 4; a table of k "
                        f"needs k-1 pool bots): {seats_help()}")
    p.add_argument("--elo0", type=float, default=0.0, help="H0: NEW is this much better than OLD (default 0)")
    p.add_argument("--elo1", type=float, default=10.0, help="H1: NEW is this much better than OLD (default 10)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="chance of accepting H1 when NEW - OLD = elo0 at most (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05,
                   help="chance of accepting H0 when NEW - OLD = elo1 at most (default 0.05)")
    p.add_argument("--max-deals", type=int, default=None, metavar="N",
                   help="give up undecided after N deals (default: no limit)")
    p.add_argument("--concurrency", type=int, default=2, metavar="C", help="matches at once (default 2)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="the key every deal derives from (default: a random secret one). An explicit seed makes "
                        "every deal predictable to anyone who knows it: local runs only")
    p.add_argument("--variant", default=None, metavar="VARIANT", help=variants_help())
    p.add_argument("--decision-ms", type=int, default=1000, metavar="MS", help="time per decision (default 1000 ms)")
    p.add_argument("--bank-ms", type=int, default=10_000, metavar="MS", help="time bank per match (default 10000 ms)")
    p.add_argument("--max-faults", type=int, default=3, metavar="N", help="faults before a seat forfeits (default 3)")
    p.add_argument("--simulate", action="store_true",
                   help="play no bots: run the test many times on simulated bots of known strength and print its "
                        "chance of accepting H1 and its expected length at five true Elo differences")
    p.add_argument("--runs", type=int, default=DEFAULT_RUNS, metavar="N",
                   help=f"--simulate: simulated tests per row (default {DEFAULT_RUNS})")
    add_isolation_options(p)
    p.add_argument("--logs", type=Path, default=DEFAULT_LOGS, metavar="DIR",
                   help=f"where bot stderr logs go (default {DEFAULT_LOGS})")
    p.add_argument("--quiet", action="store_true", help="no live display: a line per deal")
    add_db_option(p)
    p.set_defaults(func=cmd_sprt)


def _params(args: argparse.Namespace) -> Any:
    from arena.stats.sprt import SprtParameters

    try:
        return SprtParameters(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as exc:
        raise UserError(str(exc).replace("elo0", "--elo0").replace("elo1", "--elo1")
                        .replace("alpha", "--alpha").replace("beta", "--beta")) from None


def cmd_sprt(args: argparse.Namespace) -> int:
    params = _params(args)
    if args.max_deals is not None and args.max_deals < 1:
        raise UserError(f"--max-deals must be at least 1, got {args.max_deals}")
    variant = check_variant(args.game, args.variant)
    if args.simulate:
        return simulate(args, params)
    missing = [flag for flag, value in (("--candidate", args.candidate), ("--baseline", args.baseline),
                                        ("--pool", args.pool)) if not value]
    if missing:
        raise UserError(f"arena sprt needs {', '.join(missing)} (or --simulate); see 'arena sprt --help'")
    for name, value, low in (("--concurrency", args.concurrency, 1), ("--decision-ms", args.decision_ms, 1),
                             ("--max-faults", args.max_faults, 1), ("--bank-ms", args.bank_ms, 0)):
        if value < low:
            raise UserError(f"{name} must be at least {low}, got {value}")
    from arena.games import game_spec
    from arena.scheduler.sprt_deals import SprtEntrants
    from arena.sprt import SprtConfig, create_sprt
    from arena.tournaments import resolve_bots

    pool_entries = [name for group in args.pool for name in group]
    try:  # the shape first, before any bot is checked and registered
        SprtEntrants(args.candidate, args.baseline, tuple(pool_entries), args.players, variant, args.game)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    console = make_console()
    policy = isolation_from_args(args)
    with open_store(args, create=True) as store:
        rows = resolve_bots(store, [args.candidate, args.baseline, *pool_entries], log_dir=args.logs, policy=policy,
                            game=args.game, on_register=lambda e: console.print(f"checking and registering {e} ..."))
        config = SprtConfig(candidate=rows[0].name, baseline=rows[1].name, pool=tuple(r.name for r in rows[2:]),
                            table_sizes=args.players, elo0=params.elo0, elo1=params.elo1, alpha=params.alpha,
                            beta=params.beta, max_deals=args.max_deals, variant=variant, game=args.game,
                            concurrency=args.concurrency, decision_ms=args.decision_ms, bank_ms=args.bank_ms,
                            max_faults=args.max_faults,
                            isolation={"level": policy.level.value, "limits": policy.limits.to_json()},
                            files_sha256={r.name: r.files_sha256 for r in rows},
                            versions={r.name: r.number for r in rows})
        tid = create_sprt(store, config, args.seed)
        console.print(f"sprt {tid} (stored as tournament {tid}): {rows[0].participant} (NEW) against "
                      f"{rows[1].participant} (OLD), pool {', '.join(r.participant for r in rows[2:])}; "
                      f"{game_spec(args.game).title}, table sizes {','.join(map(str, config.table_sizes))}; "
                      f"{describe_isolation(policy)}; database {store.url}")
        return play_sprt(console, store, tid, args, None, policy)


# -- playing, with live progress -------------------------------------------------------


def _signed(value: float, digits: int = 2) -> str:
    return "—" if math.isnan(value) else f"{value:+.{digits}f}"


def state_line(report: Any) -> str:
    """One line: deals, LLR and bounds, scores and the Elo estimate."""
    s = report.state
    elo = "—" if math.isnan(s.elo) else f"{s.elo:+.0f}" + ("" if math.isnan(s.elo_ci95) else f" ± {s.elo_ci95:.0f}")
    scores = "" if s.deals == 0 else f"; NEW {s.new_score:.3f}, OLD {s.old_score:.3f}"
    return (f"deal {report.counted_deals}: LLR {s.llr:+.2f} in ({s.lower:+.2f}, {s.upper:+.2f}){scores}; "
            f"Elo NEW - OLD {elo}")


class SprtView:
    """The running LLR between its bounds, the scores and the Elo estimate, as deals complete."""

    def __init__(self, console: Console, config: Any, tournament_id: int, quiet: bool) -> None:
        self.console = console
        self.config = config
        self.quiet = quiet or not console.is_terminal
        self.progress = Progress(SpinnerColumn(), TextColumn(f"[bold]sprt {tournament_id}[/bold] "
                                                             "{task.fields[matches]} matches stored"),
                                 TimeElapsedColumn(), console=console)
        self.task = self.progress.add_task("sprt", total=None, matches=0)
        self.live: Live | None = None
        self.report: Any = None
        self.printed = 0  # deals counted when the last line was printed

    def start(self, report: Any) -> None:
        self.report = report
        c = self.config
        self.console.print(f"H0: NEW - OLD = {c.elo0:g} Elo against H1: NEW - OLD = {c.elo1:g} Elo; α {c.alpha:g}, "
                           f"β {c.beta:g}: the test stops when the LLR leaves ({report.state.lower:+.2f}, "
                           f"{report.state.upper:+.2f})" + ("" if c.max_deals is None else
                                                           f" or after {c.max_deals} deals"))
        if report.stored_matches:
            self.console.print(f"{report.stored_matches} matches already stored, {report.counted_deals} deals "
                               "counted; going on")
        self.progress.update(self.task, matches=report.stored_matches)
        if not self.quiet:
            self.live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False)
            self.live.start()
        elif report.counted_deals:
            self._print_line()

    def _render(self) -> Group:
        r = self.report
        s = r.state
        span = s.upper - s.lower
        bar = ProgressBar(total=span, completed=min(max(s.llr - s.lower, 0.0), span), width=40)
        line = Table.grid(padding=(0, 1))
        line.add_row(Text(f"LLR {s.llr:+.2f}", style="bold"), Text(f"H0 {s.lower:+.2f}"), bar,
                     Text(f"{s.upper:+.2f} H1"))
        table = Table(box=None, pad_edge=False)
        for col in ("deals", "NEW score", "OLD score", "NEW - OLD", "Elo NEW - OLD"):
            table.add_column(col, justify="right")
        elo = _signed(s.elo, 0) + ("" if math.isnan(s.elo_ci95) else f" ± {s.elo_ci95:.0f}")
        limit = "" if r.max_deals is None else f" / {r.max_deals}"
        table.add_row(f"{r.counted_deals}{limit}", "—" if s.deals == 0 else f"{s.new_score:.3f}",
                      "—" if s.deals == 0 else f"{s.old_score:.3f}", _signed(s.difference, 3) if s.deals else "—",
                      elo)
        return Group(self.progress, line, table)

    def _print_line(self) -> None:
        if self.report.counted_deals != self.printed:
            self.printed = self.report.counted_deals
            self.console.print(state_line(self.report))

    def on_done(self, outcome: Any, report: Any) -> None:
        self.report = report
        self.progress.update(self.task, matches=report.stored_matches)
        if outcome.error is not None:
            self.console.print(f"[red]match {outcome.pairing.index} (deal {outcome.pairing.round}) failed[/red]: "
                               f"{outcome.error}")
        if self.live is not None:
            self.live.update(self._render())
        else:
            self._print_line()

    def stop(self) -> None:
        if self.live is not None:
            self.live.update(self._render())
            self.live.stop()


def verdict_text(config: Any, report: Any) -> str:
    s = report.state
    games = f"after {report.counted_deals} deals ({report.stored_matches} matches stored)"
    if report.verdict == "H1 accepted":
        return (f"[green]H1 accepted[/green]: {config.candidate} is better than {config.baseline} (LLR {s.llr:+.2f} "
                f"≥ {s.upper:+.2f}: NEW - OLD = {config.elo1:g} Elo is the likelier hypothesis) {games}")
    if report.verdict == "H0 accepted":
        return (f"[yellow]H0 accepted[/yellow]: {config.candidate} is not shown better than {config.baseline} "
                f"(LLR {s.llr:+.2f} ≤ {s.lower:+.2f}: NEW - OLD = {config.elo0:g} Elo is the likelier "
                f"hypothesis) {games}")
    return f"{report.verdict} {games}: LLR {s.llr:+.2f} in ({s.lower:+.2f}, {s.upper:+.2f})"


def play_sprt(console: Console, store: Any, tournament_id: int, args: argparse.Namespace,
              concurrency: int | None, policy: Any = None) -> int:
    """Run (or resume) an SPRT with live progress; 0 once the test is over (either verdict)."""
    from arena.sprt import load_progress, run_sprt
    from leaderboard.standings import compute_standings

    config, _ = load_progress(store, tournament_id)
    view = SprtView(console, config, tournament_id, args.quiet)
    hint = f"arena tournament resume {tournament_id}" + (f" --db {args.db}" if getattr(args, "db", None) else "")
    try:
        summary = run_sprt(store, tournament_id, concurrency=concurrency, log_dir=args.logs, on_start=view.start,
                           on_done=view.on_done, policy=policy)
    except KeyboardInterrupt:
        view.stop()
        console.print(f"[yellow]stopped[/yellow]: the finished matches are stored; go on with: {hint}")
        return 130
    view.stop()
    if summary.failed:
        console.print(f"[red]a match failed[/red] (not stored): its deal cannot be counted without it; see the logs "
                      f"in {args.logs}/ and retry with: {hint}")
    console.print(verdict_text(config, summary.report))
    standings = compute_standings(store, tournament_id)
    if standings:
        console.print(standings_table(standings, f"sprt {tournament_id}: every stored match", score_name(config.game)))
    return 0 if summary.complete else 1


def show_sprt(store: Any, row: Any) -> dict[str, Any]:
    """The test's state for ``tournament show`` and ``list`` (recomputed from the stored matches)."""
    from arena.sprt import load_progress

    _, progress = load_progress(store, row.id)
    return progress.report().to_json()


def cmd_show_sprt(store: Any, row: Any, info: dict[str, Any], args: argparse.Namespace) -> int:
    """``arena tournament show ID`` of an SPRT: its configuration, the test's state, the stored matches."""
    import json

    from arena.games import game_spec
    from arena.sprt import config_of
    from leaderboard.rows import SECRET_UNTIL_FINISHED
    from leaderboard.standings import compute_standings

    config = config_of(row)
    stored = sorted(store.list_matches(tournament_id=row.id), key=lambda m: m.schedule_index)
    standings = compute_standings(store, row.id, save=False) if stored else []
    if args.json:
        matches = []
        for m in stored:
            entry: dict[str, Any] = {"schedule_index": m.schedule_index, "deal": m.round, "table_size": m.table_size,
                                     "seats": [s.bot for s in m.seats], "status": "finished", "match_id": m.id,
                                     "termination": m.termination.value, "places": {s.bot: s.place for s in m.seats},
                                     "scores": {s.bot: s.score for s in m.seats}}
            if row.finished:
                entry["seed"] = m.seed
            matches.append(entry)
        print(json.dumps({**info, "matches": matches, "leaderboard": [s.to_json() for s in standings]}, indent=2))
        return 0
    console = make_console()
    sprt = info["sprt"]
    seed = str(info["seed"]) if info["published"] else SECRET_UNTIL_FINISHED
    console.print(f"[bold]sprt {row.id}[/bold] ({info['status']}): {config.candidate} (NEW) against "
                  f"{config.baseline} (OLD), pool {', '.join(config.pool)}; {game_spec(row.game).title}, table sizes "
                  f"{','.join(map(str, config.table_sizes))}; H0 {config.elo0:g} / H1 {config.elo1:g} Elo, "
                  f"α {config.alpha:g}, β {config.beta:g}"
                  + ("" if config.max_deals is None else f", at most {config.max_deals} deals")
                  + f"; {info['matches_stored']} matches stored; seed: {seed}")
    llr = sprt["llr"] if sprt["llr"] is not None else 0.0
    elo = "—" if sprt["elo"] is None else f"{sprt['elo']:+.0f}" + (
        "" if sprt["elo_ci95"] is None else f" ± {sprt['elo_ci95']:.0f}")
    console.print(f"{sprt['verdict']} after {sprt['counted_deals']} deals: LLR {llr:+.2f} in "
                  f"({sprt['lower']:+.2f}, {sprt['upper']:+.2f}); Elo NEW - OLD {elo}")
    if standings:
        console.print(standings_table(standings, f"sprt {row.id}: every stored match", score_name(row.game)))
    return 0


# -- the simulation ------------------------------------------------------------------------


def simulate(args: argparse.Namespace, params: Any) -> int:
    from arena.games import game_spec
    from arena.scheduler.pairings import check_table_size
    from arena.stats.simulation import SimulatedPool, characteristic
    from arena.stats.sprt import Decision

    if args.runs < 1:
        raise UserError(f"--runs must be at least 1, got {args.runs}")
    console = make_console()
    max_deals = args.max_deals or 100_000
    spec = game_spec(args.game)
    for size in args.players:  # every size before the first simulation, not after it
        try:
            check_table_size(size, spec)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    for size in args.players:
        # the two-player game's imaginary shareholder where the game has one (Union Pacific)
        pool = SimulatedPool(table_size=size, imaginary_elo=0.0 if spec.reference(size) else None)
        table = Table(title=f"SPRT H0 {params.elo0:g} / H1 {params.elo1:g} Elo, α {params.alpha:g}, β {params.beta:g}; "
                            f"simulated table of {size}: {args.runs} tests per row",
                      caption=f"simulated bots (docs/tournaments.md): OLD at Elo 0, pool "
                              f"{', '.join(f'{e:+g}' for e in pool.pool_elo)}"
                              + (f", imaginary shareholder {pool.imaginary_elo:+g}" if size == 2 and pool.imaginary_elo is not None
                                 else "")
                              + f"; twins share the candidate's luck with probability {pool.shared_luck:g}; "
                              f"{2 * size} matches per deal; at most {max_deals} deals")
        for col in ("true Elo", "accept H1", "accept H0", "undecided", "mean deals", "median", "90th pct",
                    "mean matches"):
            table.add_column(col, justify="right")
        with console.status(f"simulating table size {size} ..."):
            rows = characteristic(params, pool, runs=args.runs, max_deals=max_deals,
                                  seed=0 if args.seed is None else args.seed)
        for r in rows:
            table.add_row(f"{r.true_elo:+g}", f"{r.share(Decision.H1):.3f}", f"{r.share(Decision.H0):.3f}",
                          f"{r.share(Decision.CONTINUE):.3f}", f"{r.mean_deals:.0f}",
                          f"{_percentile(r.deals, 50):.0f}", f"{_percentile(r.deals, 90):.0f}",
                          f"{r.mean_deals * r.games_per_deal:.0f}")
        console.print(table)
    return 0


def _percentile(values: Any, q: float) -> float:
    import numpy as np

    return float(np.percentile(values, q))
