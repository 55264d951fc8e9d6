"""The store's bots and their versions: add (a new version), look up, list, remove."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from leaderboard.errors import StoreError, UnknownBotError, VersionExists
from leaderboard.models import Bot, BotVersion
from leaderboard.rows import BotRow, participant_name
from leaderboard.store_core import (
    StoreCore,
    _SHA256,
    _bot_row,
    _check_bot_name,
    _find_bot,
    _find_version,
    _newest_version,
    _now,
)


class BotRegistry(StoreCore):
    """Bots and their versions (a part of :class:`leaderboard.store.Store`)."""

    def add_bot(
        self,
        name: str,
        version: str,
        author: str,
        language: str,
        *,
        manifest_path: str | Path | None = None,
        address: str | None = None,
        files_sha256: str,
        files_dir: str | Path | None = None,
        source_path: str | Path | None = None,
    ) -> BotRow:
        """Register a new version of the bot ``name`` (its first one when the name is new).

        The bot is reached through a manifest file or at an address (exactly one);
        ``files_dir`` is the host's frozen copy of the checked files, if it keeps one.
        A removed bot becomes active again with the new version.  Raises
        :class:`VersionExists` when the bot is active and its current version has
        these very files (``files_sha256``), and :class:`BotNameError` for a name
        that cannot be registered.
        """
        _check_bot_name(name)
        for field, value in (("version", version), ("language", language)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"bot {name!r}: {field} must be a non-empty string")
        if not isinstance(author, str):
            raise ValueError(f"bot {name!r}: author must be a string")
        if (manifest_path is None) == (address is None):
            raise ValueError(f"bot {name!r}: give exactly one of manifest_path and address")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ValueError(f"bot {name!r}: address must be a non-empty string")
        if files_dir is not None and manifest_path is None:
            raise ValueError(f"bot {name!r}: only a manifest bot has files to keep")
        sha = files_sha256.lower() if isinstance(files_sha256, str) else ""
        if not _SHA256.fullmatch(sha):
            raise ValueError(
                f"bot {name!r}: files_sha256 must be 64 hex digits, got {files_sha256!r}"
            )
        try:
            with self._write() as session:
                now = _now()
                bot = session.exec(select(Bot).where(col(Bot.name) == name)).first()
                if bot is None:
                    bot = Bot(name=name, added_at=now)
                    session.add(bot)
                    session.flush()
                    number = 1
                else:
                    newest = _newest_version(session, bot)
                    if newest is not None and bot.removed_at is None and newest.files_sha256 == sha:
                        raise VersionExists(
                            f"bot {name!r} is already registered with these files as version "
                            f"{newest.number} ({participant_name(name, newest.number)})",
                            _bot_row(bot, newest, current=True),
                        )
                    number = 1 if newest is None else newest.number + 1
                    bot.removed_at = None
                    session.add(bot)
                assert bot.id is not None
                row = BotVersion(
                    bot_id=bot.id,
                    number=number,
                    version=version,
                    author=author,
                    language=language,
                    manifest_path=None if manifest_path is None else str(manifest_path),
                    address=address,
                    files_sha256=sha,
                    files_dir=None if files_dir is None else str(files_dir),
                    source_path=None if source_path is None else str(source_path),
                    added_at=now,
                )
                session.add(row)
                session.flush()
                return _bot_row(bot, row, current=True)
        except IntegrityError:
            # Lost a race with another process adding a version of the same bot: say so plainly.
            raise StoreError(
                f"another process registered a version of bot {name!r} at the same time; "
                "see 'arena bot list' and try again"
            ) from None

    def get_bot(self, name: str) -> BotRow:
        """The bot's current version, removed or not; ``NAME@NUMBER`` names one version.

        A bot literally named ``NAME@NUMBER`` (made before versions) is found first.
        :class:`UnknownBotError` if there is none.
        """
        with self._read() as session:
            bot, version = _find_version(session, name)
            return _bot_row(bot, version, current=version.id == _newest_version(session, bot).id)

    def bot_versions(self, name: str) -> list[BotRow]:
        """Every version of the bot ``name`` (a plain name), oldest first."""
        with self._read() as session:
            bot = _find_bot(session, name)
            versions = session.exec(
                select(BotVersion)
                .where(col(BotVersion.bot_id) == bot.id)
                .order_by(col(BotVersion.number))
            ).all()
            return [_bot_row(bot, v, current=i == len(versions) - 1) for i, v in enumerate(versions)]

    def list_bots(self, include_removed: bool = False, *, all_versions: bool = False) -> list[BotRow]:
        """Each bot's current version, by name (every version with ``all_versions``);
        removed bots only with ``include_removed``."""
        newest = (
            sa_select(col(BotVersion.bot_id), func.max(col(BotVersion.number)).label("number"))
            .group_by(col(BotVersion.bot_id))
            .subquery()
        )
        query = (
            select(Bot, BotVersion, newest.c.number)
            .join(BotVersion, col(BotVersion.bot_id) == col(Bot.id))
            .join(newest, newest.c.bot_id == col(Bot.id))
            .order_by(col(Bot.name), col(BotVersion.number))
        )
        if not all_versions:
            query = query.where(col(BotVersion.number) == newest.c.number)
        if not include_removed:
            query = query.where(col(Bot.removed_at).is_(None))
        with self._read() as session:
            return [_bot_row(bot, v, current=v.number == top) for bot, v, top in session.exec(query)]

    def remove_bot(self, name: str) -> BotRow:
        """Mark an active bot removed (its versions, matches and ratings stay); returns its
        current version.  Adding it again makes it active with a new version."""
        with self._write() as session:
            bot = _find_bot(session, name)
            if bot.removed_at is not None:
                raise UnknownBotError(
                    f"bot {name!r} is already removed (at {bot.removed_at.isoformat()})"
                )
            bot.removed_at = _now()
            session.add(bot)
            session.flush()
            return _bot_row(bot, _newest_version(session, bot), current=True)
