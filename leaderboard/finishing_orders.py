"""Finished matches as the ratings see them, and the same results as numpy arrays.

A :class:`RatedMatch` is one match's finishing order: participant -> place (1 best,
equal places a tie) plus the deal it was dealt from.  :class:`FinishingOrders`
turns a collection of them into arrays, one block per table width, each row a
match's participants sorted best first: the input of the Plackett-Luce fit
(:mod:`leaderboard.plackett_luce`) and of the cross-table
(:mod:`leaderboard.crosstable`).  Pure: no SQL, no I/O.

Participants are any hashable keys (bot names today; bot versions work the same),
numbered in a canonical order (sorted), and deals are numbered in sorted order of
their keys, so the arrays do not depend on the order the matches arrive in.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.records import is_reference_participant, reference_participant

#: A game's reference participants (``(NAME)``: Union Pacific's ``(imaginary)`` shareholder at
#: a table of two) are rated like the others but not counted in the mean of 1500.
#: ``REFERENCE`` is the one the synthetic matches and the benchmarks use.
REFERENCE = reference_participant("reference")


@dataclass(frozen=True)
class RatedMatch:
    """One finished match as the ratings see it.

    ``key`` is the unique match id; ``order`` sorts matches in schedule order (e.g.
    ``(tournament_id, schedule_index)``) for the live Elo; ``places`` maps participant
    -> place (1 is best, equal places are ties); ``deal`` names the deal the match was
    dealt from (every seat rotation of one deck seed shares it): the bootstrap
    resamples whole deals, and a match without one is a deal of its own.
    """

    key: str
    order: tuple[Any, ...]
    places: Mapping[Hashable, int]
    deal: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError(f"match key must be a non-empty string, got {self.key!r}")
        if not isinstance(self.order, tuple):
            raise ValueError(f"match {self.key}: order must be a tuple, got {self.order!r}")
        if not self.places:
            raise ValueError(f"match {self.key}: places is empty")
        if self.deal is not None and not isinstance(self.deal, str):
            raise ValueError(f"match {self.key}: deal must be a string or None, got {self.deal!r}")
        for name, place in self.places.items():
            if isinstance(name, str) and not name:
                raise ValueError(f"match {self.key}: participant names must be non-empty, got {name!r}")
            try:
                hash(name)
            except TypeError:
                raise ValueError(f"match {self.key}: participant {name!r} is not hashable") from None
            if isinstance(place, bool) or not isinstance(place, numbers.Integral) or place < 1:
                raise ValueError(f"match {self.key}: place of {name!r} must be an int >= 1, got {place!r}")

    @property
    def table_size(self) -> int:
        """Seats at the table: the participants other than the reference participant."""
        return sum(1 for name in self.places if not is_reference_participant(name))


@dataclass(frozen=True, eq=False)
class Block:
    """The matches with ``width`` participants, one row each, participants best first.

    ``who[m, c]`` is the participant index in column ``c`` of match row ``m``, and
    ``place[m, c]`` its place; rows are sorted by (place, participant index), so a
    tie is a run of equal places.  ``cluster[m]`` is the row's deal number.
    """

    width: int
    who: np.ndarray  # (rows, width) whole numbers (int32 from the store's arrays, else int64)
    place: np.ndarray  # (rows, width) whole numbers, ascending along each row
    cluster: np.ndarray  # (rows,) int64


@dataclass(frozen=True, eq=False)
class FinishingOrders:
    """A collection of finishing orders as arrays (see the module docstring)."""

    names: tuple[Hashable, ...]  # participant keys, canonical order; index i is names[i]
    real: np.ndarray  # bool per participant: counted in the mean (not the reference)
    clusters: int  # number of deals
    blocks: tuple[Block, ...]  # by width, ascending
    matches: int

    @classmethod
    def build(cls, matches: Iterable[RatedMatch]) -> "FinishingOrders":
        """Arrays of ``matches``; a duplicate match key is an error."""
        matches = list(matches)
        check_unique_keys(matches)
        names = canonical_order({name for m in matches for name in m.places})
        index = {name: i for i, name in enumerate(names)}
        deal_keys = [("d", m.deal) if m.deal is not None else ("m", m.key) for m in matches]
        cluster_of = {key: c for c, key in enumerate(sorted(set(deal_keys)))}
        # Flat lists (no list per match: millions of small objects would keep the
        # garbage collector busy), then one numpy block per table width.
        who_flat: list[int] = []
        place_flat: list[int] = []
        widths: list[int] = []
        for match in matches:
            places = match.places
            who_flat.extend(map(index.__getitem__, places))
            place_flat.extend(places.values())
            widths.append(len(places))
        cluster_all = np.asarray([cluster_of[deal] for deal in deal_keys], dtype=np.int64)
        return cls.from_cells(names, np.asarray(widths, dtype=np.int64), np.asarray(who_flat, dtype=np.int64),
                              np.asarray(place_flat, dtype=np.int64), cluster_all, len(cluster_of))

    @classmethod
    def from_cells(cls, names: tuple[Hashable, ...], width_of: np.ndarray, who_all: np.ndarray,
                   place_all: np.ndarray, cluster_all: np.ndarray, clusters: int) -> "FinishingOrders":
        """The arrays of matches given flat: match ``m`` has ``width_of[m]`` consecutive cells of
        ``who_all`` (participant index into ``names``) and ``place_all``, in any order, and deal
        number ``cluster_all[m]`` (of ``clusters``)."""
        starts = np.concatenate([[0], np.cumsum(width_of)[:-1]]).astype(np.int64)
        n = len(names)
        blocks = []
        for width in np.unique(width_of).tolist():
            rows = np.flatnonzero(width_of == width)
            cells = starts[rows, None] + np.arange(width)
            who, place = who_all[cells], place_all[cells]
            # Sort each row by (place, participant index): a canonical order within the row.
            order = np.argsort(place.astype(np.int64) * max(n, 1) + who, axis=1, kind="stable")
            blocks.append(Block(
                width=width,
                who=np.take_along_axis(who, order, axis=1),
                place=np.take_along_axis(place, order, axis=1),
                cluster=cluster_all[rows],
            ))
        real = np.array([not is_reference_participant(name) for name in names], dtype=bool)
        if not real.any():
            real[:] = True  # only the reference took part: centre it instead
        return cls(names=names, real=real, clusters=clusters, blocks=tuple(blocks), matches=len(width_of))


def canonical_order(keys: Iterable[Hashable]) -> tuple[Hashable, ...]:
    """The keys sorted; keys that cannot be compared with each other sort by type, then repr."""
    keys = list(keys)
    try:
        return tuple(sorted(keys))  # type: ignore[type-var]
    except TypeError:
        return tuple(sorted(keys, key=lambda k: (type(k).__name__, repr(k))))


def check_unique_keys(matches: Sequence[RatedMatch]) -> None:
    """ValueError naming a match key that occurs twice."""
    seen: set[str] = set()
    for m in matches:
        if m.key in seen:
            raise ValueError(f"duplicate match key {m.key!r}")
        seen.add(m.key)
