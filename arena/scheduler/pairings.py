"""The tournament schedule as pure data: which bots sit where, with which deck seed.

:func:`generate_schedule` is a pure function of its arguments (no clock, no I/O, no
global random state), so a tournament is "this list minus the matches already
stored" and resumes after any crash.

Format (duplicate round robin): in every round, for every table size asked for, every
subset of that many bots plays once in every seat rotation, so each bot sits in each
seat exactly once per subset.  All rotations of one subset share one deck seed, so the
luck of the deal is the same for every seating and cancels out.  A *gauntlet* keeps only
the subsets that hold its candidate: one bot against the field, the field never
playing itself.

The tournament seed is a secret key: every deck seed derives from it through SHA-256
(:func:`subset_seed`), so whoever knows it can deal every hand of the tournament,
while a published deck seed tells nothing about the key or about any other deal.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.registry import DEFAULT_GAME, GameSpec, game_spec

_SEED_DOMAIN = "arena.scheduler.pairings/v1"
_SEED_MASK = (1 << 63) - 1


@dataclass(frozen=True)
class Pairing:
    """One match of the schedule.

    ``index`` is the 0-based position in the schedule (stable for the same inputs);
    ``round`` counts from 1; ``subset`` lists the table's bots in entry order and
    ``seats`` the same bots in seat order 0..k-1; ``seed`` is the game/deck seed.
    """

    index: int
    round: int
    table_size: int
    subset: tuple[str, ...]
    seats: tuple[str, ...]
    seed: int
    variant: str


def generate_schedule(
    bots: Sequence[str],
    table_sizes: Sequence[int],
    rounds: int,
    seed: int,
    variant: str | None = None,
    gauntlet: str | None = None,
    *,
    game: str = DEFAULT_GAME,
) -> list[Pairing]:
    """Every match of a duplicate round robin (or gauntlet), in playing order.

    For each round, for each table size (ascending), for each subset of that many
    bots (:func:`itertools.combinations` in entry order), one match per seat
    rotation of the subset.  With N bots a round of table size k holds C(N, k) * k
    matches.  With ``gauntlet`` (one of the bots, the candidate), only the subsets
    that hold it are played: the candidate meets every (k-1)-subset of the other
    N-1 bots, C(N-1, k-1) * k matches per round of table size k, and the field
    never plays without it.  A subset's deck seed is the same as in the round
    robin of the same bots.  The table sizes and variants a schedule may ask for are
    ``game``'s (its :class:`~arena.games.registry.GameSpec`; ``variant`` None: its first).
    Raises :class:`ValueError` naming the problem for unusable input.
    """
    spec = game_spec(game)
    variant = spec.default_variant if variant is None else variant
    names = _check_bots(bots)
    sizes = _check_table_sizes(table_sizes, len(names), spec)
    _check_int("rounds", rounds)
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    _check_int("seed", seed)
    check_variant(variant, spec)
    if gauntlet is not None and gauntlet not in names:
        raise ValueError(f"the gauntlet candidate {gauntlet!r} is not among the bots")

    schedule: list[Pairing] = []
    for round_number in range(1, rounds + 1):
        for size in sizes:
            for subset in itertools.combinations(names, size):
                if gauntlet is not None and gauntlet not in subset:
                    continue
                deck_seed = subset_seed(seed, round_number, size, subset)
                for shift in range(size):
                    schedule.append(
                        Pairing(
                            index=len(schedule),
                            round=round_number,
                            table_size=size,
                            subset=subset,
                            seats=subset[shift:] + subset[:shift],
                            seed=deck_seed,
                            variant=variant,
                        )
                    )
    return schedule


def schedule_length(bot_count: int, table_sizes: Sequence[int], rounds: int, *, game: str = DEFAULT_GAME) -> int:
    """How many matches :func:`generate_schedule` makes, without making them:
    ``rounds`` times the sum over the table sizes k of C(bot_count, k) * k."""
    sizes = _check_table_sizes(table_sizes, bot_count, game_spec(game))
    _check_int("rounds", rounds)
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    return rounds * sum(math.comb(bot_count, k) * k for k in sizes)


def subset_seed(
    tournament_seed: int, round_number: int, table_size: int, subset: Sequence[str]
) -> int:
    """The deck seed shared by all seatings of ``subset`` in one round: a non-negative 63-bit int.

    The first 63 bits of SHA-256 over a canonical JSON encoding of
    ``[domain, tournament_seed, round, table size, subset]``: the same on every
    machine and Python version (unlike :func:`hash`), and dependent only on the
    bots' names, not on who else entered.

    It is a one-way derivation keyed by ``tournament_seed`` (the key comes first and
    the JSON encoding is unambiguous, so SHA-256 serves as a keyed pseudo-random
    function here, as HMAC-SHA-256 would): knowing some deck seeds, and the
    coordinates of every deal, gives no way to the key or to another deal's seed
    short of trying every key.  A random 63-bit key (``arena tournament run``
    without ``--seed``) puts that search out of reach; a small chosen seed does not,
    which is why an explicit ``--seed`` is for local runs only.  Changing this
    function changes the deals of stored tournaments, which resuming relies on.
    """
    payload = json.dumps(
        [_SEED_DOMAIN, tournament_seed, round_number, table_size, list(subset)],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    digest = hashlib.sha256(payload.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") & _SEED_MASK


def _check_bots(bots: Sequence[str]) -> tuple[str, ...]:
    if isinstance(bots, str):
        raise ValueError(f"bots must be a sequence of names, not the single string {bots!r}")
    names = tuple(bots)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"bot names must be non-empty strings, got {name!r}")
    if len(names) < 2:
        raise ValueError(f"a schedule needs at least 2 bots, got {len(names)}")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"duplicate bot names: {', '.join(duplicates)}")
    return names


def check_table_size(size: object, spec: GameSpec) -> None:
    """A table size ``spec``'s game is played at; ValueError naming the game's range otherwise."""
    _check_int("table size", size)
    if size not in spec.seat_counts:
        raise ValueError(
            f"table size {size} is outside {spec.min_players}..{spec.max_players} ({spec.title})"
        )


def check_variant(variant: object, spec: GameSpec) -> None:
    """A variant of ``spec``'s game; ValueError naming its variants otherwise."""
    if variant not in spec.variants:
        raise ValueError(f"unknown variant {variant!r} for {spec.title}; expected one of {', '.join(spec.variants)}")


def _check_table_sizes(table_sizes: Sequence[int], bot_count: int, spec: GameSpec) -> list[int]:
    sizes = list(table_sizes)
    if not sizes:
        raise ValueError("at least one table size is needed")
    for size in sizes:
        check_table_size(size, spec)
        if size > bot_count:
            raise ValueError(
                f"table size {size} needs at least {size} bots, only {bot_count} entered"
            )
    duplicates = sorted({size for size in sizes if sizes.count(size) > 1})
    if duplicates:
        raise ValueError(f"table size asked for more than once: {', '.join(map(str, duplicates))}")
    return sorted(sizes)


def _check_int(what: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an int, got {value!r}")
