"""``arena worker`` and ``arena tournament status|exclude-worker``: one tournament, many machines."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from arena.cli.console import make_console
from arena.cli.errors import UserError
from arena.cli.game_option import add_game_option, check_tournament_game
from arena.cli.options import add_db_option, add_isolation_options, describe_isolation, isolation_from_args, open_store

DEFAULT_LOGS = Path("arena-data/logs")


def register(sub: argparse._SubParsersAction) -> None:
    w = sub.add_parser(
        "worker", help="play scheduled matches of the tournaments in a shared database (one per machine)",
        description="Claim the next planned match of a tournament with a lease, play it on this machine's bot "
                    "processes (renewing the lease), store its result and replay in one transaction that checks "
                    "the lease is still this worker's, claim the next; stop when nothing is left. Start one on "
                    "every machine that reaches the database (PostgreSQL; SQLite: one machine, a few workers). "
                    "A worker killed or cut off loses its matches to the others once its lease expires; its late "
                    "results are refused. SIGINT/SIGTERM: the matches in play stop and are given back at once. "
                    "The bots' frozen files must be on this machine: see docs/tournaments.md, 'Workers'.")
    w.add_argument("--tournament", type=int, default=None, metavar="ID",
                   help="play this tournament only (default: any unfinished tournament with planned matches)")
    w.add_argument("--concurrency", type=int, default=2, metavar="C", help="matches at once (default 2)")
    w.add_argument("--worker-id", default=None, metavar="ID",
                   help="this worker's id, unique on its machine (default: w<PID>); shown as HOST/ID")
    w.add_argument("--host", default=None, metavar="NAME",
                   help="the machine's name in HOST/ID (default: its host name; set it when host names are "
                        "not unique, e.g. containers)")
    w.add_argument("--lease", type=float, default=None, metavar="S",
                   help="seconds a claim holds without renewal (renewed every third of it; default 60)")
    w.add_argument("--keep-waiting", action="store_true",
                   help="when nothing is left to play, wait for new tournaments instead of stopping")
    w.add_argument("--retry-failed", action="store_true",
                   help="queue the matches that failed (the host could not finish them) again first "
                        "(needs --tournament)")
    w.add_argument("--bot-files", type=Path, default=None, metavar="DIR",
                   help="this machine's copy of the frozen bot files (the folder holding NAME/HASH folders; "
                        "default: the paths the database names, or $ARENA_BOT_FILES)")
    w.add_argument("--db-wait", type=float, default=600.0, metavar="S",
                   help="how long to wait for an unreachable database before giving up (default 600)")
    w.add_argument("--logs", type=Path, default=DEFAULT_LOGS, metavar="DIR",
                   help=f"where bot stderr logs go (default {DEFAULT_LOGS})")
    add_isolation_options(w, default=None)
    add_db_option(w)
    w.set_defaults(func=cmd_worker)


def register_tournament_actions(tsub: argparse._SubParsersAction) -> None:
    st = tsub.add_parser("status", help="progress per worker: claimed, done, failed, matches/min; the ETA",
                         description="A tournament's queue: planned, claimed, done and failed matches, and per "
                                     "worker (HOST/ID) what it holds now, what it stored, its failures, its late "
                                     "results refused, its matches/min; the ETA at the current rate; the newest "
                                     "worker events (claims taken over, late results, releases).")
    st.add_argument("id", type=int, metavar="ID")
    st.add_argument("--json", action="store_true", help="print JSON for scripts")
    add_game_option(st, default=None, what="refuse unless the tournament plays this game")
    add_db_option(st)
    st.set_defaults(func=cmd_status)

    ex = tsub.add_parser("exclude-worker", help="leave a worker's matches out of a tournament's ratings",
                         description="Leave every match WORKER (HOST/ID, as 'tournament status' names it) played "
                                     "in the tournament out of its ratings and standings, and let it claim no more "
                                     "of its matches. The matches stay stored and visible; they are not played "
                                     "again (their deals count with the seatings the other workers played). "
                                     "--undo counts them again.")
    ex.add_argument("id", type=int, metavar="ID")
    ex.add_argument("worker", metavar="WORKER")
    ex.add_argument("--reason", default="", help="why (kept with the exclusion)")
    ex.add_argument("--undo", action="store_true", help="count the worker's matches again")
    add_db_option(ex)
    ex.set_defaults(func=cmd_exclude_worker)


def cmd_worker(args: argparse.Namespace) -> int:
    from arena.tournaments import plan_tournament
    from arena.worker import Worker, WorkerOptions
    from leaderboard.queue import DEFAULT_LEASE_S, MatchQueue, WorkerId

    if args.retry_failed and args.tournament is None:
        raise UserError("--retry-failed needs --tournament ID")
    try:
        me = WorkerId.make(args.worker_id, args.host)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    policy = None
    if args.isolation is not None or args.memory_mb or args.max_procs or args.cpus:
        policy = isolation_from_args(args)
    console = make_console(stderr=True)
    say = lambda text: console.print(f"{escape(me.label)}: {escape(text)}")  # noqa: E731
    with open_store(args) as store:
        options = WorkerOptions(concurrency=args.concurrency, tournament_id=args.tournament,
                                lease_s=args.lease or DEFAULT_LEASE_S, keep_waiting=args.keep_waiting,
                                db_wait_s=args.db_wait, bot_files=args.bot_files, policy=policy, log_dir=args.logs)
        if args.tournament is not None:
            plan_tournament(store, args.tournament)
            if args.retry_failed:
                again = MatchQueue(store).retry_failed(args.tournament)
                say(f"{again} failed match(es) queued again")

        def done(outcome: Any) -> None:
            if outcome.record is None:
                say(f"match {outcome.pairing.index} failed: {outcome.error}")
            else:
                say(f"match {outcome.pairing.index} stored ({outcome.record.duration_s:.1f} s)")

        worker = Worker(store, me, options, on_done=done, on_notice=say,
                        on_bot_failure=lambda who, why, log: say(f"bot {who} failed to start: {why}"
                                                                 + (f" (its log: {log})" if log else "")))
        if args.tournament is not None:
            worker.prepare(args.tournament)
        scope = f"tournament {args.tournament}" if args.tournament is not None else "any unfinished tournament"
        say(f"serving {scope} on {store.url}, {args.concurrency} at once, lease {options.lease_s:g} s"
            + (f", {describe_isolation(policy)}" if policy is not None else ""))
        try:
            summary = worker.run()
        finally:
            if args.tournament is not None:
                MatchQueue(store).settle(args.tournament)
            else:
                queue = MatchQueue(store)
                for row in store.list_tournaments():
                    if str(row.status) == "running" and queue.is_planned(row.id):
                        queue.settle(row.id)
        if isinstance(summary.signal, int):
            raise _Exit(summary, say)
        say(_summary_text(summary))
        for tid, why in summary.refused_tournaments.items():
            say(f"tournament {tid} not played here: {why}")
    return 1 if summary.failed or summary.refused_tournaments else 0


class _Exit(SystemExit):
    def __init__(self, summary: Any, say: Any) -> None:
        say(f"stopped by {signal.Signals(summary.signal).name}: {_summary_text(summary)}")
        super().__init__(128 + int(summary.signal))


def _summary_text(summary: Any) -> str:
    parts = [f"{summary.played} stored"]
    if summary.failed:
        parts.append(f"{len(summary.failed)} failed")
    if summary.late:
        parts.append(f"{summary.late} late result(s) refused (lease taken over)")
    if summary.skipped:
        parts.append(f"{summary.skipped} stored by another worker first")
    if summary.released:
        parts.append(f"{summary.released} claim(s) released")
    return ", ".join(parts) + f" in {summary.wall_s:.1f} s"


def status_json(store: Any, tournament_id: int) -> dict[str, Any]:
    from leaderboard.queue import MatchQueue

    row = store.get_tournament(tournament_id)
    queue = MatchQueue(store)
    progress = queue.progress(tournament_id)
    events = queue.events(tournament_id)
    return {"id": row.id, "game": row.game, "status": str(row.status), **progress.to_json(), "events": events[-20:]}


def cmd_status(args: argparse.Namespace) -> int:
    from leaderboard.web.progress import duration_text

    with open_store(args) as store:
        check_tournament_game(store.get_tournament(args.id), args.game)
        data = status_json(store, args.id)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    console = make_console()
    if not data["total"]:
        console.print(f"tournament {args.id} ({data['status']}) has no planned matches (an SPRT, or not planned "
                      f"yet: 'arena tournament resume {args.id}' or 'arena worker --tournament {args.id}' plans it)")
        return 0
    rate = data["matches_per_minute"]
    eta = data["eta_seconds"]
    console.print(f"[bold]tournament {data['id']}[/bold] ({data['game']}, {data['status']}): {data['done']}/{data['total']} done, "
                  f"{data['claimed']} being played, {data['planned']} planned, {data['failed']} failed"
                  + (f"; {rate:.1f} matches/min" if rate else "")
                  + (f"; about {duration_text(eta)} to go" if eta else ""))
    table = Table(title="workers", title_justify="left")
    for col in ("worker", "claimed", "done", "failed", "late", "matches/min", "last stored"):
        table.add_column(col, justify="left" if col in ("worker", "last stored") else "right")
    now = datetime.now(UTC)
    for w in data["workers"]:
        last = "" if w["last_at"] is None else f"{duration_text((now - datetime.fromisoformat(w['last_at'])).total_seconds())} ago"
        table.add_row(escape(w["worker"]) + (" [red](excluded)[/red]" if w["excluded"] else ""), str(w["claimed"]),
                      str(w["done"]), str(w["failed"]), str(w["late"]),
                      "" if w["matches_per_minute"] is None else f"{w['matches_per_minute']:.1f}", last)
    if data["workers"]:
        console.print(table)
    for e in data["events"][-5:]:
        console.print(f"{e['at'][:19]} {escape(e['worker'])} {e['kind']}: {escape(e['detail'])}")
    return 0


def cmd_exclude_worker(args: argparse.Namespace) -> int:
    from leaderboard.queue import MatchQueue
    from leaderboard.standings import compute_standings

    with open_store(args) as store:
        queue = MatchQueue(store)
        if args.undo:
            n = queue.include_worker(args.id, args.worker)
            text = f"worker {args.worker}: its {n} match(es) of tournament {args.id} count again"
        else:
            n = queue.exclude_worker(args.id, args.worker, args.reason)
            text = (f"worker {args.worker} excluded from tournament {args.id}: its {n} stored match(es) are left "
                    "out of the ratings and standings, and it claims no more of its matches")
        compute_standings(store, args.id)  # the saved ratings, fitted again without (or with) them
    print(text, file=sys.stdout)
    return 0
