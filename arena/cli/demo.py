"""``arena demo``: the sample bots in a short round robin, then the leaderboard."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from arena.cli.console import make_console
from arena.cli.options import add_db_option, describe_isolation, open_store
from arena.host.sandbox import IsolationPolicy, sandbox_available, sandbox_unavailable_reason
from arena.cli.tournament import DEFAULT_LOGS, play_tournament

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
PYTHON_BOTS = ("python/random_bot", "python/greedy_bot", "python/investor_bot")
NODE_BOT = "node"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="a short tournament among the sample bots, then the leaderboard",
                       description="Registers the sample bots (Python random, greedy and investor bots, and the "
                                   "Node.js bot when Node is installed), runs a round robin at table sizes 2 (with "
                                   "the imaginary shareholder), 3 and 4, and prints the leaderboard.")
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
    from arena.tournaments import TournamentConfig, create_tournament, resolve_bots

    console = make_console()
    policy = IsolationPolicy.sandbox()
    if not sandbox_available():
        # Only Arena's own sample bots play here: trusted, so the demo goes on unsandboxed.
        console.print(f"[yellow]note[/yellow]: {escape(sandbox_unavailable_reason())}; the sample bots play "
                      "unsandboxed (--isolation none)")
        policy = IsolationPolicy.none()
    entries = [str(SAMPLE_BOTS / b / "bot.toml") for b in PYTHON_BOTS]
    if not args.no_node and node_bot_ready(console):
        entries.append(str(SAMPLE_BOTS / NODE_BOT / "bot.toml"))
    with open_store(args, create=True) as store:
        rows = resolve_bots(store, entries, log_dir=args.logs, policy=policy,
                            on_register=lambda e: console.print(f"checking and registering {Path(e).parent.name} "
                                                                "(arena bot check) ..."))
        sizes = tuple(k for k in _table_sizes(args.players) if k <= len(rows))
        config = TournamentConfig(bots=tuple(r.name for r in rows), versions={r.name: r.number for r in rows},
                                  table_sizes=sizes, rounds=args.rounds,
                                  concurrency=args.concurrency,
                                  isolation={"level": policy.level.value, "limits": policy.limits.to_json()})
        tid = create_tournament(store, config, args.seed)
        console.print(f"demo tournament {tid}: {', '.join(r.participant for r in rows)}; table sizes "
                      f"{','.join(map(str, sizes))}; {describe_isolation(policy)}; database {store.url}")
        code = play_tournament(console, store, tid, args, None, policy)
        console.print(f"more: arena tournament show {tid} · arena leaderboard · arena serve (web pages)")
        return code
