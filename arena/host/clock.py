"""A seat's clocks in one match: a limit per decision plus a time bank for the whole match.

Time is measured on the host (``time.monotonic``), from sending a request to receiving
its reply, transport included.  Time used beyond the decision limit comes out of the
bank; a reply later than limit + bank + grace is a timeout.  The grace margin absorbs
transport jitter and is never charged to the bank beyond emptying it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Clocks:
    """Clock settings, in milliseconds (defaults suit a human-readable tournament)."""

    decision_ms: int = 1000
    bank_ms: int = 10_000
    grace_ms: int = 50

    def __post_init__(self) -> None:
        if self.decision_ms <= 0:
            raise ValueError(f"the decision limit must be positive, got {self.decision_ms} ms")
        if self.bank_ms < 0 or self.grace_ms < 0:
            raise ValueError(f"the bank and the grace margin cannot be negative, got {self.bank_ms} ms "
                             f"and {self.grace_ms} ms")

    def to_json(self) -> dict[str, int]:
        return {"decision_ms": self.decision_ms, "bank_ms": self.bank_ms, "grace_ms": self.grace_ms}


class SeatClock:
    """One seat's clock for one match."""

    # Read at every decision: slots, and the settings' two numbers kept beside the bank.
    __slots__ = ("clocks", "bank_ms", "decisions", "total_s", "max_s", "_limit_ms", "_grace_ms")

    def __init__(self, clocks: Clocks) -> None:
        self.clocks = clocks
        self.bank_ms: float = float(clocks.bank_ms)
        self.decisions = 0
        self.total_s = 0.0
        self.max_s = 0.0
        self._limit_ms, self._grace_ms = clocks.decision_ms, clocks.grace_ms  # Clocks is frozen

    @property
    def decision_ms(self) -> int:
        return self._limit_ms

    def allowed_s(self) -> float:
        """The deadline of the next reply, in seconds from sending it: limit + bank + grace."""
        return (self._limit_ms + self.bank_ms + self._grace_ms) / 1000.0

    def request_bank_ms(self) -> int:
        """The bank to announce in the next request (whole milliseconds, rounded down)."""
        return int(self.bank_ms)

    def charge(self, elapsed_s: float) -> bool:
        """Account for a reply that took ``elapsed_s``; False if it came too late (a timeout)."""
        bank_ms = self.bank_ms
        in_time = elapsed_s <= (self._limit_ms + bank_ms + self._grace_ms) / 1000.0  # allowed_s()
        self.decisions += 1
        self.total_s += elapsed_s
        if elapsed_s > self.max_s:
            self.max_s = elapsed_s
        over_ms = elapsed_s * 1000.0 - self._limit_ms
        if not in_time:
            self.bank_ms = 0.0
        elif over_ms > 0:
            self.bank_ms = max(0.0, bank_ms - over_ms)
        return in_time

    def expire(self, elapsed_s: float) -> None:
        """A request that ended without a reply after ``elapsed_s`` (a timeout empties the bank)."""
        self.charge(max(elapsed_s, self.allowed_s() + 1e-9))

    def to_json(self) -> dict[str, float | int]:
        return {
            "decisions": self.decisions,
            "bank_left_ms": round(self.bank_ms),
            "mean_decision_ms": round(self.total_s * 1000.0 / self.decisions, 3) if self.decisions else 0.0,
            "max_decision_ms": round(self.max_s * 1000.0, 3),
        }
