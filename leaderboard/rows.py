"""Plain frozen objects that the store hands out (and the rating inputs it takes).

They hold no database session: safe to keep, pass between threads and compare.
Timestamps are timezone-aware UTC datetimes on every backend.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from arena.records import Fault, MatchTermination, ReferenceResult

__all__ = ["ReferenceResult"]  # a match's reference participant, as MatchRow.references holds it

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


#: Said instead of a tournament's seed, its deck seeds and its replays while it runs.
SECRET_UNTIL_FINISHED = "secret until the tournament is finished"


class TournamentStatus(enum.StrEnum):
    CREATED = "created"
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    FINISHED = "finished"


class MatchStatus(enum.StrEnum):
    """A stored match is a finished result; other states may come later."""

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


@dataclass(frozen=True)
class SeatRow:
    seat: int
    bot: str  # the version that played: NAME@NUMBER
    score: int  # the game's score (its spec's score_name and score_unit)
    place: int
    forfeited: bool
    faults: tuple[Fault, ...]
    fault_count: int
    name: str = ""  # the bot's name (bot without @NUMBER)
    version: int = 0  # the version number


@dataclass(frozen=True)
class MatchRow:
    id: str
    tournament_id: int
    schedule_index: int
    round: int
    seed: int
    game: str
    variant: str
    table_size: int
    status: MatchStatus
    termination: MatchTermination
    started_at: datetime
    duration_s: float
    seats: tuple[SeatRow, ...]  # in seat order
    extra: dict[str, Any]
    replay: dict[str, Any] | None  # None in list_matches results (get_match loads it)
    #: The game's reference participants at this table (GameSpec.reference), by name.
    references: tuple[ReferenceResult, ...] = ()

    @property
    def places(self) -> dict[str, int]:
        """Bot version (``NAME@NUMBER``) -> place (the reference participants not included)."""
        return {s.bot: s.place for s in self.seats}

    @property
    def rated_places(self) -> dict[str, int]:
        """Every participant -> place: bot versions and reference participants as ``(NAME)``."""
        return {**self.places, **{r.participant: r.place for r in self.references}}


@dataclass(frozen=True)
class BotStats:
    bot: str  # the version: NAME@NUMBER
    matches: int
    wins: int  # matches finished in place 1 (a shared first place counts)
    mean_place: float
    mean_score: float  # the game's score (its spec's score_name)
    forfeits: int
    faults: int  # total faults over all its matches
    name: str = ""  # the bot's name
    version: int = 0  # the version number


@dataclass(frozen=True)
class RatingEntry:
    """A participant's rating in one scope (a tournament, or overall)."""

    participant: str  # a bot version (NAME@NUMBER) or a reference participant, (NAME)
    elo: float  # the batch fit
    ci_low: float | None  # confidence interval of elo; None when it cannot be given
    ci_high: float | None
    live_elo: float  # the incremental rating after the last match


@dataclass(frozen=True)
class RatingPoint:
    """A participant's live Elo right after one match (for the rating chart)."""

    match_id: str
    participant: str
    elo: float


@dataclass(frozen=True)
class SavedRatings:
    computed_at: datetime | None  # None when only history was saved
    entries: tuple[RatingEntry, ...]  # best elo first
    history: tuple[RatingPoint, ...]  # in match order, then participant
