"""The board side of a Union Pacific state: trains, networks, frontiers and the legal builds.

A mixin of :class:`~arena.games.union_pacific.state.UnionPacificState` (it uses the
state's ``board``, ``table`` and ``allowed``).  Kept incrementally, so that
enumerating legal actions never recomputes the board:

* ``free[s]``: the empty neutral spaces of section ``s``; ``open_mask`` has the bits
  (bit ``s`` for section ``s``) of the sections with one.
* ``has_train[s]``: the companies with a train on ``s`` (bit ``c``); ``own[c]`` the
  sections with a train of ``c``; ``sections_of[c]`` the same as a sorted tuple (for the views),
  made from ``own`` when it is read and kept until ``own`` changes (a rollout state gives none).
* ``in_network[c]``: the cities of company ``c``'s network (bit per city).
* ``frontier[c]``: the sections ``c`` may reach: touching its network, of a type it
  may use, with an empty neutral space, without a train of ``c`` yet.
* ``builds[k]``: the legal build ids with a card of kind ``k``, sorted (by company,
  then section: the id order); a company with a train left has one option per
  frontier section (``_extend_frontier``, ``_drop_option``).  ``builds_from_scratch`` is
  their definition, which the tests check them against.

The starting board is the same in every game on a board: laid out once
(``_lay_out_board``) and copied.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import Any

from arena.games.union_pacific.board import NUM_CARD_KINDS, NUM_COMPANIES, WILD
from arena.games.union_pacific.phases import RolloutStateError

#: The board fields right after the starting trains are placed, per action table (by id; the
#: entry holds the table, so an id reused by another table is told apart).  Immutable.
_START_BOARDS: dict[int, tuple] = {}


def _bits(mask: int) -> tuple[int, ...]:
    """The positions of the bits set in ``mask``, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


class Network:
    """The board bookkeeping of a state (see the module's docstring)."""

    __slots__ = ()  # the state's fields are its slots

    board: Any
    table: Any
    allowed: Any
    own: list[int]
    _history: Any  # None: a rollout state (state.py's clone)
    #: ``(own, sections)``: the tuples of ``sections_of`` as last made, and a copy of the ``own`` they
    #: were made from (neither is changed in place, so clones share them); None: not made yet
    _sections_of: tuple[list[int], tuple[tuple[int, ...], ...]] | None

    @property
    def sections_of(self) -> list[tuple[int, ...]]:
        """``sections_of[c]``: the sections with a train of company ``c``, a sorted tuple (a new list
        at each read).  Made from the bits of ``own`` when read, so placing a train costs nothing here."""
        if self._history is None:
            raise RolloutStateError("list of each company's sections (sections_of: the views read it)")
        own = self.own
        made = self._sections_of
        if made is None:
            sections = tuple(map(_bits, own))
        elif made[0] != own:  # a train placed since: only the companies whose bits changed are made again
            was, before = made
            sections = tuple(before[c] if own[c] == was[c] else _bits(own[c]) for c in range(NUM_COMPANIES))
        else:
            return [*made[1]]
        self._sections_of = (own[:], sections)
        return [*sections]

    def _set_up_board(self) -> None:
        """The starting board: laid out the first time for this action table, then copied."""
        table = self.table
        start = _START_BOARDS.get(id(table))
        if start is None or start[0] is not table:
            self._lay_out_board()
            _START_BOARDS[id(table)] = (table, tuple(tuple(ids) for ids in self.builds), tuple(self.free),
                                        tuple(self.has_train), self.open_mask,
                                        tuple(self.trains_on_board), tuple(self.supply),
                                        tuple(self.in_network), tuple(self.frontier), tuple(self.own))
        else:
            self.builds = list(map(list, start[1]))
            self.free, self.has_train = list(start[2]), list(start[3])
            self.open_mask = start[4]
            self.trains_on_board, self.supply = list(start[5]), list(start[6])
            self.in_network, self.frontier, self.own = list(start[7]), list(start[8]), list(start[9])
        self._sections_of = None

    def _lay_out_board(self) -> None:
        """The starting trains on an empty board (§3.1), with the bookkeeping below."""
        board = self.board
        n_sec = board.num_sections
        self.builds = [[] for _ in range(NUM_CARD_KINDS)]
        self.free = list(board.neutral_spaces)
        self.has_train = [0] * n_sec  # bitmask of companies per section
        self.open_mask = sum(1 << s for s in range(n_sec) if self.free[s])
        self.trains_on_board = [0] * NUM_COMPANIES
        self.supply = list(board.company_trains)
        self.in_network = [0] * NUM_COMPANIES  # bitmask of the cities in each company's network
        self.frontier = [0] * NUM_COMPANIES  # bitmask of sections, per company
        self.own = [0] * NUM_COMPANIES  # bitmask of the sections with a train of the company
        for c in range(NUM_COMPANIES):
            self._reach(c, 1 << board.company_home[c])
            for s in board.company_start[c]:
                self._place(c, s)

    def _reach(self, c: int, cities: int) -> None:
        """Company ``c``'s network takes in the cities of the bitmask ``cities`` (set-up: its home)."""
        self.in_network[c] |= cities
        near = 0
        for city in range(cities.bit_length()):
            if cities >> city & 1:
                near |= self.table.city_mask[city]
        self._extend_frontier(c, near)

    def _extend_frontier(self, c: int, near: int) -> None:
        """The sections of the bitmask ``near`` (touching c's network) that c may use, with an
        empty neutral space and without a train of ``c``, join its frontier (and its build
        options, while it has a train left).  Sections already in the frontier stay as they
        are: ``frontier[c]`` is always every such section touching the network, so ``near``
        may include sections of cities the network had already."""
        frontier = self.frontier[c]
        new = near & self.table.allowed_mask[c] & self.open_mask & ~(frontier | self.own[c])
        if new:
            self.frontier[c] = frontier | new
            if self.supply[c]:
                self._add_options(c, new)

    def _add_options(self, c: int, new: int) -> None:
        """Company ``c`` (with a train left) may now build on the sections of the bitmask ``new``."""
        options, builds = self.table.build_options[c], self.builds
        wild = builds[WILD]
        while new:
            low = new & -new
            new ^= low
            t, typed_id, wild_id = options[low.bit_length() - 1]
            insort(builds[t], typed_id)
            insort(wild, wild_id)

    def _place(self, c: int, s: int) -> None:
        """Put a train of company ``c`` on section ``s`` (legality checked by the caller)."""
        table = self.table
        bit = table.section_bit[s]
        self.has_train[s] |= table.company_bit[c]
        own = self.own[c] | bit
        self.own[c] = own
        self.trains_on_board[c] += 1
        supply = self.supply
        left = supply[c] = supply[c] - 1
        frontier = self.frontier[c]
        if frontier & bit:  # always so in play: a build is on a frontier section
            frontier ^= bit
            # self._drop_option(c, s), written out (this runs at every build)
            t, typed, wild = table.build_options[c][s]
            ids = self.builds[t]
            del ids[bisect_left(ids, typed)]
            ids = self.builds[WILD]
            del ids[bisect_left(ids, wild)]
        if not left:  # no train left: no option at all
            rest = frontier
            while rest:
                low = rest & -rest
                rest ^= low
                self._drop_option(c, low.bit_length() - 1)
        # the network takes in the section's cities; what they touch may join the frontier
        # (as _extend_frontier, written out: this runs at every build)
        self.in_network[c] |= table.section_cities[s]
        new = table.near_allowed[c][s] & self.open_mask & ~(frontier | own)
        self.frontier[c] = frontier | new
        if new and left:
            self._add_options(c, new)

    def _any_placement(self) -> bool:
        return any(self.supply[c] and self.frontier[c] for c in range(NUM_COMPANIES))

    def _fill(self, s: int) -> None:
        """Section ``s`` has no empty neutral space left: nobody may build there again.

        It leaves every frontier, and its build ids leave the build lists.
        """
        bit = self.table.section_bit[s]
        self.open_mask &= ~bit
        frontier = self.frontier
        for c in self.table.section_users[s]:  # the companies that may use its track: only theirs hold it
            if frontier[c] & bit:
                frontier[c] ^= bit
                if self.supply[c]:
                    self._drop_option(c, s)

    def _drop_option(self, c: int, s: int) -> None:
        """Company ``c`` (which had a train left) may no longer build on ``s``.
        (Also written out in :meth:`_place`, which runs at every build: change both.)"""
        t, typed, wild = self.table.build_options[c][s]
        ids = self.builds[t]
        del ids[bisect_left(ids, typed)]
        ids = self.builds[WILD]
        del ids[bisect_left(ids, wild)]

    def builds_from_scratch(self) -> list[list[int]]:
        """The legal build ids by card kind, recomputed from the board alone.

        The engine keeps them incrementally (``_extend_frontier``, ``_drop_option``); this is their
        definition, for the tests that check the two always agree.
        """
        out: list[list[int]] = [[] for _ in range(NUM_CARD_KINDS)]
        block = self.table.build_block
        board = self.board
        for k in range(NUM_CARD_KINDS):
            for c in range(NUM_COMPANIES):
                if not self.supply[c]:
                    continue
                for s in range(board.num_sections):
                    if (self.free[s] and self.allowed[c][s] and not self.has_train[s] >> c & 1
                            and (k == WILD or board.section_type[s] == k)
                            and self.in_network[c] & (1 << board.section_a[s] | 1 << board.section_b[s])):
                        out[k].append(block[k][c] + s)
        return out

    def build_actions(self) -> list[list[int]]:
        """The legal build ids by card kind (a copy), as the engine keeps them."""
        return [list(ids) for ids in self.builds]

    def _reset_builds(self) -> None:
        """Recompute the build lists from the board (for code that edits the board's fields directly)."""
        self.builds = self.builds_from_scratch()
