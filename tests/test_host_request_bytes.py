"""The host's cached request path writes the very bytes of the plain path.

The match runner encodes each DecisionRequest with long-lived caches: the game's
shared :class:`~arena.host.client.DecisionEncoder` (action entries, the request's
match/seat prefix), one :class:`~arena.host.codec.ObservationEncoder` per match
shared by its seats (the bytes of unchanged observation fields, rows and events).
Here every request of random games of every game is also built with fresh encoders
(nothing kept from an earlier decision, seat or match): the two must be equal byte for
byte.  The head and the legal actions must also be the bytes protobuf writes for the
codec's messages, and the observation must parse as the codec's message (a game's fast
encoder may write its fields in its own order: Union Pacific's does).
"""

from __future__ import annotations

import random

import pytest

from arena.games import get_game, registered_games
from arena.host import codec
from arena.host.client import DecisionEncoder
from arena.protocol.wirebytes import length_prefixed, varint
from arena.v1 import bot_pb2


def _plain_request(game_name: str, state, *, match_id: str, seat: int, number: int, actions: list[int],
                   decision_ms: int, bank_ms: int) -> tuple[bytes, bot_pb2.Observation, bytes]:
    """The request from protobuf messages alone: the head and the observation as protobuf
    serializes them; each legal action as its codec message followed by its index field
    (the host's documented order, which protobuf parses like any other)."""
    head = bot_pb2.DecisionRequest(match_id=match_id, seat=seat, decision_number=number,
                                   decision_time_ms=decision_ms, time_bank_ms=bank_ms).SerializeToString()
    observation = codec.observation_to_proto(state.observation(seat))
    entries = []
    for i, action in enumerate(actions):
        body = codec.action_to_proto(0, state.action_to_string(action), state.describe_action(action),
                                     game=game_name)
        entries.append(length_prefixed(b"\x2a", body.SerializeToString() + (b"\x08" + varint(i) if i else b"")))
    return head, observation, b"".join(entries)


@pytest.mark.parametrize("game_name", sorted(spec.name for spec in registered_games()))
def test_the_cached_path_writes_the_plain_bytes(game_name: str) -> None:
    game = get_game(game_name)
    encoder = DecisionEncoder(game.name)  # shared by every match, as encoder_for(game) is
    rng = random.Random(7)
    requests = 0
    for match in range(4):
        players = rng.randint(game.min_players, game.max_players)
        state = game.new_state(players, 1000 + match)
        observations = codec.ObservationEncoder()  # one per match, shared by its seats
        match_id = f"match-{match}-" + "x" * rng.randrange(3)
        bank = 60_000
        while not state.is_terminal():
            seat = state.current_seats()[0]
            actions = state.legal_actions(seat)
            number = len(state.history)
            bank = max(0, bank - rng.choice([0, 1, 130, 2500]))
            decision_ms = rng.choice([0, 1000, 200])
            cached = encoder.encode(state, match_id=match_id, seat=seat, number=number,
                                    observation=state.observation(seat), actions=actions, decision_ms=decision_ms,
                                    bank_ms=bank, observations=observations)
            where = f"{game_name} match {match} decision {number} seat {seat}"
            fresh = DecisionEncoder(game.name).encode(
                state, match_id=match_id, seat=seat, number=number, observation=state.observation(seat),
                actions=actions, decision_ms=decision_ms, bank_ms=bank, observations=codec.ObservationEncoder())
            assert cached == fresh, where
            head, observation, entries = _plain_request(game.name, state, match_id=match_id, seat=seat,
                                                        number=number, actions=actions, decision_ms=decision_ms,
                                                        bank_ms=bank)
            assert cached.startswith(head) and cached.endswith(entries), where
            wrapped = cached[len(head):len(cached) - len(entries)]
            request = bot_pb2.DecisionRequest.FromString(wrapped)
            assert request.observation == observation, where
            assert wrapped == length_prefixed(b"\x22", request.observation.SerializeToString(deterministic=True)) \
                or game_name == "union_pacific", where  # only UP's fast encoder has an order of its own
            requests += 1
            state.apply_action(seat, rng.choice(actions))
    assert requests > 100


def test_the_request_head_is_what_protobuf_writes() -> None:
    """The head (match id, seat, number, clocks) written directly, zeros, large and negative values included."""
    encoder = DecisionEncoder("union_pacific")
    rng = random.Random(3)
    for _ in range(3000):
        match_id = rng.choice(["", "m", f"abc-{rng.randrange(5)}", "é" * 200])
        seat = rng.choice([0, 1, 127, 128, 2048, (1 << 31) - 1, -1])
        number = rng.choice([0, 1, 127, 128, 2047, 2048, rng.randrange(1 << 31), -3])
        decision_ms, bank_ms = (rng.choice([0, 5, 2048, rng.randrange(1 << 62), (1 << 63) - 1, -1]) for _ in "ab")
        expected = bot_pb2.DecisionRequest(match_id=match_id, seat=seat, decision_number=number,
                                           decision_time_ms=decision_ms, time_bank_ms=bank_ms).SerializeToString()
        assert encoder.head(match_id, seat, number, decision_ms, bank_ms) == expected
