"""Union Pacific actions: int ids, their structured form and their text form.

Every action of every decision has a fixed id in one dense range, laid out so that
the legal actions of a decision come out sorted when enumerated in the natural
order (card kind, company, section for builds; share combination, discard for
investments):

=================  ===========================================  =====================================
block              id                                           text
=================  ===========================================  =====================================
first investment   ``c`` (company 0-10, UP is 10)               ``first-invest DM``
build              ``BUILD + (kind*10 + company)*S + section``  ``build EPRG Denver-El Paso MOUNTAIN``
invest             ``INVEST + discard kind*C + combo``                 ``invest 2 DM discard PLAIN``
pass               ``PASS + discard kind``                      ``pass discard PLAIN``
draw a share       ``DRAW + company`` / ``+10`` / ``+11``       ``draw display DM`` / ``draw deck`` / ``draw up``
exchange           ``EXCHANGE`` / ``EXCHANGE + 1 + company``    ``exchange none`` / ``exchange DM``
=================  ===========================================  =====================================

An investment "combo" is one or more shares of one company (``n`` of company ``c``)
or exactly one share of each of two companies.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Sequence

from arena.games.base import IllegalActionError
from arena.games.common import ActionTexts
from arena.games.union_pacific.board import (
    NUM_CARD_KINDS,
    NUM_COMPANIES,
    NUM_SHARE_KINDS,
    SHARE_CODES,
    WILD,
    Board,
)

DRAW_DECK = NUM_COMPANIES
DRAW_UP = NUM_COMPANIES + 1
_SHARE_RANGE = range(NUM_SHARE_KINDS)
_HALF = 5  # invest_parts splits a hand's counts into companies 0-4 and 5-10
if NUM_SHARE_KINDS != 11:  # invest_parts writes its keys out for 11 kinds in halves of _HALF
    raise ImportError(f"the Union Pacific engine expects 11 kinds of share, the board has {NUM_SHARE_KINDS}")
_MEMO_LIMIT = 1 << 14  # a memo of invest_parts is emptied when it reaches this many hands


PRESET_SHARES = 6  # see ActionTable._low


def _counts_up_to(places: int, total: int) -> list[tuple[int, ...]]:
    """Every tuple of ``places`` counts whose sum is at most ``total``."""
    if places == 0:
        return [()]
    return [(n, *rest) for n in range(total + 1) for rest in _counts_up_to(places - 1, total - n)]


class ActionTable(ActionTexts):
    """The id layout for one board (the number of sections sets the build block)."""

    game_title = "Union Pacific"
    # Slots: CPython 3.11 shares an instance dict's keys only up to 30 names, and the engine reads
    # these fields at every decision (a slot is the cheapest attribute read).
    __slots__ = (
        "board", "num_sections", "first_invest", "build", "invest", "build_block", "combos", "single_offset",
        "pair_index", "combo_sizes", "combo_shares", "pass_", "draw", "exchange", "size", "draw_ids",
        "display_draw_ids", "exchange_ids", "track_cards", "company_cards", "allowed", "build_parts", "build_fits",
        "build_options", "section_users", "section_bit", "company_bit", "allowed_mask", "city_mask",
        "section_cities", "section_near", "near_allowed", "num_combos", "invest_ids", "single_combos",
        "pair_combos", "pair_ids", "_low", "_high",
    )

    def __init__(self, board: Board) -> None:
        self.board = board
        s = board.num_sections
        self.num_sections = s
        self.first_invest = 0
        self.build = NUM_SHARE_KINDS
        self.invest = self.build + NUM_CARD_KINDS * NUM_COMPANIES * s
        #: build_block[k][c]: the id of building company c on section 0 with a card of kind k
        self.build_block = tuple(
            tuple(self.build + (k * NUM_COMPANIES + c) * s for c in range(NUM_COMPANIES)) for k in range(NUM_CARD_KINDS)
        )
        # Combos: singles (c, n) for n = 1..max held, then pairs (c1 < c2).
        max_count = list(board.company_shares) + [board.up_shares]
        self.combos: list[tuple[tuple[int, int], ...]] = []
        self.single_offset: list[int] = []
        for c in range(NUM_SHARE_KINDS):
            self.single_offset.append(len(self.combos))
            self.combos.extend(((c, n),) for n in range(1, max_count[c] + 1))
        self.pair_index: list[list[int]] = [[-1] * NUM_SHARE_KINDS for _ in range(NUM_SHARE_KINDS)]
        for c1 in range(NUM_SHARE_KINDS):
            for c2 in range(c1 + 1, NUM_SHARE_KINDS):
                self.pair_index[c1][c2] = len(self.combos)
                self.combos.append(((c1, 1), (c2, 1)))
        #: combo_sizes[combo]: the number of shares of the combo
        self.combo_sizes = tuple(sum(n for _, n in shares) for shares in self.combos)
        #: combo_shares[combo]: the combo as an event's ``shares`` ({code: count}); copy it, never change it
        self.combo_shares = tuple({SHARE_CODES[c]: n for c, n in shares} for shares in self.combos)
        self.pass_ = self.invest + NUM_CARD_KINDS * len(self.combos)
        self.draw = self.pass_ + NUM_CARD_KINDS
        self.exchange = self.draw + NUM_COMPANIES + 2
        self.size = self.exchange + 1 + NUM_SHARE_KINDS
        #: draw_ids[what]: the id of drawing ``what`` (a display company, DRAW_DECK or DRAW_UP)
        self.draw_ids = tuple(range(self.draw, self.exchange))
        #: display_draw_ids[companies]: the ids of drawing each company of the bitmask ``companies``
        #: (bit c: company c) from the display, sorted
        self.display_draw_ids = tuple(tuple(self.draw_ids[c] for c in range(NUM_COMPANIES) if mask >> c & 1)
                                      for mask in range(1 << NUM_COMPANIES))
        #: exchange_ids[c]: the id of exchanging a share of c (``exchange`` itself: no exchange)
        self.exchange_ids = tuple(range(self.exchange + 1, self.size))
        #: track_cards, company_cards: the track cards (by kind) and the company share cards (by
        #: company) of the game, in order, before they are shuffled
        self.track_cards = tuple(k for k in range(NUM_CARD_KINDS) for _ in range(board.card_counts[k]))
        self.company_cards = tuple(c for c in range(NUM_COMPANIES) for _ in range(board.company_shares[c]))
        #: allowed[c][s]: may company c use section s's track type?
        self.allowed: tuple[tuple[bool, ...], ...] = tuple(
            tuple(board.section_type[sec] in board.company_types[c] for sec in range(s)) for c in range(NUM_COMPANIES)
        )
        #: build_parts[a - build]: (card kind, company, section) of build id a
        self.build_parts = tuple((k, c, sec) for k in range(NUM_CARD_KINDS) for c in range(NUM_COMPANIES)
                                 for sec in range(s))
        #: build_fits[a - build]: may build id a's card kind build on its section (a wild card, or the section's type)?
        self.build_fits = tuple(k == WILD or board.section_type[sec] == k for k, _, sec in self.build_parts)
        #: build_options[c][s]: (section type t, id of building c on s with a card of kind t,
        #: id with a wild card): the two build ids company c gains or loses with section s
        self.build_options = tuple(
            tuple((board.section_type[sec], self.build_block[board.section_type[sec]][c] + sec,
                   self.build_block[WILD][c] + sec) for sec in range(s))
            for c in range(NUM_COMPANIES)
        )
        #: section_users[s]: the companies that may use section s's track type
        self.section_users = tuple(tuple(c for c in range(NUM_COMPANIES) if self.allowed[c][sec]) for sec in range(s))
        #: section_bit[s], company_bit[c]: ``1 << s``, ``1 << c`` (an item of a tuple is cheaper than a
        #: shift, which makes a new int past 255)
        self.section_bit = tuple(1 << sec for sec in range(s))
        self.company_bit = tuple(1 << c for c in range(NUM_COMPANIES))
        #: allowed_mask[c]: the sections company c may use, as a bitmask (bit s: section s)
        self.allowed_mask = tuple(sum(1 << sec for sec in range(s) if ok[sec]) for ok in self.allowed)
        #: city_mask[city]: the sections touching a city, as a bitmask
        self.city_mask = tuple(sum(1 << sec for sec in secs) for secs in board.city_sections)
        #: section_cities[s]: the two cities of section s, as a bitmask (bit i: city i)
        self.section_cities = tuple(1 << a | 1 << b for a, b in zip(board.section_a, board.section_b))
        #: section_near[s]: the sections touching either city of section s (s among them), as a bitmask
        self.section_near = tuple(self.city_mask[a] | self.city_mask[b] for a, b in zip(board.section_a, board.section_b))
        #: near_allowed[c][s]: section_near[s] & allowed_mask[c] (what a build of c on s may add to its frontier)
        self.near_allowed = tuple(tuple(near & mask for near in self.section_near) for mask in self.allowed_mask)
        self.num_combos = len(self.combos)
        #: invest_ids[k][combo]: the invest action id of a combo with a discard of kind k
        self.invest_ids = tuple(
            [self.invest + k * self.num_combos + combo for combo in range(self.num_combos)]
            for k in range(NUM_CARD_KINDS)
        )
        #: single_combos[c][n]: the combos of 1..n shares of company c
        self.single_combos = tuple(
            tuple(tuple(range(self.single_offset[c], self.single_offset[c] + n)) for n in range(max_count[c] + 1))
            for c in range(NUM_SHARE_KINDS)
        )
        #: pair_combos[owned]: the pair combos of the companies of the bitmask ``owned`` (bit c: company c),
        #: sorted; each from the set without its lowest company
        self.pair_combos: list[tuple[int, ...]] = [()]
        for owned in range(1, 1 << NUM_SHARE_KINDS):
            first = (owned & -owned).bit_length() - 1
            rest = owned ^ (1 << first)
            row = self.pair_index[first]
            self.pair_combos.append(tuple(row[c] for c in _SHARE_RANGE if rest >> c & 1) + self.pair_combos[rest])
        #: pair_ids[owned][k]: the ids of pair_combos[owned] with a discard of kind k (all 2**11 sets are
        #: met in play: laid out once per board, about 8 ms and 2.5 MB)
        self.pair_ids = tuple(self._ids_by_kind(combos) for combos in self.pair_combos)
        # The memos of invest_parts: (ids by kind, bitmask of the companies held) by the low or high
        # half of a hand.  The halves of at most PRESET_SHARES shares are laid out now (about 1400,
        # a few ms), the others when met.
        self._low: dict[tuple[int, ...], tuple[tuple[tuple[int, ...], ...], int]] = {}
        self._high: dict[tuple[int, ...], tuple[tuple[tuple[int, ...], ...], int]] = {}
        for counts in _counts_up_to(_HALF, PRESET_SHARES):
            self._memo_singles(self._low, counts, 0)
        for counts in _counts_up_to(NUM_SHARE_KINDS - _HALF, PRESET_SHARES):
            self._memo_singles(self._high, counts, _HALF)

    def invest_combos(self, hand: Sequence[int]) -> tuple[int, ...]:
        """The investment combos a hand of share counts allows, sorted: the singles by
        company, then the pairs."""
        singles = self.single_combos
        combos: tuple[int, ...] = ()
        for c in _SHARE_RANGE:
            combos += singles[c][hand[c]]
        return combos + self.pair_combos[sum(1 << c for c in _SHARE_RANGE if hand[c])]

    def invest_parts(self, hand: Sequence[int]) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """The invest ids a hand of share counts allows, by discard kind, in three parts:
        ``low[k] + high[k] + pairs[k]`` are the ids of :meth:`invest_combos` with a discard of kind k.

        ``low`` has the singles of companies 0 to 4, ``high`` those of companies 5 to 10 and
        ``pairs`` the pairs.  Each part is memoised on what it depends on (half the hand's
        counts, or the set of companies held), and these recur far more often than whole
        hands do; a legal-action list only copies them.

        Its two memo look-ups are also written out in state.py's ``legal_actions`` (which reads
        ``_low``, ``_high`` and ``_memo_singles``): change both.
        """
        # the keys are written out: a tuple display is cheaper than tuple() of a slice
        key = hand[0], hand[1], hand[2], hand[3], hand[4]  # companies 0 to _HALF - 1
        low = self._low.get(key)
        if low is None:
            low = self._memo_singles(self._low, key, 0)
        key = hand[5], hand[6], hand[7], hand[8], hand[9], hand[10]  # companies _HALF to UP
        high = self._high.get(key)
        if high is None:
            high = self._memo_singles(self._high, key, _HALF)
        return low[0], high[0], self.pair_ids[low[1] | high[1]]

    def _memo_singles(self, memo: dict, counts: tuple[int, ...], first: int) -> tuple[tuple[tuple[int, ...], ...], int]:
        """The single combos' ids by kind of ``counts`` (the counts of companies ``first``, ``first + 1``...)."""
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        combos: tuple[int, ...] = ()
        owned = 0
        for c, n in enumerate(counts, first):
            if n:
                combos += self.single_combos[c][n]
                owned |= 1 << c
        memo[counts] = entry = (self._ids_by_kind(combos), owned)
        return entry

    def _ids_by_kind(self, combos: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """The invest ids of ``combos`` by discard kind."""
        if len(combos) < 2:  # itemgetter of one index gives the item itself, not a tuple
            return tuple(tuple(ids[combo] for combo in combos) for ids in self.invest_ids)
        pick = itemgetter(*combos)
        return tuple(map(pick, self.invest_ids))

    # -- structured form ---------------------------------------------------------

    def describe(self, action: int) -> dict[str, Any]:
        """The structured form of an action id (JSON-ready)."""
        kinds = self.board.card_kinds
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < self.size:
            raise IllegalActionError(f"{action!r} is not an action id (0 to {self.size - 1})")
        if action < self.build:
            return {"kind": "first_invest", "company": SHARE_CODES[action]}
        if action < self.invest:
            rest = action - self.build
            kc, section = divmod(rest, self.num_sections)
            kind, company = divmod(kc, NUM_COMPANIES)
            return {"kind": "build", "card": kinds[kind], "company": SHARE_CODES[company], "section": section}
        if action < self.pass_:
            discard, combo = divmod(action - self.invest, len(self.combos))
            shares = {SHARE_CODES[c]: n for c, n in self.combos[combo]}
            return {"kind": "invest", "shares": shares, "discard": kinds[discard]}
        if action < self.draw:
            return {"kind": "pass", "discard": kinds[action - self.pass_]}
        if action < self.exchange:
            what = action - self.draw
            if what == DRAW_DECK:
                return {"kind": "draw", "source": "deck"}
            if what == DRAW_UP:
                return {"kind": "draw", "source": "up"}
            return {"kind": "draw", "source": "display", "company": SHARE_CODES[what]}
        what = action - self.exchange
        return {"kind": "exchange", "company": None if what == 0 else SHARE_CODES[what - 1]}

    # -- text form -----------------------------------------------------------------

    def to_string(self, action: int) -> str:
        d = self.describe(action)
        kind = d["kind"]
        if kind == "first_invest":
            return f"first-invest {d['company']}"
        if kind == "build":
            return f"build {d['company']} {self.board.section_names[d['section']]} {d['card']}"
        if kind == "invest":
            shares = " ".join(f"{n} {c}" for c, n in d["shares"].items())
            return f"invest {shares} discard {d['discard']}"
        if kind == "pass":
            return f"pass discard {d['discard']}"
        if kind == "draw":
            return "draw " + (f"display {d['company']}" if d["source"] == "display" else d["source"])
        return f"exchange {d['company'] or 'none'}"

