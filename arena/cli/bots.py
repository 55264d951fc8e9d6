"""``arena bot ...``: commands about one bot (``bot check`` here; the store adds its own)."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli.console import make_console
from rich.markup import escape

from arena.cli.errors import UserError
from arena.cli.game_option import add_game_option
from arena.cli.options import add_isolation_options, isolation_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bot", help="check and manage bots", description="Check and manage bots.")
    bot_sub = p.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    register_check(bot_sub)
    register_store_commands(bot_sub)


def register_check(bot_sub: argparse._SubParsersAction) -> None:
    c = bot_sub.add_parser(
        "check", help="the compliance test to run before submitting a bot",
        description="Start the bot, check Describe (it must list the game), play a few matches of the game (--game; "
                    "its smallest, a middle and its largest table size) against "
                    "Arena's random opponent bot processes within the clocks with zero faults, and check that it exits on stdin EOF "
                    "and on SIGTERM. Exit status 0 on PASS, 1 on FAIL.")
    c.add_argument("bot", metavar="MANIFEST|HOST:PORT", help="bot.toml (or its folder), or a running bot's address")
    add_game_option(c, what="the game the check plays")
    c.add_argument("--ready-s", type=float, default=10.0, metavar="S", help="start-up limit (default 10)")
    c.add_argument("--decision-ms", type=int, default=1000, metavar="N", help="time per decision (default 1000)")
    c.add_argument("--bank-ms", type=int, default=10_000, metavar="N", help="time bank per match (default 10000)")
    c.add_argument("--seed", type=int, default=None,
                   help="deck seed of the first match (default: random, as in a tournament)")
    c.add_argument("--logs", type=Path, default=Path("arena-data/logs/check"), metavar="DIR",
                   help="where the bot's stderr log goes (default: arena-data/logs/check/)")
    add_isolation_options(c)
    c.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    from arena.host.check import CheckStep, check_bot  # the host (gRPC) loads here, not for 'arena --help'
    from arena.host.clock import Clocks

    console = make_console(highlight=False)
    marks = {True: "[green]PASS[/green]", False: "[bold red]FAIL[/bold red]", None: "[dim]SKIP[/dim]"}

    def show(step: CheckStep) -> None:
        console.print(f"{marks[step.ok]} {escape(step.name)}: {escape(step.detail)}")

    try:
        clocks = Clocks(args.decision_ms, args.bank_ms)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    report = check_bot(args.bot, log_dir=args.logs, ready_timeout=args.ready_s, clocks=clocks, seed=args.seed,
                       progress=show, policy=isolation_from_args(args), game=args.game)
    if report.log_path is not None:
        console.print(f"bot log: {report.log_path}")
    failed = report.failed
    if failed is None:
        console.print(f"[bold green]PASS[/bold green]: {escape(report.bot)} is ready to submit")
        return 0
    console.print(f"[bold red]FAIL[/bold red]: {escape(report.bot)} failed step '{escape(failed.name)}'")
    return 1


def register_store_commands(bot_sub: argparse._SubParsersAction) -> None:
    from arena.cli.options import add_db_option

    a = bot_sub.add_parser(
        "add", help="submit a bot, or a new version of it: the compliance check, then registration",
        description="Copy the bot's folder, run the compliance check (as 'arena bot check', playing --game) on "
                    "the copy and, if "
                    "it passes, register it under the name its manifest (or, for an address, its Describe reply) "
                    "gives: version 1 of a new name, or the next version of a known one (a removed bot comes "
                    "back with a new version). The host then plays that copy, exactly the files that were "
                    "checked. Files identical to the bot's current version add nothing (said, exit status 0). "
                    "A bot that fails the check is refused, saying why.")
    a.add_argument("bot", nargs="?", metavar="MANIFEST", help="bot.toml, or its folder")
    a.add_argument("--address", metavar="HOST:PORT", help="a bot already running elsewhere, instead of a manifest")
    a.add_argument("--logs", type=Path, default=Path("arena-data/logs/check"), metavar="DIR",
                   help="where the check's bot log goes (default: arena-data/logs/check/)")
    add_game_option(a, what="the game the check plays")
    add_db_option(a)
    add_isolation_options(a)
    a.set_defaults(func=run_add)

    ls = bot_sub.add_parser("list", help="the registered bots and their versions",
                            description="List the registered bots: each one's current version (NAME@NUMBER), or "
                                        "every version with --versions.")
    ls.add_argument("--all", action="store_true", help="include removed bots")
    ls.add_argument("--versions", action="store_true", help="every version of each bot, oldest first")
    ls.add_argument("--json", action="store_true", help="print JSON for scripts")
    add_db_option(ls)
    ls.set_defaults(func=run_list)

    rm = bot_sub.add_parser("remove", help="retire a bot (its matches and ratings stay)",
                            description="Retire a bot (all its versions): it can enter no new tournament; its "
                                        "matches and ratings stay. 'arena bot add' of the same name later brings it "
                                        "back as a new version.")
    rm.add_argument("name", metavar="NAME")
    add_db_option(rm)
    rm.set_defaults(func=run_remove)


def run_add(args: argparse.Namespace) -> int:
    from arena.cli.options import open_store
    from arena.registry import AlreadyRegistered, register_bot

    if (args.bot is None) == (args.address is None):
        raise UserError("give a manifest or --address HOST:PORT (one of them)")
    console = make_console(highlight=False)
    marks = {True: "[green]PASS[/green]", False: "[bold red]FAIL[/bold red]", None: "[dim]SKIP[/dim]"}
    with open_store(args, create=True) as store:
        try:
            row, _ = register_bot(store, args.bot or args.address, log_dir=args.logs,
                                  policy=isolation_from_args(args), game=args.game,
                                  progress=lambda step: console.print(f"{marks[step.ok]} {escape(step.name)}: "
                                                                      f"{escape(step.detail)}"))
        except AlreadyRegistered as same:
            console.print(f"[bold]already registered[/bold]: {escape(str(same))}")
            return 0
        what = "added" if row.number == 1 else f"added version {row.number} of"
        console.print(f"[bold green]{what}[/bold green] {escape(row.name)} as {escape(row.participant)} "
                      f"(version {escape(row.version)}, {escape(row.language)}) to {store.url}"
                      + (f"; its checked files are kept in {escape(str(row.files_dir))}" if row.files_dir else ""))
    return 0


def _row_json(r: "BotRow") -> dict:  # noqa: F821
    return {
        "name": r.name, "participant": r.participant, "number": r.number, "current": r.current,
        "version": r.version, "author": r.author, "language": r.language,
        "manifest": None if r.manifest_path is None else str(r.manifest_path), "address": r.address,
        "source": None if r.source_path is None else str(r.source_path),
        "files_dir": None if r.files_dir is None else str(r.files_dir),
        "files_sha256": r.files_sha256, "added_at": r.added_at.isoformat(),
        "removed_at": None if r.removed_at is None else r.removed_at.isoformat(),
    }


def run_list(args: argparse.Namespace) -> int:
    import json

    from rich.table import Table

    from arena.cli.options import open_store
    from arena.registry import changed_since_registration

    with open_store(args) as store:
        rows = store.list_bots(include_removed=args.all, all_versions=args.versions)
    if args.json:
        print(json.dumps([_row_json(r) for r in rows], indent=2))
        return 0
    if not rows:
        make_console().print("no bots registered yet: 'arena bot add path/to/bot.toml' (or run 'arena demo')")
        return 0
    table = Table(title="bot versions" if args.versions else "bots (current versions)")
    for col in ("bot", "version", "language", "author", "added from", "added"):
        table.add_column(col)
    for r in rows:
        where = r.address or str(r.source_path or r.manifest_path)
        if r.current and not r.removed and changed_since_registration(r):
            where += " *"
            table.caption = ("* the files there changed since this version was added; the checked files still "
                             "play: 'arena bot add' registers the changes as a new version")
        name = r.participant + (" (removed)" if r.removed else "")
        table.add_row(escape(name), escape(r.version), escape(r.language), escape(r.author), escape(where),
                      r.added_at.strftime("%Y-%m-%d %H:%M"))
    make_console().print(table)
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from arena.cli.options import open_store

    with open_store(args) as store:
        row = store.remove_bot(args.name)
    make_console(highlight=False).print(f"removed {escape(row.name)} (all its versions): its matches and ratings stay; "
                                        "'arena bot add' brings it back as a new version")
    return 0
