"""``arena demo``: the sample bots of each game in a short round robin, then each game's standings."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from arena.cli.console import make_console
from arena.cli.game_option import ALL, chosen_games, game_names
from arena.cli.options import add_db_option, describe_isolation, open_store
from arena.games.registry import DEFAULT_GAME
from arena.host.sandbox import IsolationPolicy, sandbox_available, sandbox_unavailable_reason
from arena.cli.tournament import DEFAULT_LOGS, play_tournament

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
#: Per game, the Python sample bots that play it (the Node bot plays every game, when Node is there).
PYTHON_BOTS = {
    "union_pacific": ("python/random_bot", "python/greedy_bot", "python/investor_bot"),
    "ticket_to_ride_pennsylvania": ("python/ttr_random_bot", "python/ttr_sensible_bot"),
}
NODE_BOT = "node"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a short tournament among the sample bots of each game, then the standings",
                       description="For each game (--game; default every game), registers its sample bots "
                                   "(Union Pacific: the Python random, greedy and investor bots; Ticket to Ride: "
                                   "Pennsylvania: the Python random and sensible bots; the Node.js bot, which plays "
                                   "both, when Node is installed), runs a round robin at table sizes 2, 3 and 4 "
                                   "(those the game has and its bots fill), and prints its standings. Ratings are "
                                   "per game: 'arena leaderboard --game GAME' shows one game's.")
    p.add_argument("--game", choices=(*game_names(), ALL), default=ALL,
                   help="the game to play (default all: every game, one tournament each)")
    p.add_argument("--players", default="2,3,4", help="table sizes (default 2,3,4)")
    p.add_argument("--rounds", type=int, default=2, help="rounds (default 2)")
    p.add_argument("--concurrency", type=int, default=2, help="matches at once (default 2)")
    p.add_argument("--seed", type=int, default=None,
                   help="tournament key (default: a random secret one, shown when the demo is over)")
    p.add_argument("--no-node", action="store_true", help="leave the Node.js bot out")
    p.add_argument("--logs", type=Path, default=DEFAULT_LOGS, metavar="DIR", help="bot logs folder")
    p.add_argument("--quiet", action="store_true", help="no live progress display")
    add_db_option(p)
    p.set_defaults(func=run)


def node_bot_ready(console: Console) -> bool:
    """Whether the Node bot can run; installs its packages with npm ci when they are missing."""
    folder = SAMPLE_BOTS / NODE_BOT
    if shutil.which("node") is None:
        console.print("[yellow]note[/yellow]: Node.js is not installed: the Node sample bot sits this demo out")
        return False
    if not (folder / "node_modules").is_dir():
        if shutil.which("npm") is None:
            console.print("[yellow]note[/yellow]: npm is not installed, so the Node bot's packages cannot be "
                          "installed: the Node sample bot sits this demo out")
            return False
        console.print("installing the Node bot's packages (npm ci) ...")
        proc = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            console.print(f"[yellow]note[/yellow]: npm ci failed ({proc.stderr.strip()[-300:]}): "
                          "the Node sample bot sits this demo out")
            return False
    return True


def run(args: argparse.Namespace) -> int:
    from arena.cli.tournament import _table_sizes

    console = make_console()
    policy = IsolationPolicy.sandbox()
    if not sandbox_available():
        # Only Arena's own sample bots play here: trusted, so the demo goes on unsandboxed.
        console.print(f"[yellow]note[/yellow]: {escape(sandbox_unavailable_reason())}; the sample bots play "
                      "unsandboxed (--isolation none)")
        policy = IsolationPolicy.none()
    node = not args.no_node and node_bot_ready(console)
    sizes = _table_sizes(args.players)
    tournaments: list[tuple[str, int]] = []
    code = 0
    with open_store(args, create=True) as store:
        for game in sorted(chosen_games(args), key=lambda g: g != DEFAULT_GAME):  # Arena's first game first
            tid, status = _play_game(console, store, game, node, sizes, args, policy)
            if tid is not None:
                tournaments.append((game, tid))
            code = code or status
        shown = " · ".join(f"arena tournament show {tid}" for _, tid in tournaments)
        boards = " · ".join(f"arena leaderboard --game {game}" for game, _ in tournaments)
        console.print(f"more: {shown} · {boards} · arena serve (web pages)")
    return code


def _play_game(console: Console, store, game: str, node: bool, sizes: tuple[int, ...], args: argparse.Namespace,
               policy: IsolationPolicy) -> tuple[int | None, int]:
    """One game's demo tournament: (its id, exit status); None when its bots cannot fill a table."""
    from arena.games import game_spec
    from arena.tournaments import TournamentConfig, create_tournament, resolve_bots

    spec = game_spec(game)
    entries = [str(SAMPLE_BOTS / b / "bot.toml") for b in PYTHON_BOTS.get(game, ())]
    if node:
        entries.append(str(SAMPLE_BOTS / NODE_BOT / "bot.toml"))
    rows = resolve_bots(store, entries, log_dir=args.logs, policy=policy, game=game,
                        on_register=lambda e: console.print(f"checking and registering {Path(e).parent.name} "
                                                            f"(arena bot check --game {game}) ..."))
    playable = tuple(k for k in sizes if k <= len(rows) and spec.min_players <= k <= spec.max_players)
    if not playable:
        console.print(f"[yellow]note[/yellow]: {spec.title}: {len(rows)} sample bot(s) fill no table of size "
                      f"{','.join(map(str, sizes))}; skipped")
        return None, 0
    config = TournamentConfig(bots=tuple(r.name for r in rows), versions={r.name: r.number for r in rows},
                              table_sizes=playable, rounds=args.rounds, game=game,
                              variant=spec.default_variant, concurrency=args.concurrency,
                              isolation={"level": policy.level.value, "limits": policy.limits.to_json()})
    tid = create_tournament(store, config, args.seed)
    console.print(f"demo tournament {tid} ({spec.title}): {', '.join(r.participant for r in rows)}; table sizes "
                  f"{','.join(map(str, playable))}; {describe_isolation(policy)}; database {store.url}")
    return tid, play_tournament(console, store, tid, args, None, policy)
