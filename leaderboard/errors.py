"""The errors the store raises; every message names the bot, tournament or match concerned."""

from __future__ import annotations

from arena import sinks


class StoreError(Exception):
    """Base class of everything the store raises on purpose."""


class DatabaseURLError(StoreError, ValueError):
    """A database URL (or --db / ARENA_DB value) that the store cannot use."""


class BotNameError(StoreError, ValueError):
    """A bot name that cannot be registered: empty, reserved, or with '@' in it."""


class UnknownBotError(StoreError, sinks.UnknownBotError):
    """No (active) bot has that name (or no such version)."""


class VersionExists(StoreError, sinks.VersionExists):
    """The bot's current version has these very files: no new version was registered.

    ``row`` is that version (a :class:`leaderboard.rows.BotRow`).
    """


class UnknownTournamentError(StoreError, LookupError):
    """No tournament has that id."""


class UnknownMatchError(StoreError, LookupError):
    """No match has that id."""


class AlreadyRecorded(StoreError, sinks.AlreadyRecorded):
    """The match (same tournament and schedule index, or same match id) is stored already.

    :meth:`leaderboard.store.Store.record_match` raises it instead of storing a
    result twice; the stored match is left untouched.
    """


class CorruptDataError(StoreError):
    """A stored JSON text (replay, faults, config) that no longer parses.

    Raised on read; the row itself is never changed or deleted.
    """
