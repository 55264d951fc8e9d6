"""The small interface through which the tournament runner, the workers, the SPRT and the
bot registry read and write results, so that ``arena`` never imports ``leaderboard``.

:class:`ResultStore` is what they need of a store (bots, tournaments, matches) and
:class:`MatchQueueSink` what they need of the match queue (claims with a lease).
``leaderboard.store.Store`` and ``leaderboard.queue.MatchQueue`` implement them; the CLI
(``arena/cli/``) opens the store and hands it in.  The plain values that cross the
interface (bot versions, tournaments, leases, worker names) and the errors a store raises
on purpose that the callers act on are defined here; ``leaderboard`` re-exports them.
"""

from __future__ import annotations

import enum
import os
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, Sequence

from arena.records import MatchRecord

__all__ = ["DEFAULT_LEASE_S", "VERSION_SEPARATOR", "AlreadyRecorded", "BotRow", "Lease", "MatchQueueSink",
           "RecordOutcome", "ResultStore", "TournamentRow", "TournamentStatus", "UnknownBotError", "VersionExists",
           "WorkLeft", "WorkerId", "participant_name", "split_participant"]


# -- the errors the callers act on (leaderboard.errors subclasses them) ----------------


class UnknownBotError(LookupError):
    """No (active) bot has that name (or no such version)."""


class VersionExists(Exception):
    """The bot's current version has these very files: no new version was registered (``row``)."""

    def __init__(self, message: str, row: object) -> None:
        super().__init__(message)
        self.row = row


class AlreadyRecorded(Exception):
    """The match (same tournament and schedule index, or same match id) is stored already."""


# -- bots and tournaments ----------------------------------------------------------------

#: Separates a bot's name from its version number in a participant's name: ``greedy@2``.
VERSION_SEPARATOR = "@"

_PARTICIPANT = re.compile(r"^(?P<name>.+)@(?P<number>[1-9][0-9]{0,8})$", re.DOTALL)


def participant_name(name: str, number: int) -> str:
    """What a bot version is called in ratings, leaderboards, replays: ``NAME@NUMBER``."""
    return f"{name}{VERSION_SEPARATOR}{number}"


def split_participant(text: str) -> tuple[str, int] | None:
    """``("greedy", 2)`` for ``"greedy@2"``; None when ``text`` does not end in ``@NUMBER``."""
    match = _PARTICIPANT.match(text)
    return None if match is None else (match.group("name"), int(match.group("number")))


class TournamentStatus(enum.StrEnum):
    CREATED = "created"
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    FINISHED = "finished"


@dataclass(frozen=True)
class BotRow:
    """One version of a bot (the store hands out the current one unless asked otherwise)."""

    id: int  # the bot's id (the same for all its versions)
    name: str
    number: int  # the version number: 1, 2, 3...
    version: str  # what the manifest (or Describe) calls it
    author: str
    language: str
    manifest_path: Path | None  # exactly one of manifest_path and address is set
    address: str | None
    files_sha256: str  # of the version's files; for an address bot, of the address and version
    added_at: datetime  # when this version was added
    removed_at: datetime | None  # the bot's removal; a removed bot keeps its matches and ratings
    version_id: int
    current: bool  # whether it is the bot's newest version
    #: The host's frozen copy of the checked files (the manifest is inside); None for a bot
    #: at an address and for versions added before Arena kept copies.
    files_dir: Path | None = None
    source_path: Path | None = None  # the manifest the files were copied from

    @property
    def removed(self) -> bool:
        return self.removed_at is not None

    @property
    def participant(self) -> str:
        """``NAME@NUMBER``: how ratings, leaderboards and replays name this version."""
        return participant_name(self.name, self.number)


@dataclass(frozen=True)
class TournamentRow:
    id: int
    game: str
    config: dict[str, Any]
    seed: int
    status: TournamentStatus
    created_at: datetime
    updated_at: datetime

    @property
    def finished(self) -> bool:
        """Whether the whole schedule is stored: only then are the seed (the key every
        deck seed derives from), the deck seeds and the replays public."""
        return self.status is TournamentStatus.FINISHED



# -- the queue's values ------------------------------------------------------------------

#: How long a claim holds before another worker may take the match over (renewed while it plays).
DEFAULT_LEASE_S = 60.0

@dataclass(frozen=True)
class WorkerId:
    """Who plays: the machine's name and a worker id unique on it (``HOST/ID``)."""

    host: str
    name: str
    pid: int = field(default_factory=os.getpid)

    @classmethod
    def make(cls, name: str | None = None, host: str | None = None) -> "WorkerId":
        host = (host or socket.gethostname() or "localhost").strip()
        name = (name or f"w{os.getpid()}").strip()
        for what, value in (("host name", host), ("worker id", name)):
            if not value or "/" in value or len(value) > 100 or not value.isprintable():
                raise ValueError(f"a worker's {what} must be 1-100 printable characters without '/', got {value!r}")
        return cls(host, name)

    @property
    def label(self) -> str:
        return f"{self.host}/{self.name}"


@dataclass(frozen=True)
class Lease:
    """A claimed match: the worker plays ``schedule_index`` of ``tournament_id`` until ``until``."""

    tournament_id: int
    schedule_index: int
    round: int
    token: str
    until: datetime
    taken_over_from: str | None = None  # the worker whose expired (or orphaned) claim this took over


class RecordOutcome(enum.StrEnum):
    RECORDED = "recorded"  # stored now, by this lease
    LATE = "late"  # refused: the lease was taken over (logged as a late_result event)
    ALREADY = "already"  # refused: the match was stored already (not through this lease)


@dataclass(frozen=True)
class WorkLeft:
    planned: int  # claimable now
    claimed: int  # held by a live lease (may come back if it expires)
    failed: int  # the host could not finish them: re-queued by 'resume' (--retry-failed)
    done: int

    @property
    def open(self) -> bool:
        """Whether anything may still be played (now, or when a lease expires)."""
        return self.planned > 0 or self.claimed > 0



# -- the interface -----------------------------------------------------------------------


class MatchQueueSink(Protocol):
    """A tournament's schedule as rows that workers claim with a lease (``leaderboard.queue.MatchQueue``)."""

    def plan(self, tournament_id: int, pairings: Iterable[tuple[int, int, int]]) -> int: ...

    def retry_failed(self, tournament_id: int) -> int: ...

    def claim(self, tournament_id: int | None = None, *, skip: Iterable[int] = ()) -> Lease | None: ...

    def renew(self, lease: Lease) -> Lease | None: ...

    def record(self, lease: Lease, record: MatchRecord, *, isolation: str) -> RecordOutcome: ...

    def fail(self, lease: Lease, error: str, *, isolation: str | None = None) -> bool: ...

    def release(self, lease: Lease, why: str = ...) -> bool: ...

    def work_left(self, tournament_id: int | None = None) -> WorkLeft: ...

    def settle(self, tournament_id: int) -> TournamentStatus: ...

    def match_workers(self, tournament_id: int) -> dict[int, tuple[str | None, str | None, str]]: ...

    def is_unavailable(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the database cannot be reached now (worth waiting for)."""
        ...


class ResultStore(Protocol):
    """What the tournament runner, the workers, the SPRT and the registry need of a store
    (``leaderboard.store.Store``)."""

    @property
    def sqlite_path(self) -> Path | None: ...

    def get_bot(self, name: str) -> BotRow: ...

    def add_bot(self, name: str, version: str, author: str, language: str, *, manifest_path: Path | str | None = None,
                address: str | None = None, files_sha256: str, files_dir: Path | str | None = None,
                source_path: Path | str | None = None) -> BotRow: ...

    def create_tournament(self, game: str, config: Mapping[str, Any], seed: int) -> int: ...

    def get_tournament(self, tournament_id: int) -> TournamentRow: ...

    def set_tournament_status(self, tournament_id: int, status: TournamentStatus | str) -> None: ...

    def stored_schedule_indexes(self, tournament_id: int) -> set[int]: ...

    def record_match(self, tournament_id: int, schedule_index: int, round: int, record: MatchRecord) -> None: ...

    def rated_matches(self, tournament_id: int | None = None, *, table_size: int | None = None,
                      game: str | None = None) -> Sequence[Any]:
        """Finishing orders with ``key``, ``order`` (tournament, schedule index) and ``places``."""
        ...

    def queue(self, worker: WorkerId | None = None, *, lease_s: float = DEFAULT_LEASE_S) -> MatchQueueSink:
        """The match queue of this store, as ``worker`` (None: planning and reading only)."""
        ...
