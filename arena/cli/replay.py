"""``arena replay verify FILE...``: re-play replays and compare; ``arena replay export``: stored
replays as files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.markup import escape

from arena.cli.console import make_console
from arena.cli.errors import UserError
from arena.cli.options import add_db_option, open_store
from arena.games.base import ReplayError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="work with replay files", description="Work with replay files.")
    rsub = p.add_subparsers(dest="replay_command", metavar="ACTION", required=True)
    v = rsub.add_parser("verify", help="re-play a replay from its seed and actions and compare",
                        description="Re-play a replay from its seed and actions; exit 0 if it reproduces the "
                                    "same events and result, 1 if it does not, 2 if the file is unusable (every "
                                    "file is verified; each line names its file).")
    v.add_argument("files", type=Path, nargs="+", metavar="FILE")
    v.set_defaults(func=run_verify)

    e = rsub.add_parser(
        "export", help="write stored replays as files, one per match",
        usage="arena replay export [-h] (MATCH_ID [MATCH_ID ...] | --tournament ID) DIR [--unpublished] [--db URL]",
        description="Write the stored replays of matches (or of every match of a tournament) into DIR, one file "
                    "per match named MATCH_ID.json, as 'arena replay verify' reads them: to verify, share and "
                    "audit. Only published replays are written, as on the web pages: those of a finished "
                    "tournament (and, with --publish-deals, of each deal whose seatings are all played). Exit 0 "
                    "when every replay asked for was written, 1 when some were left out as unpublished, 2 on "
                    "an error.")
    e.add_argument("items", nargs="+", metavar="MATCH_ID... DIR",
                   help="the matches to export, then the folder to write into (created if missing)")
    e.add_argument("--tournament", type=int, metavar="ID", help="every stored match of tournament ID")
    e.add_argument("--unpublished", action="store_true",
                   help="also write replays that are not published yet (a tournament still being played): "
                        "they show every hidden hand and the deck seed of deals whose other seatings are still "
                        "to play. For the operator's own checks only: keep them private until it is finished")
    add_db_option(e)
    e.set_defaults(func=run_export)


def run_verify(args: argparse.Namespace) -> int:
    from arena.replay import load_replay, verify_replay  # the engines load here, not for 'arena --help'

    """Every file is verified, even after an unusable one; each line names its file."""
    console = make_console(highlight=False)
    failed = unusable = 0
    for path in args.files:
        try:
            result = verify_replay(load_replay(path))
        except ReplayError as exc:
            print(f"arena: error: {_naming(path, str(exc))}", file=sys.stderr, flush=True)
            unusable += 1
            continue
        mark = "[green]OK[/green]" if result.ok else "[red]MISMATCH[/red]"
        console.print(f"{mark} {escape(str(path))}: {escape(result.message)}")
        failed += not result.ok
    return 2 if unusable else 1 if failed else 0


def _naming(path: Path, message: str) -> str:
    """``message`` about the replay in ``path``, starting with the path (once)."""
    if message.startswith(f"{path}:"):
        return message
    return f"{path}: {message.removeprefix('replay: ')}"


def run_export(args: argparse.Namespace) -> int:
    from leaderboard.errors import CorruptDataError, UnknownMatchError
    from leaderboard.web.publication import Redactor, Visibility, public_replay

    folder, match_ids = Path(args.items[-1]), args.items[:-1]
    if args.tournament is None and not match_ids:
        raise UserError("give the matches and the folder (MATCH_ID... DIR), or --tournament ID DIR")
    if args.tournament is not None and match_ids:
        raise UserError("give either match ids or --tournament ID, not both")
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    console = make_console(highlight=False)
    written = same = errors = 0
    withheld: dict[int, int] = {}  # tournament id -> replays left out
    secret = 0  # unpublished replays written (--unpublished)
    with open_store(args) as store:
        if args.tournament is not None:
            match_ids = [m.id for m in sorted(store.list_matches(tournament_id=args.tournament),
                                              key=lambda m: m.schedule_index)]
        visibility, redactor = Visibility(store), Redactor.of(store)
        for match_id in dict.fromkeys(match_ids):  # each once, in the order given
            try:
                row = store.get_match(match_id)
            except (CorruptDataError, UnknownMatchError) as exc:
                print(f"arena: error: {exc}; not exported", file=sys.stderr)
                errors += 1
                continue
            published = visibility.published(row)
            if not (published or args.unpublished):
                withheld[row.tournament_id] = withheld.get(row.tournament_id, 0) + 1
                continue
            path = folder / f"{_file_stem(row.id)}.json"
            text = json.dumps(redactor.clean(public_replay(row.replay or {})), separators=(",", ":")) + "\n"
            if path.exists():
                if path.read_text(encoding="utf-8", errors="replace") != text:
                    print(f"arena: error: {path} exists and holds something else: not overwritten (move it away, "
                          "or export into another folder)", file=sys.stderr)
                    errors += 1
                    continue
                same += 1
            else:
                _write_atomically(path, text)
                written += 1
            secret += not published
        summary = (f"{written + same} replay(s) in {folder}" + (f" ({same} already there)" if same else "")
                   + f"; check them with: arena replay verify {folder}/*.json" if written + same
                   else f"no replay written to {folder}")
        console.print(summary, markup=False)
        for tid, count in withheld.items():
            tournament = visibility.tournament(tid)
            deals = " (or, with its --publish-deals, once every seating of a deal is played)" \
                if tournament.config.get("publish_deals") else ""
            print(f"arena: left out {count} replay(s) of tournament {tid} ({tournament.status}): its replays are "
                  f"published when it is finished{deals}, since until then they show hidden hands and the deck "
                  "seeds of deals still in play; --unpublished writes them anyway, for the operator's own use",
                  file=sys.stderr)
    if secret:
        print(f"arena: {secret} of these replay(s) are not published yet: keep them to yourself until their "
              "tournament is finished", file=sys.stderr)
    return 2 if errors else 1 if withheld else 0


def _file_stem(match_id: str) -> str:
    """The match id as a file name; an id that is not a plain name (never made by Arena) is refused."""
    if not match_id or match_id.startswith(".") or not all(c.isascii() and (c.isalnum() or c in "-_.")
                                                            for c in match_id):
        raise UserError(f"match id {match_id!r} cannot be a file name")
    return match_id


def _write_atomically(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
