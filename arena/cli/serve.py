"""``arena serve``: the read-only web pages (leaderboards, bot pages, replay viewer)."""

from __future__ import annotations

import argparse

from arena.cli.errors import UserError
from arena.cli.options import add_db_option, open_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="web pages: leaderboards, bot pages, replay viewer",
                       description="Serve read-only web pages over the store: the leaderboard of every tournament "
                                   "and overall, a page per bot (rating history, head-to-head, faults), a replay "
                                   "viewer per match, and the JSON endpoints behind them under /api/ (docs/web.md). "
                                   "Stop with Ctrl-C.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for everyone)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--cache-mb", type=int, default=64, metavar="MB",
                   help="memory for the answers kept until the data change (default 64; 0: make every answer "
                        "afresh); see docs/web.md")
    add_db_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from leaderboard.web import create_app

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be between 0 and 65535, got {args.port}")
    if not 0 <= args.cache_mb <= 1 << 20:
        raise UserError(f"--cache-mb must be between 0 and {1 << 20}, got {args.cache_mb}")
    with open_store(args) as store:  # a clear one-line error for a database that cannot be opened
        url = store.url
    print(f"serving {url} at http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    config = uvicorn.Config(create_app(args.db, cache_bytes=args.cache_mb * 1024 * 1024), host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)
    try:
        server.run()
    except OSError as exc:  # e.g. the port is taken
        raise UserError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
    return 0 if server.started else 1
