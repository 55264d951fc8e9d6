"""Plain frozen objects that the store hands out (and the rating inputs it takes).

They hold no database session: safe to keep, pass between threads and compare.
Timestamps are timezone-aware UTC datetimes on every backend.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena.records import Fault, MatchTermination, ReferenceResult
from arena.sinks import (
    VERSION_SEPARATOR,
    BotRow,
    TournamentRow,
    TournamentStatus,
    participant_name,
    split_participant,
)

#: Defined in arena.sinks (the interface the tournament runner writes through), kept here for the store's readers.
__all__ = ["VERSION_SEPARATOR", "BotRow", "ReferenceResult", "TournamentRow", "TournamentStatus", "participant_name",
           "split_participant"]

#: Said instead of a tournament's seed, its deck seeds and its replays while it runs.
SECRET_UNTIL_FINISHED = "secret until the tournament is finished"


class MatchStatus(enum.StrEnum):
    """A stored match is a finished result; other states may come later."""

    FINISHED = "finished"


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
