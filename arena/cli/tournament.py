"""``arena tournament run|resume|list|show`` and ``arena leaderboard``."""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.markup import escape
from rich.table import Table

from arena.cli.errors import UserError
from arena.cli.game_option import add_game_option, check_tournament_game, score_name as _score_name
from arena.cli.console import is_closed_pipe, make_console
from arena.cli.leaderboard_view import standings_table
from arena.cli.options import add_db_option, add_isolation_options, describe_isolation, isolation_from_args, open_store

DEFAULT_LOGS = Path("arena-data/logs")


def _table_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected table sizes like 2,3,4, got {text!r}") from None
    if not sizes:
        raise argparse.ArgumentTypeError("give at least one table size")
    return sizes


def register(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("tournament", help="run and inspect round-robin tournaments",
                       description="Round-robin tournaments: every subset of the entered bots at each table size, "
                                   "every seat rotation, one deck seed per subset (duplicate format); with "
                                   "--gauntlet, only the tables that hold one candidate.")
    tsub = t.add_subparsers(dest="tournament_command", metavar="ACTION", required=True)

    run = tsub.add_parser("run", help="create a tournament and play it",
                          description="Create a tournament and play it. With N bots, one round of table size k is "
                                      "C(N,k)*k matches; a gauntlet of one candidate against N bots, C(N,k-1)*k. "
                                      "Ctrl-C stops cleanly; 'arena tournament resume ID' goes on.")
    _schedule_options(run)
    run.add_argument("--worker-id", default=None, metavar="ID",
                     help="this machine's worker id, as 'tournament status' shows it (default: w<PID>)")
    add_isolation_options(run)
    _common_run_options(run)
    run.set_defaults(func=cmd_run)

    create = tsub.add_parser("create", help="create a tournament and store its schedule, without playing it",
                             description="Create a tournament and store its whole schedule as planned matches; "
                                         "workers on any machine ('arena worker --db URL --tournament ID') play "
                                         "it. Prints the tournament's id.")
    _schedule_options(create)
    add_isolation_options(create)
    _common_run_options(create)
    create.set_defaults(func=cmd_create)

    resume = tsub.add_parser("resume", help="play what is left of a tournament",
                             description="Start a local worker on the tournament again: the schedule minus the "
                                         "stored matches (after Ctrl-C, a crash or kill -9), failed matches "
                                         "queued again: nothing lost, nothing counted twice. Other workers may "
                                         "play it at the same time.")
    resume.add_argument("id", type=int, metavar="ID")
    add_game_option(resume, default=None, what="refuse to go on unless the tournament plays this game")
    resume.add_argument("--concurrency", type=int, default=None, metavar="C", help="matches at once (default: as created)")
    resume.add_argument("--worker-id", default=None, metavar="ID",
                        help="this machine's worker id, as 'tournament status' shows it (default: w<PID>)")
    add_isolation_options(resume, default=None)
    _common_run_options(resume)
    resume.set_defaults(func=cmd_resume)

    ls = tsub.add_parser("list", help="list tournaments", description="List the stored tournaments.")
    ls.add_argument("--json", action="store_true", help="print JSON for scripts")
    add_db_option(ls)
    ls.set_defaults(func=cmd_list)

    show = tsub.add_parser("show", help="a tournament's configuration, progress and leaderboard",
                           description="A tournament's configuration, progress and leaderboard; with --json, "
                                       "every scheduled match with its schedule index and status.")
    show.add_argument("id", type=int, metavar="ID")
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    add_db_option(show)
    show.set_defaults(func=cmd_show)

    from arena.cli.workers import register_tournament_actions

    register_tournament_actions(tsub)

    lb = sub.add_parser("leaderboard", help="ratings and statistics of the bots",
                        description="Rank, bot version (NAME@N, each rated on its own), Elo ± 95% CI (batch Plackett-Luce fit of every finishing order), "
                                    "live Elo, matches, wins, mean place, mean score (the game's: cash for Union Pacific, "
                                    "points for Ticket to Ride), forfeits and faults, over one "
                                    "tournament or every stored match of one game (ratings are per game), every table size or one; "
                                    "by default each bot's newest version that has results.  "
                                    "See docs/ratings.md.")
    lb.add_argument("--tournament", type=int, metavar="ID", help="one tournament (default: all matches of the game)")
    add_game_option(lb, default=None, what="the game rated (needed when the store holds several; a tournament "
                                          "rates its own)")
    lb.add_argument("--players", type=int, metavar="N",
                    help="only the matches at tables of N players, rated on their own (default: every size)")
    lb.add_argument("--cross", action="store_true",
                    help="also the cross-table: each pair's head-to-head score where both played")
    lb.add_argument("--json", action="store_true",
                    help="print JSON for scripts (a list of rows; with --cross an object with 'leaderboard' "
                         "and every pair's 'cross_table')")
    lb.add_argument("--all-versions", action="store_true",
                    help="a row for every bot version that played (default: each bot's newest version that has "
                         "results)")
    add_db_option(lb)
    lb.set_defaults(func=cmd_leaderboard)


def _schedule_options(run: argparse.ArgumentParser) -> None:
    add_game_option(run)
    run.add_argument("--bot", action="append", required=True, metavar="NAME|MANIFEST",
                     help="a registered bot name, or a bot.toml (or its folder) to check and register; repeat")
    run.add_argument("--gauntlet", default=None, metavar="NAME|MANIFEST",
                     help="a gauntlet: this candidate plays every table of its size with the --bot field, "
                          "which never plays without it")
    run.add_argument("--players", type=_table_sizes, default=(4,), metavar="K[,K...]",
                     help="table sizes, within the game's seat counts (see --game); default 4")
    run.add_argument("--rounds", type=int, default=1, metavar="R", help="repeat the whole schedule R times (default 1)")
    run.add_argument("--concurrency", type=int, default=2, metavar="C", help="matches at once (default 2)")
    run.add_argument("--seed", type=int, default=None, metavar="S",
                     help="tournament key, the seed every deck seed derives from (default: a random secret one, "
                          "kept secret until the tournament is finished). An explicit seed makes every deal "
                          "predictable to anyone who knows it: use it for local runs only")
    run.add_argument("--publish-deals", action="store_true",
                     help="publish each deal's replays (and deck seed) as soon as all its seat rotations are "
                          "stored, instead of when the whole tournament is finished")
    run.add_argument("--variant", default=None, metavar="VARIANT",
                     help="a variant of the game (default its first; Union Pacific: standard, or pro, a dividend "
                          "card in each quarter)")
    run.add_argument("--decision-ms", type=int, default=1000, metavar="MS", help="time per decision (default 1000 ms)")
    run.add_argument("--bank-ms", type=int, default=10_000, metavar="MS", help="time bank per match (default 10000 ms)")
    run.add_argument("--max-faults", type=int, default=3, metavar="N", help="faults before a seat forfeits (default 3)")


def _common_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--logs", type=Path, default=DEFAULT_LOGS, metavar="DIR",
                   help=f"where bot stderr logs go (default {DEFAULT_LOGS})")
    p.add_argument("--quiet", action="store_true", help="no live progress display")
    add_db_option(p)


class LiveProgress:
    """A progress bar with ETA and the running standings (wins, mean place) as matches end."""

    def __init__(self, console: Console, store: Any, tournament_id: int, quiet: bool) -> None:
        self.console = console
        self.quiet = quiet or not console.is_terminal
        self.progress = Progress(TextColumn("[bold]tournament {task.fields[tid]}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("matches"), TimeElapsedColumn(),
                                 TextColumn("ETA"), TimeRemainingColumn(), console=console)
        self.task = self.progress.add_task("matches", total=None, tid=tournament_id)
        self.stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # matches, wins, sum of places
        for s in store.bot_stats(tournament_id):
            self.stats[s.bot] = [s.matches, s.wins, round(s.mean_place * s.matches)]
        self.failures: list[str] = []
        self.failed_to_start: set[str] = set()
        self.never_started: dict[str, int] = defaultdict(int)  # participant -> seats it never started
        self.live: Live | None = None
        self.done = 0
        self.total = 0

    def start(self, total: int, already: int) -> None:
        self.total, self.done = total, already
        self.progress.update(self.task, total=total, completed=already)
        if already:
            self.console.print(f"{already} of {total} matches already stored; playing the other {total - already}")
        if not self.quiet:
            self.live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False)
            self.live.start()

    def _render(self) -> Group:
        table = Table(title="running standings", title_justify="left", box=None, pad_edge=False)
        for col in ("bot", "matches", "wins", "mean place"):
            table.add_column(col, justify="left" if col == "bot" else "right")
        ordered = sorted(self.stats.items(), key=lambda kv: (kv[1][2] / max(kv[1][0], 1), -kv[1][1], kv[0]))
        for name, (m, w, places) in ordered:
            table.add_row(name, str(m), str(w), f"{places / m:.2f}" if m else "")
        return Group(self.progress, table)

    def on_done(self, outcome: Any) -> None:
        from arena.records import FaultReason

        self.done += 1
        self.progress.update(self.task, advance=1)
        if outcome.record is not None:
            for seat in outcome.record.seats:
                st = self.stats[seat.bot]
                st[0] += 1
                st[1] += seat.place == 1
                st[2] += seat.place
                if any(f.reason is FaultReason.NOT_READY for f in seat.faults):
                    self.never_started[seat.bot] += 1
        else:
            self.failures.append(f"match {outcome.pairing.index}: {outcome.error}")
            self.console.print(f"[red]match {outcome.pairing.index} failed[/red]: {outcome.error}")
        if self.live is not None:
            self.live.update(self._render())
        elif self.quiet and self.total and (self.done % max(1, self.total // 10) == 0 or self.done == self.total):
            self.console.print(f"{self.done}/{self.total} matches")

    def bot_failed(self, participant: str, reason: str, log_path: Path | None) -> None:
        """Said at once, the first time each bot fails to start (it may be tried again)."""
        if participant in self.failed_to_start:
            return
        self.failed_to_start.add(participant)
        self.console.print(f"[bold red]bot {escape(participant)} failed to start[/bold red]: {escape(reason)}"
                           + (f"\n  its log: {escape(str(log_path))}" if log_path is not None else ""))

    def notice(self, text: str) -> None:
        self.console.print(f"[yellow]note[/yellow]: {escape(text)}")

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
        for participant, seats in sorted(self.never_started.items()):
            self.console.print(f"[bold red]{escape(participant)} never started in {seats} of its matches[/bold red] "
                               "(it forfeited them, finishing last); see its log and 'arena bot check'")


def play_tournament(console: Console, store: Any, tournament_id: int, args: argparse.Namespace,
                    concurrency: int | None, policy: Any = None) -> int:
    from arena.tournaments import run_tournament
    from leaderboard.standings import compute_standings

    view = LiveProgress(console, store, tournament_id, args.quiet)
    try:
        summary = run_tournament(store, tournament_id, concurrency=concurrency, log_dir=args.logs,
                                 on_start=view.start, on_done=view.on_done, policy=policy,
                                 on_bot_failure=view.bot_failed, on_notice=view.notice,
                                 worker_id=getattr(args, "worker_id", None))
    except KeyboardInterrupt as exc:
        view.stop()
        console.print(f"[yellow]stopped[/yellow]: the finished matches are stored; "
                      f"go on with: arena tournament resume {tournament_id}" + _db_hint(args))
        return 128 + getattr(exc, "signum", 2)
    except (BrokenPipeError, BaseExceptionGroup) as exc:
        if is_closed_pipe(exc):  # arena tournament run ... | head: say it where it can still be read
            print(f"arena: the output was closed, so tournament {tournament_id} stopped; the finished matches "
                  f"are stored; go on with: arena tournament resume {tournament_id}" + _db_hint(args),
                  file=sys.stderr)
        raise
    view.stop()
    console.print(f"played {summary.played} matches in {summary.wall_s:.1f} s"
                  + (f", {summary.skipped} already stored by another host" if summary.skipped else ""))
    if summary.failed:
        console.print(f"[red]{len(summary.failed)} match(es) failed[/red] (not stored); "
                      f"see the logs in {args.logs}/ and retry with: arena tournament resume {tournament_id}"
                      + _db_hint(args))
    standings = compute_standings(store, tournament_id)
    game = store.get_tournament(tournament_id).game
    console.print(standings_table(standings, f"tournament {tournament_id} · {game}", _score_name(game)))
    return 0 if summary.complete else 1


def _db_hint(args: argparse.Namespace) -> str:
    return f" --db {args.db}" if getattr(args, "db", None) else ""


def create_from_args(args: argparse.Namespace, console: Console, store: Any) -> tuple[int, Any]:
    """Create the tournament the options describe (bots checked and registered first);
    returns its id and the isolation policy."""
    from arena.games import game_spec
    from arena.tournaments import TournamentConfig, create_tournament, resolve_bots

    for name, value, low in (("--rounds", args.rounds, 1), ("--concurrency", args.concurrency, 1),
                             ("--decision-ms", args.decision_ms, 1), ("--max-faults", args.max_faults, 1),
                             ("--bank-ms", args.bank_ms, 0)):
        if value < low:
            raise UserError(f"{name} must be at least {low}, got {value}")
    policy = isolation_from_args(args)
    entries = ([args.gauntlet] if args.gauntlet is not None else []) + args.bot
    rows = resolve_bots(store, entries, log_dir=args.logs, policy=policy, game=args.game,
                        on_register=lambda e: console.print(f"checking and registering {e} ..."))
    gauntlet = rows[0].name if args.gauntlet is not None else None
    spec = game_spec(args.game)
    config = TournamentConfig(bots=tuple(r.name for r in rows), versions={r.name: r.number for r in rows},
                              table_sizes=args.players, rounds=args.rounds,
                              gauntlet=gauntlet, game=args.game,
                              variant=args.variant or spec.default_variant, concurrency=args.concurrency, decision_ms=args.decision_ms,
                              bank_ms=args.bank_ms, max_faults=args.max_faults,
                              publish_deals=args.publish_deals,
                              isolation={"level": policy.level.value, "limits": policy.limits.to_json()})
    tid = create_tournament(store, config, args.seed)
    entrants = f"gauntlet of {gauntlet} against {len(rows) - 1} bots" if gauntlet else f"{len(rows)} bots"
    console.print(f"tournament {tid}: {entrants}, table sizes {','.join(map(str, args.players))}, "
                  f"{args.rounds} round(s), concurrency {args.concurrency}, {describe_isolation(policy)}, "
                  f"database {store.url}; versions: {', '.join(r.participant for r in rows)}; game: {spec.title}")
    return tid, policy


def cmd_run(args: argparse.Namespace) -> int:
    console = make_console()
    with open_store(args, create=True) as store:
        tid, policy = create_from_args(args, console, store)
        return play_tournament(console, store, tid, args, None, policy)


def cmd_create(args: argparse.Namespace) -> int:
    console = make_console(stderr=True)  # stdout: the id alone, for scripts
    with open_store(args, create=True) as store:
        tid, _ = create_from_args(args, console, store)
    print(tid)
    console.print(f"play it on any machine that reaches the database: arena worker --tournament {tid}"
                  + _db_hint(args))
    return 0


def cmd_resume(args: argparse.Namespace) -> int:
    console = make_console()
    with open_store(args) as store:
        row = store.get_tournament(args.id)
        check_tournament_game(row, args.game)
        if row.status == "finished":
            console.print(f"tournament {args.id} is already finished")
            return 0
        policy = None
        if args.isolation is not None or args.memory_mb or args.max_procs or args.cpus:
            stored = row.config.get("isolation") or {}
            policy = isolation_from_args(args, stored)
            console.print(f"resuming with {describe_isolation(policy)} (the tournament was created with "
                          f"{stored.get('level', 'sandbox')})")
        if _is_sprt(row):
            from arena.cli.sprt import play_sprt

            return play_sprt(console, store, args.id, args, args.concurrency, policy)
        return play_tournament(console, store, args.id, args, args.concurrency, policy)


def _is_sprt(row: Any) -> bool:
    return row.config.get("format") == "sprt"  # an SPRT (arena sprt): an open-ended schedule


def _tournament_json(store: Any, row: Any) -> dict[str, Any]:
    """What list and show print; ``seed`` only once the tournament is finished (it is the key
    every deal derives from), ``published`` says whether it is there."""
    from arena.tournaments import config_of, schedule_of

    data: dict[str, Any] = {"id": row.id, "game": row.game, "status": str(row.status), "published": row.finished}
    if row.finished:
        data["seed"] = row.seed
    if _is_sprt(row):  # open-ended: nothing scheduled in advance; the test's state instead
        from arena.cli.sprt import show_sprt

        data["sprt"] = show_sprt(store, row)
        scheduled = None
    else:
        scheduled = len(schedule_of(config_of(row), row.seed))
    return {
        **data, "config": row.config,
        "created_at": row.created_at.isoformat(), "updated_at": row.updated_at.isoformat(),
        "matches_scheduled": scheduled,
        "matches_stored": len(store.stored_schedule_indexes(row.id)),
    }


def participants(config: dict[str, Any], names: list[str] | None = None) -> list[str]:
    """The stored configuration's bots as the versions that play: ``NAME@N`` (1 for a
    tournament stored before versions)."""
    versions = config.get("versions") or {}
    return [f"{name}@{versions.get(name, 1)}" for name in (config.get("bots", []) if names is None else names)]


def _seed_text(info: dict[str, Any]) -> str:
    from leaderboard.rows import SECRET_UNTIL_FINISHED

    return str(info["seed"]) if info["published"] else SECRET_UNTIL_FINISHED


def cmd_list(args: argparse.Namespace) -> int:
    from leaderboard.rows import SECRET_UNTIL_FINISHED

    with open_store(args) as store:
        items = [_tournament_json(store, row) for row in store.list_tournaments()]
    if args.json:
        print(json.dumps(items, indent=2))
        return 0
    table = Table(title="tournaments")
    for col in ("id", "game", "status", "bots", "table sizes", "rounds", "matches", "seed", "created"):
        table.add_column(col)
    for t in items:
        c = t["config"]
        matches = (f"{t['matches_stored']}/{t['matches_scheduled']}" if t["matches_scheduled"] is not None
                   else f"{t['matches_stored']} (sprt: {t['sprt']['verdict']})")
        table.add_row(str(t["id"]), t["game"], t["status"], ", ".join(participants(c)), ",".join(map(str, c["table_sizes"])),
                      str(c.get("rounds", "")), matches,
                      str(t["seed"]) if t["published"] else "secret", t["created_at"][:19])
    console = make_console()
    console.print(table if items else "no tournaments yet: try 'arena tournament run --help' or 'arena demo'")
    if not all(t["published"] for t in items):
        console.print(f"secret: the seed (the key every deal derives from) is {SECRET_UNTIL_FINISHED}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from arena.tournaments import config_of, schedule_of
    from leaderboard.standings import compute_standings

    with open_store(args) as store:
        row = store.get_tournament(args.id)
        if _is_sprt(row):
            from arena.cli.sprt import cmd_show_sprt

            return cmd_show_sprt(store, row, _tournament_json(store, row), args)
        info = _tournament_json(store, row)
        stored = {m.schedule_index: m for m in store.list_matches(tournament_id=args.id)}
        played_by = store.queue().match_workers(args.id)  # index -> (worker, isolation, queue status)
        config = config_of(row)
        schedule = schedule_of(config, row.seed)
        matches = []
        for p in schedule:
            m = stored.get(p.index)
            entry: dict[str, Any] = {"schedule_index": p.index, "round": p.round, "table_size": p.table_size,
                                     "seats": [config.participant(name) for name in p.seats],
                                     "status": "finished" if m else "pending"}
            if row.finished:
                entry["seed"] = p.seed
            worker, isolation, queued = played_by.get(p.index, (None, None, None))
            if queued == "claimed":
                entry.update(status="playing", worker=worker)
            if m:
                entry.update(worker=worker, isolation=isolation)
                entry.update(match_id=m.id, termination=m.termination.value,
                             places=m.rated_places, scores={s.bot: s.score for s in m.seats})
            matches.append(entry)
        standings = compute_standings(store, args.id, save=False, all_versions=True) if stored else []
    if args.json:
        print(json.dumps({**info, "matches": matches, "leaderboard": [s.to_json() for s in standings]}, indent=2))
        return 0
    console = make_console()
    c = info["config"]
    console.print(f"[bold]tournament {info['id']}[/bold] ({info['status']}): {info['matches_stored']}/"
                  f"{info['matches_scheduled']} matches stored; "
                  + (f"gauntlet of {participants(c, [c['gauntlet']])[0]}; " if c.get("gauntlet") else "")
                  + f"bots {', '.join(participants(c))}; table sizes "
                  f"{','.join(map(str, c['table_sizes']))}; {c['rounds']} round(s); variant {c['variant']}; "
                  f"clocks {c['decision_ms']} ms + {c['bank_ms']} ms bank; seed: {_seed_text(info)}"
                  + ("; each deal's replays published once all its seatings are stored"
                     if c.get("publish_deals") else ""))
    if standings:
        console.print(standings_table(standings, f"tournament {info['id']} · {row.game}", _score_name(row.game)))
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.cli.leaderboard_view import cross_table_view
    from leaderboard.standings import compute_leaderboard

    from leaderboard.standings import GameChoiceError

    if args.players is not None and not 1 <= args.players <= 99:
        raise UserError(f"--players must be a table size (2-6 for Union Pacific, 2-5 for Ticket to Ride), "
                        f"got {args.players}")
    with open_store(args) as store:
        try:
            board = compute_leaderboard(store, args.tournament, players=args.players, game=args.game,
                                        save=args.players is None, all_versions=args.all_versions)
        except GameChoiceError as exc:
            raise UserError(str(exc)) from None
    standings = board.standings
    if args.json:
        rows = [s.to_json() for s in standings]
        if args.cross:
            pairs = [{"a": p.a, "b": p.b, "meetings": p.meetings, "ahead": p.ahead, "behind": p.behind,
                      "tied": p.tied, "score": p.score} for p in board.cross_table.pairs()]
            print(json.dumps({"leaderboard": rows, "cross_table": pairs}, indent=2))
        else:
            print(json.dumps(rows, indent=2))
        return 0
    title = (f"tournament {args.tournament}" if args.tournament is not None else "all matches") + (
        f" · {board.game}" if board.game else "")
    if args.players is not None:
        title += f" · {args.players}-player tables"
    if not standings:
        where = f" at {args.players}-player tables" if args.players is not None else ""
        sizes = f" (stored table sizes: {', '.join(map(str, board.table_sizes))})" if board.table_sizes else ""
        print(f"no matches stored{where} yet{sizes}: run 'arena demo' or 'arena tournament run'", file=sys.stderr)
        return 0
    console = make_console()
    console.print(standings_table(standings, title, _score_name(board.game)))
    if args.cross:
        console.print(cross_table_view(board, f"cross-table · {title}"))
    return 0
