"""A scope's finished matches as flat numpy arrays: what the rating fit, the live Elo,
the cross-table and the pages' charts need, without a Python object per match.

:class:`ResultArrays` holds the matches in schedule order and their participants
(seats and reference participants) as one flat run of cells per match, each run
sorted by participant index.  It gives the same numbers as the per-match
:class:`~leaderboard.finishing_orders.RatedMatch` path (``FinishingOrders.build``,
``live_elo_history``): :meth:`ResultArrays.from_matches` builds it from those objects,
:func:`leaderboard.result_reader.read_results` straight from the database.  Pure:
no SQL, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from arena.records import is_reference_participant
from arena.sinks import split_participant
from leaderboard.finishing_orders import FinishingOrders, RatedMatch, canonical_order, check_unique_keys
from leaderboard.rows import BotStats


#: Matches per slice of the live Elo pass (its Python lists hold one slice at a time).
LIVE_ELO_SLICE = 50_000


@dataclass(frozen=True, eq=False)
class ParticipantStats:
    """Per participant (aligned with ``ResultArrays.names``): the sums over its seats of the
    score, the forfeits and the fault counts (float64 holding whole numbers; 0 for a
    reference participant, which has no bot statistics).  Summed as the seats are read: the
    per-seat values would cost memory the fit needs."""

    score: np.ndarray
    forfeits: np.ndarray
    faults: np.ndarray


@dataclass(frozen=True, eq=False)
class ResultArrays:
    """Matches in schedule order; match ``m``'s participants are cells ``start[m]:start[m+1]``.

    ``names`` are the participants in canonical (sorted) order, ``who`` a cell's
    participant index (ascending within a match), ``place`` its place; ``keys`` the
    match ids, ``tournament`` each match's tournament and ``cluster`` its deal number
    (deals numbered in sorted order of their keys, as ``FinishingOrders.build`` does).
    """

    names: tuple[Hashable, ...]
    keys: np.ndarray | None  # (matches,) object: match ids (None: not read, see result_reader.match_ids)
    # whole numbers; read from the store int32 but for start and cluster (int64), from
    # RatedMatch objects int64 (equal values either way)
    tournament: np.ndarray  # (matches,)
    schedule: np.ndarray  # (matches,): the schedule index in the tournament
    cluster: np.ndarray  # (matches,)
    clusters: int
    start: np.ndarray  # (matches + 1,) int64
    who: np.ndarray  # (cells,)
    place: np.ndarray  # (cells,)
    stats: ParticipantStats | None = None  # when read from the store

    @property
    def matches(self) -> int:
        return len(self.tournament)

    @property
    def width(self) -> np.ndarray:
        """Participants per match (the reference participants included)."""
        return np.diff(self.start)

    @property
    def match_of_cell(self) -> np.ndarray:
        """The match row of every cell."""
        return np.repeat(np.arange(self.matches, dtype=np.int64), self.width)

    @classmethod
    def from_matches(cls, matches: Sequence[RatedMatch]) -> "ResultArrays":
        """The arrays of ``matches`` (sorted into ``order`` order as the live Elo plays them:
        by key, then by ``order``); ``order[0]`` is taken as the tournament."""
        check_unique_keys(matches)
        try:
            ordered = sorted(sorted(matches, key=lambda m: m.key), key=lambda m: m.order)
        except TypeError as error:
            raise ValueError(f"match orders cannot be compared with each other: {error}") from None
        names = canonical_order({name for m in ordered for name in m.places})
        index = {name: i for i, name in enumerate(names)}
        deal_keys = [("d", m.deal) if m.deal is not None else ("m", m.key) for m in ordered]
        cluster_of = {key: c for c, key in enumerate(sorted(set(deal_keys)))}
        who: list[int] = []
        place: list[int] = []
        widths: list[int] = []
        for m in ordered:
            cells = sorted((index[name], p) for name, p in m.places.items())
            who.extend(c[0] for c in cells)
            place.extend(c[1] for c in cells)
            widths.append(len(cells))
        tournaments = [m.order[0] if m.order and isinstance(m.order[0], int) else -1 for m in ordered]
        schedule = [m.order[1] if len(m.order) > 1 and isinstance(m.order[1], int) else i
                    for i, m in enumerate(ordered)]
        return cls(
            names=names,
            keys=np.array([m.key for m in ordered], dtype=object),
            tournament=np.asarray(tournaments, dtype=np.int64),
            schedule=np.asarray(schedule, dtype=np.int64),
            cluster=np.asarray([cluster_of[d] for d in deal_keys], dtype=np.int64),
            clusters=len(cluster_of),
            start=np.concatenate([[0], np.cumsum(np.asarray(widths, dtype=np.int64))]).astype(np.int64),
            who=np.asarray(who, dtype=np.int64),
            place=np.asarray(place, dtype=np.int64),
        )

    def orders(self) -> FinishingOrders:
        """The finishing orders of the fit and the cross-table (as ``FinishingOrders.build``)."""
        return FinishingOrders.from_cells(self.names, self.width, self.who, self.place, self.cluster,
                                          self.clusters)

    # ------------------------------------------------------------------ live Elo

    def live_elo(self, *, k: float = 32.0, initial: float = 1500.0) -> np.ndarray:
        """Each cell's live Elo after its match: classic multiplayer Elo, match by match in
        schedule order, as :func:`leaderboard.ratings.live_elo_history` (the same operations
        in the same order: equal bits)."""
        if not (math.isfinite(k) and k > 0):
            raise ValueError(f"k must be a finite number > 0, got {k!r}")
        if not math.isfinite(initial):
            raise ValueError(f"initial must be a finite number, got {initial!r}")
        # Per cell, the sum of its scores against the others at its table (1 win, 1/2 tie):
        # the places alone give it, so numpy does it for every match at once.
        scores = self._score_sums()
        ratings = [float(initial)] * len(self.names)
        # 1 / (1 + 10 ** ((Rb - Ra) / 400)) is qa / (qa + qb) with q = 10 ** ((R - initial) / 400),
        # kept per participant: one power per participant and match instead of one per pair
        # (a q would overflow only some 120,000 points from the start)
        q = [1.0] * len(self.names)
        result = np.empty(len(self.who), dtype=np.float64)
        # in slices of matches: Python lists of a few cells at a time, not of millions
        for first in range(0, self.matches, LIVE_ELO_SLICE):
            last = min(first + LIVE_ELO_SLICE, self.matches)
            offset = int(self.start[first])
            end = int(self.start[last])
            who = self.who[offset:end].tolist()
            score = scores[offset:end].tolist()
            start = (self.start[first + 1:last + 1] - offset).tolist()
            out = [0.0] * len(who)
            lo = 0
            for hi in start:
                if hi - lo < 2:
                    for c in range(lo, hi):
                        out[c] = ratings[who[c]]
                    lo = hi
                    continue
                members = who[lo:hi]
                qs = [q[w] for w in members]
                step = k / (hi - lo - 1)
                c = lo
                for w, qa in zip(members, qs):
                    expected = -0.5  # the pair of a participant with itself adds exactly 1/2 below
                    for qb in qs:
                        expected += qa / (qa + qb)
                    out[c] = ratings[w] + step * (score[c] - expected)
                    c += 1
                for c in range(lo, hi):
                    w, elo = who[c], out[c]
                    ratings[w] = elo
                    q[w] = 10.0 ** ((elo - initial) / 400.0)
                lo = hi
            result[offset:end] = out
        return result

    def _score_sums(self) -> np.ndarray:
        """Per cell: matches won against the others at its table, a shared place counting 1/2."""
        total = np.zeros(len(self.who))
        width = self.width
        for size in np.unique(width).tolist():
            if size < 2:
                continue
            rows = np.flatnonzero(width == size)
            cells = self.start[rows, None] + np.arange(size)
            place = self.place[cells]
            ahead = (place[:, :, None] < place[:, None, :]).sum(axis=2)
            tied = (place[:, :, None] == place[:, None, :]).sum(axis=2) - 1
            total[cells] = ahead + 0.5 * tied
        return total

    def last_per_participant(self, values: np.ndarray) -> dict[Hashable, float]:
        """Each participant's value in its last cell (e.g. its live Elo now)."""
        reverse = self.who[::-1]
        _, first = np.unique(reverse, return_index=True)
        cells = len(self.who) - 1 - first
        return {self.names[int(self.who[c])]: float(values[c]) for c in cells}

    def cells_by_participant(self) -> list[np.ndarray]:
        """Per participant index, its cells in schedule order."""
        order = np.argsort(self.who, kind="stable")
        bounds = np.searchsorted(self.who[order], np.arange(len(self.names) + 1))
        return [order[bounds[i]:bounds[i + 1]] for i in range(len(self.names))]

    def history(self, values: np.ndarray) -> list[tuple[str, dict[Hashable, float]]]:
        """``(match key, {participant: value})`` per match, as ``live_elo_history`` gives it
        (a Python object per match: for storing the whole history, not for the pages)."""
        if self.keys is None:
            raise ValueError("the history needs the match ids: read them (read_results(ids=True))")
        names, who, start = self.names, self.who.tolist(), self.start.tolist()
        elo = values.tolist()
        return [(str(key), {names[who[c]]: elo[c] for c in range(start[m], start[m + 1])})
                for m, key in enumerate(self.keys.tolist())]

    def bot_stats(self) -> list[BotStats] | None:
        """``Store.bot_stats`` of the same scope from the cells and :attr:`stats` (None without):
        per bot version that played, by name and number."""
        if self.stats is None:
            return None
        n = len(self.names)
        count = np.bincount(self.who, minlength=n)
        wins = np.bincount(self.who, self.place == 1, minlength=n)
        places = np.bincount(self.who, self.place.astype(np.float64), minlength=n)
        scores, forfeits, faults = self.stats.score, self.stats.forfeits, self.stats.faults
        stats = []
        for i, name in enumerate(self.names):
            parts = None if is_reference_participant(name) else split_participant(str(name))
            if parts is None or not count[i]:
                continue
            stats.append(BotStats(bot=str(name), matches=int(count[i]), wins=int(wins[i]),
                                  mean_place=float(places[i] / count[i]), mean_score=float(scores[i] / count[i]),
                                  forfeits=int(forfeits[i]), faults=int(faults[i]), name=parts[0], version=parts[1]))
        return sorted(stats, key=lambda s: (s.name, s.version))

    def places_of(self, participant: Hashable) -> list[int]:
        """A participant's places in schedule order (empty if it did not take part)."""
        try:
            i = self.names.index(participant)
        except ValueError:
            return []
        return [int(p) for p in self.place[self.who == i]]
