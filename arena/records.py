"""What a finished match leaves behind: one :class:`MatchRecord` (result + replay).

The match runner produces it, the store writes it in one transaction, the ratings
read the places from it.  Plain frozen dataclasses, JSON-ready, no I/O.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class FaultReason(enum.Enum):
    """Why the host had to take a decision out of a bot's hands."""

    TIMEOUT = "timeout"  # no reply within the decision limit + time bank
    DISCONNECT = "disconnect"  # the connection failed or the process died
    ILLEGAL_ACTION = "illegal_action"  # an index out of range of the legal actions
    MALFORMED_REPLY = "malformed_reply"  # a reply that could not be used at all
    PROTOCOL_ERROR = "protocol_error"  # the bot answered with a gRPC error status
    NOT_READY = "not_ready"  # the bot process never became ready
    OUT_OF_MEMORY = "out_of_memory"  # the kernel killed the bot for going over its memory limit


class MatchTermination(enum.Enum):
    """How a match ended, as the tournament sees it."""

    NORMAL = "normal"  # the rules ended the game
    STALEMATE = "stalemate"  # the rules' stalemate ending (§8)
    FORFEIT = "forfeit"  # at least one seat forfeited; the fallback finished the game
    ERROR = "error"  # the host could not finish the match (never stored as a result)


@dataclass(frozen=True)
class Fault:
    seat: int
    decision: int  # the match's decision number at which it happened
    reason: FaultReason
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "decision": self.decision,
            "reason": self.reason.value,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fault":
        return cls(
            seat=int(data["seat"]),
            decision=int(data["decision"]),
            reason=FaultReason(data["reason"]),
            detail=str(data.get("detail", "")),
        )


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot: str  # the bot's registered name (unique key in the store)
    cash: int
    place: int  # 1 is best; a forfeited seat is placed last whatever its cash
    forfeited: bool = False
    faults: tuple[Fault, ...] = ()


@dataclass(frozen=True)
class MatchRecord:
    match_id: str
    game: str
    seed: int
    variant: str
    players: int
    seats: tuple[SeatResult, ...]
    termination: MatchTermination
    replay: dict[str, Any]
    started_at: float  # Unix time, measured by the host
    duration_s: float
    # Two-player game only: the imaginary shareholder's cash and place, and for
    # every real seat whether the imaginary shareholder finished ahead of it.
    imaginary: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def places(self) -> dict[str, int]:
        """Bot name -> place, the input the ratings use."""
        return {s.bot: s.place for s in self.seats}
