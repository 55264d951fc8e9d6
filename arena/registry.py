"""Submitting bots: the compliance check, then a row in the store.

A bot is registered under the name its manifest (or, for a bot at an address, its
Describe reply) gives.  The store keeps the manifest path or the address and a
SHA-256 of the bot's files, so a later change to a submitted bot can be noticed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

from arena.errors import UserError
from arena.host.check import CheckReport, CheckStep, check_bot
from arena.host.sandbox import IsolationPolicy
from arena.host.manifest import BotSpec, ManifestError, load_manifest, parse_bot_spec
from leaderboard.errors import UnknownBotError
from leaderboard.rows import BotRow
from leaderboard.store import Store

#: Folders a bot's file hash leaves out: installed packages, caches, logs.
IGNORED_DIRS = frozenset({"node_modules", "__pycache__", ".git", ".venv", "venv", "logs", ".pytest_cache"})


def files_sha256(root: Path) -> str:
    """SHA-256 over the relative paths and contents of every file below ``root``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root)
        if any(part in IGNORED_DIRS for part in rel.parts):
            continue
        digest.update(rel.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def parse_spec(text: str) -> BotSpec:
    """A manifest path (a bot.toml, or a folder holding one) or a HOST:PORT, with a clear error."""
    candidate = Path(text)
    if candidate.is_dir():
        candidate = candidate / "bot.toml"
        text = str(candidate)
    try:
        return parse_bot_spec(text)
    except (ManifestError, ValueError) as exc:
        raise UserError(str(exc)) from None


def spec_for(row: BotRow) -> BotSpec:
    """How to reach a registered bot."""
    if row.address is not None:
        return BotSpec(address=row.address)
    assert row.manifest_path is not None
    try:
        return BotSpec(manifest=load_manifest(row.manifest_path))
    except ManifestError as exc:
        raise UserError(f"bot {row.name!r}: its manifest can no longer be used: {exc}") from None


def changed_since_registration(row: BotRow) -> bool:
    """Whether a manifest bot's files differ from what was registered."""
    if row.manifest_path is None:
        return False
    try:
        manifest = load_manifest(row.manifest_path)
    except ManifestError:
        return True
    return files_sha256(manifest.working_dir) != row.files_sha256


def register_bot(
    store: Store,
    text: str,
    *,
    log_dir: Path,
    check: bool = True,
    progress: Callable[[CheckStep], None] | None = None,
    policy: IsolationPolicy | None = None,
) -> tuple[BotRow, CheckReport | None]:
    """Check a bot and store it; a bot that fails the check is refused with the reason."""
    spec = parse_spec(text)
    if spec.manifest is not None:  # refuse a taken name before the (slow) check
        try:
            taken = store.get_bot(spec.manifest.name)
        except UnknownBotError:
            pass
        else:
            raise UserError(f"a bot named {taken.name!r} is already registered"
                            + (" (removed: the name stays taken)" if taken.removed else "")
                            + "; give the new bot another name in its bot.toml")
    report: CheckReport | None = None
    if check:
        report = check_bot(spec, log_dir=log_dir, progress=progress,
                           policy=policy if policy is not None else IsolationPolicy.sandbox())
        if not report.passed:
            failed = report.failed
            reason = f"{failed.name}: {failed.detail}" if failed else "the check did not run"
            raise UserError(f"bot {spec.label!r} failed the compliance check, so it was not added ({reason})"
                            + (f"; its log: {report.log_path}" if report.log_path else ""))
    if spec.manifest is not None:
        m = spec.manifest
        row = store.add_bot(m.name, m.version, m.author, m.language, manifest_path=m.path,
                            files_sha256=files_sha256(m.working_dir))
    else:
        info = (report.describe if report else None) or {}
        name = str(info.get("name") or spec.address)
        row = store.add_bot(name, str(info.get("version", "")), str(info.get("author", "")),
                            str(info.get("language", "")), address=spec.address,
                            files_sha256=hashlib.sha256(str(spec.address).encode()).hexdigest())
    return row, report
