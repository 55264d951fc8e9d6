"""``arena play``: one match between bots (registered names, manifests or HOST:PORT addresses)."""

from __future__ import annotations

import argparse
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli.errors import UserError
from arena.cli.game_option import add_game_option, check_variant, seats_help, variants_help
from arena.cli.options import add_db_option, add_isolation_options, describe_isolation, isolation_from_args

if TYPE_CHECKING:  # the host (gRPC), the engines and rich load in run(): 'arena --help' needs none of them
    from rich.console import Console

    from arena.host.manifest import BotSpec
    from arena.records import MatchRecord


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play", help="play one match between bots",
        description=f"Play one match of a game (--game; its table sizes: {seats_help()}) between bots, each "
                    "given by its manifest (bot.toml, or the folder holding it), by the HOST:PORT of a bot already running, or by the name of a registered bot "
                    "(its current version, from the files that were checked; NAME@N for version N). The same "
                    "bot twice is one process holding two seats. A bot whose Describe does not list the game is "
                    "refused (its seat forfeits). "
                    "Exit status 1 when a seat's bot never started (its seat forfeits).")
    p.add_argument("--bot", action="append", required=True, metavar="NAME|MANIFEST|HOST:PORT", dest="bots",
                   help="a bot, in seat order (repeat once per seat)")
    add_game_option(p, what="the game to play")
    p.add_argument("--seed", type=int, help="deck seed, to replay a deal locally (default: a random one, printed "
                                            "here and recorded in the replay; never sent to the bots)")
    p.add_argument("--variant", default=None,
                   help=variants_help())
    p.add_argument("--replays", type=Path, default=Path("replays"), metavar="DIR",
                   help="where the replay is written (default: replays/)")
    p.add_argument("--decision-ms", type=int, default=1000, metavar="N", help="time per decision (default 1000)")
    p.add_argument("--bank-ms", type=int, default=10_000, metavar="N", help="time bank per match (default 10000)")
    p.add_argument("--max-faults", type=int, default=3, metavar="N", help="faults before a seat forfeits "
                                                                         "(default 3)")
    p.add_argument("--ready-s", type=float, default=10.0, metavar="S",
                   help="how long a bot may take to start (default 10)")
    p.add_argument("--logs", type=Path, default=Path("arena-data/logs"), metavar="DIR",
                   help="where the bots' stderr logs go (default: arena-data/logs/)")
    add_isolation_options(p)
    add_db_option(p)
    p.set_defaults(func=run)


def _specs(texts: list[str], args: argparse.Namespace) -> list[BotSpec]:
    """A spec per --bot: an existing file or folder, or anything that reads as a path (a ``/`` or a
    ``.toml``), is a manifest; HOST:PORT an address; anything else a registered bot's name (looked up
    in the store, opened only then)."""
    from arena.host.manifest import ManifestError, is_address, parse_bot_spec

    specs: list[BotSpec | None] = []
    names: dict[int, str] = {}
    for i, text in enumerate(texts):
        if Path(text).expanduser().exists() or is_address(text) or "/" in text or text.endswith(".toml"):
            try:
                specs.append(parse_bot_spec(text))
            except ManifestError as exc:
                raise UserError(str(exc)) from None
        else:
            specs.append(None)
            names[i] = text
    if names:
        from arena.cli.options import open_store
        from arena.registry import spec_for
        from leaderboard.errors import UnknownBotError

        with open_store(args) as store:
            for i, text in names.items():
                try:
                    row = store.get_bot(text)
                except UnknownBotError as exc:
                    raise UserError(f"{exc}: --bot takes a registered bot's name (see 'arena bot list'), a "
                                    "bot.toml (or its folder), or HOST:PORT") from None
                specs[i] = spec_for(row)
    return [spec for spec in specs if spec is not None]


def run(args: argparse.Namespace) -> int:
    from arena.cli.console import make_console
    from arena.games import get_game
    from arena.host.clock import Clocks
    from arena.host.match import MatchConfig, run_match
    from arena.host.process import BotPool
    from arena.matchids import new_match_id
    from arena.records import FaultReason
    from arena.replay import write_replay

    game = get_game(args.game)
    variant = check_variant(game.name, args.variant)
    if not game.min_players <= len(args.bots) <= game.max_players:
        raise UserError(f"a match of {game.name} needs {game.min_players} to {game.max_players} --bot options, "
                        f"got {len(args.bots)}")
    try:
        config = MatchConfig(clocks=Clocks(args.decision_ms, args.bank_ms), max_faults=args.max_faults)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    specs = _specs(args.bots, args)
    names = [spec.label for spec in specs] if any(spec.participant for spec in specs) else None
    policy = isolation_from_args(args)
    seed = args.seed if args.seed is not None else secrets.randbelow(1 << 31)
    match_id = new_match_id()  # random: the bots see it, so it must not hint at the seed
    when = time.strftime("%Y%m%d-%H%M%S")
    console = make_console(highlight=False)
    with BotPool(log_dir=args.logs, ready_timeout=args.ready_s, policy=policy, game=game.name) as pool:
        with console.status(f"playing {match_id} ..."):
            record = run_match(pool, specs, seed=seed, variant=variant, match_id=match_id, config=config,
                               names=names, game=game)
    path = write_replay(args.replays / f"play-{when}-{len(specs)}p-{match_id}.json",
                        record.replay)
    print_record(console, record)
    console.print(f"deck seed {seed}: --seed {seed} deals the same hands again (keep it to yourself while "
                  "the deal matters)", markup=False, soft_wrap=True)
    console.print(f"replay written to {path}", markup=False, soft_wrap=True)
    console.print(f"bot logs in {args.logs}/; {describe_isolation(policy)}", markup=False, soft_wrap=True)
    never = [(s, f) for s in record.seats for f in s.faults if f.reason is FaultReason.NOT_READY]
    for seat, fault in never:
        console.print(f"seat {seat.seat} ({seat.bot}) never started, so it forfeited: {fault.detail}",
                      style="bold red", markup=False, soft_wrap=True)
    return 1 if never else 0


def print_record(console: Console, record: MatchRecord) -> None:
    """The result table of one match: scores (the game's own: cash, points), places, faults."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{record.match_id}: {record.game}, {record.players} players, {record.variant}, seed "
                        f"{record.seed}, {record.termination.value}")
    for column in ("place", "seat", "bot", "score", "faults"):
        table.add_column(column, justify="right" if column in ("place", "seat", "score") else "left")
    rows: list[tuple[int, str, str, int, str]] = []
    for s in record.seats:
        reasons = ", ".join(f"{f.reason.value}@{f.decision}" for f in s.faults)
        faults = f"{len(s.faults)}: {reasons}" if s.faults else "0"
        if s.forfeited:
            faults += " [bold red]FORFEIT[/bold red]"
        rows.append((s.place, str(s.seat), escape(s.bot), s.score, faults))
    for r in record.references:
        rows.append((r.place, "-", f"{r.participant} reference", r.score, ""))
    for place, seat, bot, score, faults in sorted(rows, key=lambda r: (r[0], r[1])):
        table.add_row(str(place), seat, bot, str(score), faults)
    console.print(table)
    faults = [f for s in record.seats for f in s.faults]
    for fault in faults:
        console.print(f"  fault: seat {fault.seat}, decision {fault.decision}, {fault.reason.value}: {fault.detail}",
                      markup=False)
    for forfeit in record.replay.get("match", {}).get("forfeits", []):
        console.print(f"  forfeit: seat {forfeit['seat']} at decision {forfeit['decision']}: {forfeit['reason']}",
                      markup=False)
