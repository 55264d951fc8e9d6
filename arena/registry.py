"""Submitting bots: a frozen copy of the files, the compliance check on it, then a version in the store.

A bot is registered under the name its manifest (or, for a bot at an address, its
Describe reply) gives, and has a history of versions: adding a known name with
other files (a new ``version`` in the manifest changes the manifest, so the files)
checks the new files and registers version N+1; adding the very files of the
current version registers nothing (:class:`AlreadyRegistered`).  A version's files
are frozen (:mod:`arena.botfiles`): the host plays the copy that was checked, and
refuses a copy that changed since.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

from arena.botfiles import (
    BotFilesError,
    FrozenFilesChanged,
    bot_root,
    default_files_dir,
    freeze,
    keep,
    legacy_files_sha256,
    tree_sha256,
    verify_frozen,
)
from arena.errors import UserError
from arena.games.registry import DEFAULT_GAME
from arena.host.check import CheckReport, CheckStep, check_bot
from arena.host.manifest import BotSpec, ManifestError, load_manifest, parse_bot_spec
from arena.host.sandbox import IsolationPolicy
from arena.sinks import BotRow, ResultStore, UnknownBotError, VersionExists

__all__ = ["AlreadyRegistered", "changed_since_registration", "files_dir_of", "parse_spec", "register_bot",
           "spec_for"]


class AlreadyRegistered(UserError):
    """The bot's current version has these very files: nothing new was registered (``row`` is that version)."""

    def __init__(self, message: str, row: BotRow) -> None:
        super().__init__(message)
        self.row = row


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


def files_dir_of(store: ResultStore) -> Path:
    """Where this store's frozen copies go (see :func:`arena.botfiles.default_files_dir`)."""
    return default_files_dir(store.sqlite_path)


def spec_for(row: BotRow) -> BotSpec:
    """How to reach a registered version, its files checked first.

    A frozen copy is hashed again and refused if it changed; a version added before
    Arena kept copies is played from its manifest if its files still hash as registered.
    Either way a refusal names the bot, the version and what to do.
    """
    if row.address is not None:
        return BotSpec(address=row.address, name=row.name, participant=row.participant)
    assert row.manifest_path is not None
    again = f"'arena bot add {row.source_path or row.manifest_path}' registers the files there as a new version"
    if row.files_dir is not None:
        try:
            verify_frozen(row.files_dir, row.files_sha256, what=f"the files of {row.participant}")
        except FrozenFilesChanged as exc:
            raise FrozenFilesChanged(f"{exc}: refusing to play files other than those checked; {again}") from None
    try:
        manifest = load_manifest(row.manifest_path)
    except ManifestError as exc:
        raise UserError(f"bot {row.participant}: its manifest can no longer be used: {exc}; {again}") from None
    if row.files_dir is None:
        try:
            changed = legacy_files_sha256(manifest.working_dir) != row.files_sha256
        except OSError as exc:
            raise UserError(f"bot {row.participant}: cannot read its files: {exc}; {again}") from None
        if changed:
            raise FrozenFilesChanged(
                f"the files of {row.participant} in {manifest.working_dir} changed since it was checked (it was "
                f"added before Arena kept a copy of the checked files): refusing to play unchecked files; {again}")
    elif not manifest.working_dir.is_relative_to(row.files_dir.resolve()):
        raise FrozenFilesChanged(f"bot {row.participant}: its working_dir {manifest.working_dir} is outside its "
                                 f"frozen copy {row.files_dir}; {again}")
    return BotSpec(manifest=manifest, name=row.name, participant=row.participant)


def changed_since_registration(row: BotRow) -> bool:
    """Whether the files a manifest version was taken from differ from the version's files now."""
    source = row.source_path or row.manifest_path
    if source is None:
        return False
    try:
        manifest = load_manifest(source)
        if row.files_dir is None:
            return legacy_files_sha256(manifest.working_dir) != row.files_sha256
        return tree_sha256(bot_root(manifest)) != row.files_sha256
    except (ManifestError, BotFilesError, OSError):
        return True


def _current(store: ResultStore, name: str) -> BotRow | None:
    if "@" in name:
        return None  # refused by the store, with the reason, when it is added
    try:
        row = store.get_bot(name)
    except UnknownBotError:
        return None
    return None if row.removed else row


def _already(row: BotRow) -> AlreadyRegistered:
    return AlreadyRegistered(f"bot {row.name!r} is already registered with these files as version {row.number} "
                             f"({row.participant}): nothing to add", row)


def register_bot(
    store: ResultStore,
    text: str,
    *,
    log_dir: Path,
    check: bool = True,
    progress: Callable[[CheckStep], None] | None = None,
    policy: IsolationPolicy | None = None,
    files_dir: Path | None = None,
    on_check: Callable[[], None] | None = None,
    game: str = DEFAULT_GAME,
) -> tuple[BotRow, CheckReport | None]:
    """Check a bot and store it as a new version; a bot that fails the check is refused with the reason.

    The check plays ``game`` (the bot must list it in Describe).

    A manifest bot's folder is copied into ``files_dir`` (default :func:`files_dir_of`)
    first, and the check runs on the copy, which the new version then plays.
    Raises :class:`AlreadyRegistered` when the bot's current version has these files.
    ``on_check()`` is called just before the check of files that will be a new version.
    """
    spec = parse_spec(text)
    policy = policy if policy is not None else IsolationPolicy.sandbox()
    if spec.manifest is None:
        return _register_address(store, spec, log_dir=log_dir, check=check, progress=progress, policy=policy,
                                 on_check=on_check, game=game)
    source = spec.manifest
    if "@" in source.name:
        raise UserError(f"{source.path}: the bot name {source.name!r} contains '@', which separates a bot's name "
                        "from its version number (greedy@2): choose a name without it")
    current = _current(store, source.name)
    if current is not None and current.files_dir is not None and tree_sha256(bot_root(source)) == current.files_sha256:
        raise _already(current)  # before the (slow) copy and check
    files_dir = files_dir if files_dir is not None else files_dir_of(store)
    copy = freeze(source, files_dir)
    try:
        if current is not None and current.files_dir is not None and copy.sha256 == current.files_sha256:
            raise _already(current)
        report: CheckReport | None = None
        if check:
            if on_check is not None:
                on_check()
            report = check_bot(BotSpec(manifest=copy.manifest), log_dir=log_dir, progress=progress, policy=policy,
                               game=game)
            if not report.passed:
                failed = report.failed
                reason = f"{failed.name}: {failed.detail}" if failed else "the check did not run"
                raise UserError(f"bot {source.name!r} ({source.path}) failed the compliance check, so it was not "
                                f"added ({reason})" + (f"; its log: {report.log_path}" if report.log_path else ""))
            try:
                copy.verify()
            except FrozenFilesChanged as exc:
                raise UserError(f"{exc} (during the compliance check: did the bot write into its own folder?); "
                                "it was not added") from None
        kept = keep(copy, files_dir)
    except BaseException:
        copy.discard()
        raise
    m = kept.manifest
    try:
        row = store.add_bot(m.name, m.version, m.author, m.language, manifest_path=m.path,
                            files_sha256=kept.sha256, files_dir=kept.dir, source_path=source.path)
    except VersionExists as exc:  # another process added these files meanwhile
        raise _already(exc.row) from None  # type: ignore[arg-type]
    return row, report


def _register_address(store: ResultStore, spec: BotSpec, *, log_dir: Path, check: bool,
                      progress: Callable[[CheckStep], None] | None, policy: IsolationPolicy,
                      on_check: Callable[[], None] | None, game: str) -> tuple[BotRow, CheckReport | None]:
    """A bot at an address: its Describe reply names it; a new address or version is a new version.

    The host cannot freeze a bot that runs elsewhere: its owner decides what answers there.
    """
    report: CheckReport | None = None
    if check:
        if on_check is not None:
            on_check()
        report = check_bot(spec, log_dir=log_dir, progress=progress, policy=policy, game=game)
        if not report.passed:
            failed = report.failed
            reason = f"{failed.name}: {failed.detail}" if failed else "the check did not run"
            raise UserError(f"bot {spec.label!r} failed the compliance check, so it was not added ({reason})"
                            + (f"; its log: {report.log_path}" if report.log_path else ""))
    info = (report.describe if report else None) or {}
    name = str(info.get("name") or spec.address)
    version = str(info.get("version", ""))
    sha = hashlib.sha256(f"{spec.address}\n{version}".encode()).hexdigest()
    try:
        row = store.add_bot(name, version, str(info.get("author", "")), str(info.get("language", "")),
                            address=spec.address, files_sha256=sha)
    except VersionExists as exc:
        raise _already(exc.row) from None  # type: ignore[arg-type]
    return row, report

