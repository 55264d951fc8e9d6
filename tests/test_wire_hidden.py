"""Hidden information over the wire: the bytes a bot receives (ids included) never depend on
what its seat may not know.

The engine's property (tests/games/test_up_observation.py) says hidden changes never
alter an observation; this one says the same of the host's encoded ``DecisionRequest``
and ``StartMatchRequest``, built by the host's own code path (``SeatClient.payload``,
the shared action cache, the match runner's start request), with a match id made the way
the host makes them.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import get_game
from arena.host.client import BotConnection, SeatClient, encoder_for
from arena.host.clock import Clocks
from arena.host.codec import ObservationEncoder
from arena.host.match import LocalPlayer, MatchConfig, _Match, run_match
from arena.host.pool import BotPool
from arena.policies import RandomPolicy
from tests.games.scenario import hidden_view
from tests.games.test_ttr_observation import HIDDEN as TTR_HIDDEN
from tests.games.test_ttr_observation import PUBLIC as TTR_PUBLIC
from tests.games.test_ttr_observation import game_prefixes as ttr_prefixes
from tests.games.test_up_observation import HIDDEN, game_prefixes

GAME = get_game("union_pacific")


def _client(match_id: str, seat: int, observations: ObservationEncoder | None = None) -> SeatClient:
    # The connection is never called: only the request bytes are built.
    return SeatClient(BotConnection("unix:/nonexistent/bot.sock"), match_id=match_id, seat=seat, clocks=Clocks(),
                      encoder=encoder_for(GAME), observations=observations)


def _wire(state, me: int, match_id: str, observations: ObservationEncoder | None = None) -> bytes:
    """The request as the match runner builds it (the observation written from the state)."""
    legal = state.legal_actions(me) if me in state.current_seats() else []
    return _client(match_id, me, observations).payload(state, len(state.history), None, legal)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_prefixes(), data=st.data())
def test_hidden_changes_never_change_the_bytes_a_bot_receives(state, data: st.DataObject) -> None:
    if state.is_terminal():
        return
    me = data.draw(st.sampled_from(state.current_seats()), label="deciding seat")
    rng = random.Random(data.draw(st.integers(min_value=0, max_value=2**32 - 1), label="mutation seed"))
    match_id = data.draw(st.text("0123456789abcdef", min_size=20, max_size=20), label="match id")
    shared = ObservationEncoder()  # one encoder that saw the original first: nothing it kept may show
    before = _wire(state, me, match_id, shared)
    assert before == _client(match_id, me).payload(state, len(state.history), state.observation(me),
                                                   state.legal_actions(me))  # the dict path's bytes
    twin = state.clone()
    changed = sum(mutation(twin, me, rng) for mutation in HIDDEN)
    if changed:
        assert hidden_view(twin) != hidden_view(state)
        assert _wire(twin, me, match_id) == before, "hidden information reaches the wire"
        assert _wire(twin, me, match_id, shared) == before, "hidden information reaches the wire"


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        bits, value = value & 0x7F, value >> 7
        out.append(bits | (0x80 if value else 0))
        if not value:
            return bytes(out)


def test_the_match_id_and_the_start_request_carry_no_seed() -> None:
    seed = 987_654_321_987
    players = [LocalPlayer(f"p{i}", RandomPolicy(i)) for i in range(3)]
    with BotPool(log_dir="/nonexistent") as pool:
        first = run_match(pool, players, seed=seed)
        second = run_match(pool, players, seed=seed)
        match = _Match(pool, GAME, players, seed=seed, variant="standard", match_id=first.match_id, names=None,
                       config=MatchConfig(), cancel=None)
        start = match.start_request(0).SerializeToString()
    assert first.match_id != second.match_id, "the same deal got the same id: ids are not random"
    for match_id in (first.match_id, second.match_id):
        assert str(seed) not in match_id and str(seed % 100_000) not in match_id
        assert len(match_id) >= 14
    assert str(seed).encode() not in start and _varint(seed) not in start


# -- Ticket to Ride: the same property, on the runner's path (fields and events written from the state)

TTR = get_game("ticket_to_ride_pennsylvania")


def _ttr_wire(state, me: int, observations: ObservationEncoder | None = None) -> bytes:
    legal = state.legal_actions(me) if me in state.current_seats() else []
    client = SeatClient(BotConnection("unix:/nonexistent/bot.sock"), match_id="m" * 20, seat=me, clocks=Clocks(),
                        encoder=encoder_for(TTR), observations=observations)
    return client.payload(state, len(state.history), None, legal)


def change_known_cards(state, me: int, rng: random.Random) -> bool:
    """A player's publicly known cards change while its card count does not (only its row's maps)."""
    state.known[rng.randrange(state.num_players)][rng.randrange(len(state.kind_names))] += 1
    return True


#: Public changes to the fields (not the log, which the encoders trust to only grow).
_FIELD_CHANGES = [m for m in TTR_PUBLIC if m.__name__ != "change_public_event_in_window"] + [change_known_cards]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=ttr_prefixes(), data=st.data())
def test_ticket_to_ride_hidden_changes_never_reach_the_wire_and_public_ones_do(state, data: st.DataObject) -> None:
    me = data.draw(st.integers(min_value=0, max_value=state.num_players - 1), label="observer")
    rng = random.Random(data.draw(st.integers(min_value=0, max_value=2**32 - 1), label="mutation seed"))
    shared = ObservationEncoder()  # sees the state before and after each change, as a match's encoder does
    before = _ttr_wire(state, me, shared)
    assert ObservationEncoder().encode(state.observation(me)) in before  # the dict path's observation bytes
    twin = state.clone()
    if sum(mutation(twin, me, rng) for mutation in TTR_HIDDEN):
        assert _ttr_wire(twin, me) == before, "hidden information reaches the wire"
    if sum(mutation(state, me, rng) for mutation in TTR_HIDDEN):  # in place: nothing kept may show it either
        assert _ttr_wire(state, me, shared) == before, "hidden information reaches the wire"
    for mutation in _FIELD_CHANGES:
        if mutation(state, me, rng):  # in place: a kept field must not go stale
            expected = ObservationEncoder().encode(state.observation(me))
            assert expected in _ttr_wire(state, me, shared), f"{mutation.__name__}: a kept field went stale"
