"""The deals of an SPRT (``arena sprt``) as pure data: an open-ended, deterministic sequence.

A *deal* is one deck seed and one set of pool opponents at one table size ``k``.  It is
played ``2k`` times: in every seat rotation once with NEW in the candidate's seat and
once with OLD there instead, the pool opponents and the deck the same.  Its matches
take consecutive schedule indexes, NEW's and OLD's twin match of each rotation side by
side, so the twins are played at about the same time.

Deal ``n`` (from 1) has table size ``table_sizes[(n-1) % len(table_sizes)]`` and, at
that size ``k``, the ``((n-1) // len(table_sizes))``-th (k-1)-subset of the pool in
:func:`itertools.combinations` order, cycling; the opponents' order around the table
is one of their permutations, drawn from the deal's seed, so that over many deals NEW
meets every seating arrangement.  The seed derives from the secret key through
SHA-256 like a tournament's deck seeds (:func:`arena.scheduler.pairings.subset_seed`),
under its own domain, from (key, deal number, table size, opponents): the same for
NEW's and OLD's matches, which is the point.

:func:`deal_scores` turns a deal's finishing orders into the two scores the
sequential test compares (:mod:`arena.stats.sprt`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from arena.games.registry import DEFAULT_GAME, game_spec
from arena.scheduler.pairings import Pairing, check_table_size, check_variant

_DEAL_DOMAIN = "arena.scheduler.sprt_deals/v1"
_SEED_MASK = (1 << 63) - 1


@dataclass(frozen=True)
class SprtEntrants:
    """Who plays: NEW, OLD and the frozen pool, at which table sizes, which variant."""

    candidate: str
    baseline: str
    pool: tuple[str, ...]
    table_sizes: tuple[int, ...]
    variant: str = "standard"
    game: str = DEFAULT_GAME  # its spec says the table sizes and variants

    def __post_init__(self) -> None:
        spec = game_spec(self.game)
        names = [self.candidate, self.baseline, *self.pool]
        for name in names:
            if not isinstance(name, str) or not name:
                raise ValueError(f"bot names must be non-empty strings, got {name!r}")
        if self.candidate == self.baseline:
            raise ValueError(f"the candidate and the baseline are the same bot ({self.candidate!r})")
        if not self.pool:
            raise ValueError("the pool needs at least one bot")
        for name in (self.candidate, self.baseline):
            if name in self.pool:
                raise ValueError(f"{name!r} is in the pool: the pool holds the opponents of NEW and OLD, "
                                 "not NEW or OLD themselves")
        repeated = sorted({n for n in self.pool if self.pool.count(n) > 1})
        if repeated:
            raise ValueError(f"pool bots named more than once: {', '.join(repeated)}")
        if not self.table_sizes:
            raise ValueError("at least one table size is needed")
        for size in self.table_sizes:
            check_table_size(size, spec)
            if size - 1 > len(self.pool):
                raise ValueError(f"table size {size} needs {size - 1} pool bots, the pool has {len(self.pool)}")
        if len(set(self.table_sizes)) != len(self.table_sizes):
            raise ValueError("a table size is asked for more than once")
        check_variant(self.variant, spec)

    @property
    def matches_per_cycle(self) -> int:
        """Matches of one deal at every table size: ``2 * sum(table_sizes)``."""
        return 2 * sum(self.table_sizes)


@dataclass(frozen=True)
class Deal:
    """One deal: ``pairings`` holds NEW's and OLD's match of each rotation, side by side
    (rotation r: index ``first_index + 2r`` with NEW, ``+ 2r + 1`` with OLD)."""

    number: int
    table_size: int
    opponents: tuple[str, ...]  # in seat order after the candidate's seat
    seed: int
    first_index: int
    pairings: tuple[Pairing, ...]

    @property
    def indexes(self) -> range:
        return range(self.first_index, self.first_index + len(self.pairings))


def deal_seed(key: int, number: int, table_size: int, opponents: Sequence[str]) -> int:
    """The deck seed of deal ``number``: the first 63 bits of SHA-256 over a canonical JSON
    encoding of (domain, key, deal number, table size, opponents in entry order); one-way,
    like :func:`arena.scheduler.pairings.subset_seed`."""
    payload = json.dumps([_DEAL_DOMAIN, key, number, table_size, list(opponents)],
                         ensure_ascii=False, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(payload.encode("utf-8")).digest()[:8], "big") & _SEED_MASK


def deal(entrants: SprtEntrants, key: int, number: int) -> Deal:
    """Deal ``number`` (from 1) of the sequence; a pure function of its arguments."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"deal numbers start at 1, got {number!r}")
    sizes = entrants.table_sizes
    cycle, position = divmod(number - 1, len(sizes))
    size = sizes[position]
    combos = list(itertools.combinations(entrants.pool, size - 1))
    chosen = combos[cycle % len(combos)]
    seed = deal_seed(key, number, size, chosen)
    arrangements = list(itertools.permutations(chosen))
    opponents = arrangements[seed % len(arrangements)]
    first = entrants.matches_per_cycle * cycle + 2 * sum(sizes[:position])
    pairings: list[Pairing] = []
    for rotation in range(size):
        for bot in (entrants.candidate, entrants.baseline):
            table = (bot, *opponents)
            pairings.append(Pairing(index=first + len(pairings), round=number, table_size=size,
                                    subset=table, seats=table[rotation:] + table[:rotation], seed=seed,
                                    variant=entrants.variant))
    return Deal(number=number, table_size=size, opponents=opponents, seed=seed, first_index=first,
                pairings=tuple(pairings))


def deals(entrants: SprtEntrants, key: int, start: int = 1) -> Iterator[Deal]:
    """Deal ``start``, ``start + 1``, ... without end."""
    for number in itertools.count(start):
        yield deal(entrants, key, number)


def deal_number_of(entrants: SprtEntrants, index: int) -> int:
    """The number of the deal that holds schedule index ``index``."""
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"a schedule index is an int >= 0, got {index!r}")
    cycle, within = divmod(index, entrants.matches_per_cycle)
    for position, size in enumerate(entrants.table_sizes):
        if within < 2 * size:
            return cycle * len(entrants.table_sizes) + position + 1
        within -= 2 * size
    raise AssertionError("unreachable: within < matches_per_cycle")


def deal_scores(dealt: Deal, places: Mapping[int, Mapping[str, int]]) -> tuple[Fraction, Fraction]:
    """NEW's and OLD's scores on a deal whose matches are all in ``places`` (schedule index ->
    participant -> place, 1 best; the two-player game's imaginary shareholder included as
    one more participant).

    A score is the share of the (match, opponent) pairs in which the bot finished ahead,
    a tie counting ½, over all its seat rotations: with k players (or the two players and
    the imaginary shareholder), ``k * (k-1)`` pairs (``2 * 2``), a multiple of
    ``1 / (2 * pairs)``; ``KeyError`` if a match is missing.
    """
    halves = [0, 0]
    pairs = [0, 0]
    for pairing in dealt.pairings:
        side = (pairing.index - dealt.first_index) % 2  # 0: NEW's match, 1: OLD's twin
        bot = pairing.subset[0]
        table = places[pairing.index]
        if bot not in table:
            raise ValueError(f"match {pairing.index} has no place for {bot!r}")
        mine = table[bot]
        for other, place in table.items():
            if other == bot:
                continue
            halves[side] += 2 if mine < place else 1 if mine == place else 0
            pairs[side] += 1
    if pairs[0] != pairs[1] or not pairs[0]:
        raise ValueError(f"deal {dealt.number}: NEW and OLD met {pairs[0]} and {pairs[1]} opponents")
    return Fraction(halves[0], 2 * pairs[0]), Fraction(halves[1], 2 * pairs[1])

