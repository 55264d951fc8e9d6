"""What each seat knows (§12): an observation holds everything public and the seat's own
secrets, and nothing hidden from that seat.

The main property: over random game prefixes, changing anything hidden from a seat
(the other seats' hands and tickets, their pending ticket offers and initial picks,
the order of either deck, the hidden fields of the logged events, the random
generator) leaves that seat's observation as it was; changing anything public does
change it.
"""

from __future__ import annotations

import json
import random
from typing import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games.ticket_to_ride_pennsylvania.state import INITIAL, keep_masks
from tests.games.ttr_scenario import (
    BOARD,
    KINDS,
    act,
    hidden_view,
    new_game,
    play_randomly,
    set_deck,
    set_hand,
    set_row,
    started,
)

OBSERVATION_KEYS = {
    "game", "seat", "num_players", "variant", "decision", "current_seat", "turn", "train_deck", "ticket_deck",
    "discard", "row", "routes", "share_piles", "share_offer", "players", "neutral", "hand", "tickets",
    "offered_tickets", "chosen_tickets", "final_round", "consecutive_passes", "public_events",
}

Mutation = Callable[[object, int, random.Random], bool]


def _others(state, me: int) -> list[int]:
    return [s for s in range(state.num_players) if s != me]


# -- hidden changes --------------------------------------------------------------------

def swap_other_hand_card_with_deck(state, me: int, rng: random.Random) -> bool:
    options = [(s, k, i) for s in _others(state, me) for k in range(len(KINDS))
               if state.hands[s][k] > state.known[s][k] for i, d in enumerate(state.deck) if d != k]
    if not options:
        return False
    seat, k, i = rng.choice(options)
    state.hands[seat][k] -= 1
    state.hands[seat][state.deck[i]] += 1
    state.deck[i] = k
    return True


def reorder_train_deck(state, me: int, rng: random.Random) -> bool:
    if len(set(state.deck)) < 2:
        return False
    before = list(state.deck)
    while state.deck == before:
        rng.shuffle(state.deck)
    return True


def reorder_ticket_deck(state, me: int, rng: random.Random) -> bool:
    if len(state.ticket_deck) < 2:
        return False
    before = list(state.ticket_deck)
    while state.ticket_deck == before:
        rng.shuffle(state.ticket_deck)
    return True


def swap_other_ticket_with_deck(state, me: int, rng: random.Random) -> bool:
    """Another seat's kept or offered ticket changes places with one in the deck."""
    options = [(pile, s, i) for s in _others(state, me) for pile in ("tickets", "offers")
               for i in range(len(getattr(state, pile)[s]))]
    if not options or not state.ticket_deck:
        return False
    pile, seat, i = rng.choice(options)
    j = rng.randrange(len(state.ticket_deck))
    held = getattr(state, pile)[seat]
    held[i], state.ticket_deck[j] = state.ticket_deck[j], held[i]
    return True


def change_other_initial_pick(state, me: int, rng: random.Random) -> bool:
    if state.phase != INITIAL:
        return False
    options = [(s, m) for s in _others(state, me) if state.picks[s] is not None
               for m in keep_masks(len(state.offers[s]), BOARD.tickets_keep_setup) if m != state.picks[s]]
    if not options:
        return False
    seat, mask = rng.choice(options)
    state.picks[seat] = mask
    return True


def _hidden_fields(event: dict, me: int) -> list[str]:
    """The fields of ``event`` that ``me`` may not see."""
    kind = event["type"]
    if kind in ("shuffle", "reshuffle"):
        return ["order"]
    if kind == "initial_tickets":
        return ["kept", "returned"]
    if event.get("seat") == me:
        return []
    return {"deal": ["cards"], "deal_tickets": ["tickets"], "draw_tickets": ["tickets"], "blind": ["card"],
            "keep_tickets": ["kept", "returned"]}.get(kind, [])


def _scramble(value, rng: random.Random):
    if isinstance(value, list):
        out = [_scramble(v, rng) for v in value]
        rng.shuffle(out)
        return out
    if isinstance(value, dict):
        mine = {k: _scramble(v, rng) for k, v in value.items()}
        keys = list(mine)
        if len(keys) >= 2:
            a, b = rng.sample(keys, 2)
            if len(mine[a]) == len(mine[b]):
                mine[a], mine[b] = mine[b], mine[a]
        return mine
    if value in KINDS:
        return KINDS[(KINDS.index(value) + 1) % len(KINDS)]
    return value


def change_hidden_event_fields(state, me: int, rng: random.Random) -> bool:
    """Rewrite hidden fields of the logged events (same sizes, other contents)."""
    options = [(i, f) for i, e in enumerate(state.events) for f in _hidden_fields(e, me)]
    rng.shuffle(options)
    changed = False
    for i, field in options[:5]:
        event = dict(state.events[i])
        value = event[field]
        if field in ("kept", "returned") and isinstance(value, dict):
            # initial_tickets: only the other seats' lists are hidden; keep their sizes
            new = {s: ([f"X{s}{j}" for j in range(len(ids))] if s != str(me) else ids) for s, ids in value.items()}
        elif isinstance(value, list) and value and isinstance(value[0], str) and value[0] in BOARD.ticket_ids:
            new = [f"X{j}" for j in range(len(value))]
        else:
            new = _scramble(value, rng)
        if new != value:
            event[field] = new
            state.events[i] = event
            changed = True
    return changed


def reseed(state, me: int, rng: random.Random) -> bool:
    state.rng.seed(rng.random())
    return True


HIDDEN: list[Mutation] = [swap_other_hand_card_with_deck, reorder_train_deck, reorder_ticket_deck,
                          swap_other_ticket_with_deck, change_other_initial_pick, change_hidden_event_fields, reseed]


# -- public changes --------------------------------------------------------------------

def change_row_card(state, me: int, rng: random.Random) -> bool:
    slots = [i for i, c in enumerate(state.row) if c != -1]
    if not slots:
        return False
    i = rng.choice(slots)
    state.row[i] = (state.row[i] + 1) % len(KINDS)
    return True


def add_discard(state, me: int, rng: random.Random) -> bool:
    state.discard.append(rng.randrange(len(KINDS)))
    return True


def change_route_owner(state, me: int, rng: random.Random) -> bool:
    r = rng.randrange(BOARD.num_routes)
    state.owner[r] = (state.owner[r] + 2) % (state.num_players + 1) - 1
    return True


def fewer_trains(state, me: int, rng: random.Random) -> bool:
    state.trains[rng.randrange(state.num_players)] -= 1
    return True


def take_a_share(state, me: int, rng: random.Random) -> bool:
    c = rng.randrange(BOARD.num_companies)
    if state.taken[c] >= BOARD.company_shares[c]:
        return False
    state.taken[c] += 1
    state.shares[rng.randrange(state.num_players)][c].append(state.taken[c])
    return True


def change_own_hand(state, me: int, rng: random.Random) -> bool:
    state.hands[me][rng.randrange(len(KINDS))] += 1
    return True


def shorter_ticket_deck(state, me: int, rng: random.Random) -> bool:
    if not state.ticket_deck:
        return False
    state.ticket_deck.pop()
    return True


def change_public_event_in_window(state, me: int, rng: random.Random) -> bool:
    options = [i for i in range(state.window[me], len(state.events)) if state.events[i]["type"] in ("take", "claim")]
    if not options:
        return False
    i = rng.choice(options)
    event = dict(state.events[i])
    event["seat"] = (event["seat"] + 1) % state.num_players
    state.events[i] = event
    return True


PUBLIC: list[Mutation] = [change_row_card, add_discard, change_route_owner, fewer_trains, take_a_share,
                          change_own_hand, shorter_ticket_deck, change_public_event_in_window]


# -- the properties -----------------------------------------------------------------------

@st.composite
def game_prefixes(draw: st.DrawFn):
    """A game after a random number of random actions (often still in the initial ticket choice)."""
    players = draw(st.integers(min_value=2, max_value=5))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    actions = draw(st.one_of(st.integers(min_value=0, max_value=players), st.integers(min_value=0, max_value=500)))
    state = new_game(players, seed)
    play_randomly(state, random.Random(seed), max_actions=actions)
    return state


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_prefixes(), data=st.data())
def test_hidden_changes_never_change_an_observation(state, data: st.DataObject) -> None:
    me = data.draw(st.integers(min_value=0, max_value=state.num_players - 1), label="observer")
    rng = random.Random(data.draw(st.integers(min_value=0, max_value=2**32 - 1), label="mutation seed"))
    before = state.observation(me)
    for mutation in HIDDEN:
        twin = state.clone()
        if mutation(twin, me, rng):
            assert json.dumps(hidden_view(twin), default=str) != json.dumps(hidden_view(state), default=str), \
                f"{mutation.__name__} changed nothing"
            assert twin.observation(me) == before, f"{mutation.__name__} shows in seat {me}'s observation"
    twin = state.clone()
    if sum(mutation(twin, me, rng) for mutation in HIDDEN):  # all of them at once
        assert twin.observation(me) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_prefixes(), data=st.data())
def test_public_changes_do_change_the_observation(state, data: st.DataObject) -> None:
    me = data.draw(st.integers(min_value=0, max_value=state.num_players - 1), label="observer")
    rng = random.Random(data.draw(st.integers(min_value=0, max_value=2**32 - 1), label="mutation seed"))
    before = state.observation(me)
    for mutation in PUBLIC:
        twin = state.clone()
        if mutation(twin, me, rng):
            assert twin.observation(me) != before, f"{mutation.__name__} does not show in seat {me}'s observation"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_prefixes())
def test_an_observation_is_json_with_exactly_the_documented_fields(state) -> None:
    for seat in range(state.num_players):
        obs = state.observation(seat)
        assert set(obs) == OBSERVATION_KEYS
        assert json.loads(json.dumps(obs)) == obs
        assert obs["seat"] == seat and obs["num_players"] == state.num_players
        assert obs["decision"] == state.decision_kind(seat)
        assert [p["seat"] for p in obs["players"]] == list(range(state.num_players))
        assert sum(obs["hand"].values()) == obs["players"][seat]["cards"]
        assert len(obs["tickets"]) == obs["players"][seat]["tickets"]
        assert len(obs["routes"]) == BOARD.num_routes and len(obs["row"]) == 5
        assert list(obs["share_piles"]) == list(BOARD.companies)
        assert (obs["neutral"] is not None) == (state.num_players == 2)
        assert all(obs["players"][seat]["known_cards"].get(k, 0) <= n for k, n in obs["hand"].items())


def test_editing_an_observation_does_not_touch_the_game() -> None:
    state = started(3, seed=30)
    obs = state.observation(0)
    snapshot = json.dumps(state.observation(0))
    obs["row"].clear()
    obs["players"][1]["shares"]["PRR"] = [1]
    obs["public_events"].clear()
    obs["hand"]["red"] = 99
    assert json.dumps(state.observation(0)) == snapshot


# -- hidden moves, seen from the other seats ----------------------------------------------------

def test_a_blind_draw_shows_the_card_to_the_drawer_only() -> None:
    state = started(3, seed=31)
    set_row(state, ["red", "blue", "green", "white", "black"])
    set_deck(state, ["pink", "yellow", "orange"])
    set_hand(state, 0, {})
    act(state, 0, "draw blind")
    mine = [e for e in state.observation(0)["public_events"] if e["type"] == "blind"]
    theirs = [e for e in state.observation(1)["public_events"] if e["type"] == "blind"]
    assert mine == [{"type": "blind", "seat": 0, "card": "pink"}]
    assert theirs == [{"type": "blind", "seat": 0}]
    assert state.observation(1)["players"][0]["cards"] == 1
    assert state.observation(1)["players"][0]["known_cards"] == {}


def test_a_face_up_take_and_a_payment_are_known_to_all() -> None:
    state = started(3, seed=32)
    set_row(state, ["red", "blue", "green", "white", "black"])
    set_deck(state, ["pink", "yellow", "orange", "green", "white", "black", "pink", "yellow"])
    set_hand(state, 0, {"red": 2})
    act(state, 0, "take red")
    act(state, 0, "take blue")
    assert state.observation(2)["players"][0]["known_cards"] == {"red": 1, "blue": 1}
    act(state, 1, "draw blind")
    act(state, 1, "draw blind")
    act(state, 2, "draw blind")
    act(state, 2, "draw blind")
    act(state, 0, "claim R07 allentown-philadelphia 3 red")
    seen = state.observation(1)["public_events"]
    claim = next(e for e in seen if e["type"] == "claim")
    assert claim["cards"] == ["red", "red", "red"]
    assert state.observation(1)["players"][0]["known_cards"] == {"blue": 1}


def test_drawn_tickets_show_only_as_numbers_to_the_others() -> None:
    state = started(3, seed=33)
    act(state, 0, "draw tickets")
    offered = state.observation(0)["offered_tickets"]
    assert len(offered) == 4 and state.observation(1)["offered_tickets"] == []
    act(state, 0, "keep 0 2")
    theirs = [e for e in state.observation(1)["public_events"] if e["type"] in ("draw_tickets", "keep_tickets")]
    assert theirs == [{"type": "draw_tickets", "seat": 0, "count": 4},
                      {"type": "keep_tickets", "seat": 0, "kept_count": 2, "returned_count": 2}]
    mine = [e for e in state.observation(0)["public_events"] if e["type"] == "keep_tickets"]
    assert mine == [{"type": "keep_tickets", "seat": 0, "kept_count": 2, "returned_count": 2,
                     "kept": [offered[0], offered[2]], "returned": [offered[1], offered[3]]}]
    assert state.observation(1)["players"][0]["tickets"] == 5


def test_public_events_cover_what_happened_since_the_seats_previous_decision() -> None:
    state = started(3, seed=34)
    for seat in (0, 1, 2):
        act(state, seat, "draw blind")
        act(state, seat, "draw blind")
    window = state.observation(0)["public_events"]
    assert window[0]["type"] == "blind" and window[0]["seat"] == 0 and "card" in window[0]  # its own last draw
    assert [e["type"] for e in window].count("turn") == 3
    assert window[-1] == {"type": "turn", "turn": 4, "seat": 0}


def test_at_the_end_all_tickets_and_shares_are_shown() -> None:
    state = new_game(2, seed=35)
    play_randomly(state, random.Random(35))
    for seat in (0, 1):
        seen = state.observation(seat)["public_events"]
        scoring = next(e for e in seen if e["type"] == "scoring")
        assert [len(s["ticket_results"]) for s in scoring["seats"]] == [len(t) for t in state.tickets]
        assert any(e["type"] == "neutral_reveal" for e in seen)


def test_flat_events_hold_only_scalars_so_their_copies_are_independent() -> None:
    from arena.games.ticket_to_ride_pennsylvania.knowledge import FLAT

    seen = set()
    for players in (2, 5):
        state = new_game(players, seed=36)
        play_randomly(state, random.Random(36))
        seen |= {e["type"] for e in state.events if e["type"] in FLAT}
        for e in state.events:
            if e["type"] in FLAT:
                assert all(not isinstance(v, (list, dict)) for v in e.values()), e
    assert seen >= FLAT - {"pass", "deadlock", "no_second_card"}
