"""The SDK's lazily decoded observation equals the eager one, key by key and as a whole.

Real games of both games at every seat count, each decision's request encoded as the host
encodes it (the cached path of the match runner), parsed as the SDK parses it (its top level
only, :mod:`arena.sdk_request`; sometimes whole, :func:`codec.lazy_observation_from_proto`); then
the lazy observation is compared with the eager
:func:`codec.observation_from_proto` and with the engine's own dict, read in every way a
bot reads a dict.  Plus the lazy dict's own rules (mutation, threads, copies), and
``Match.public_events`` through a real gRPC server.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
import threading
from typing import Any

import grpc
import pytest

from arena.games import get_game, registered_games
from arena.host import codec
from arena.host.client import encoder_for
from arena.host.codec import ObservationEncoder
from arena.host.process import free_port
from arena.protocol.lazy import NOT_DECODED, LazyDict
from arena.sdk import Bot, make_server
from arena.sdk_request import ShallowRequest
from arena.sdk_request import observation as read_observation
from arena.v1 import bot_pb2

GAMES = [(spec.name, n) for spec in registered_games() for n in range(spec.min_players, spec.max_players + 1)]


def _requests(game_name: str, players: int, seed: int) -> Any:
    """(request bytes, the engine's observation) for every decision of one random game."""
    game = get_game(game_name)
    encoder = encoder_for(game)
    observations = ObservationEncoder()
    state = game.new_state(players, seed)
    rng = random.Random(seed)
    number = 0
    while not state.is_terminal():
        for seat in state.current_seats():
            legal = state.legal_actions(seat)
            observation = state.observation(seat)
            yield encoder.encode(state, match_id="m", seat=seat, number=number, observation=observation,
                                 actions=legal, decision_ms=1000, bank_ms=0, observations=observations), observation
            number += 1
        for seat in state.current_seats():  # simultaneous first investment: every seat acts
            legal = state.legal_actions(seat)
            state.apply_action(seat, legal[rng.randrange(len(legal))])


def _lazy(payload: bytes, *, shallow: bool = True) -> LazyDict:
    """The observation as the SDK's server makes it (the request's top level parsed, the
    observation's bytes kept, parsed when a key is first read), or from the parsed message."""
    if shallow:
        lazy = read_observation(ShallowRequest.FromString(payload).observation)
        assert lazy._message is None  # not even parsed before a key is read
    else:
        lazy = codec.lazy_observation_from_proto(bot_pb2.DecisionRequest.FromString(payload).observation)
    assert isinstance(lazy, LazyDict) and isinstance(lazy, dict)
    assert all(v is NOT_DECODED for v in dict.values(lazy))  # nothing decoded before it is read
    return lazy


@pytest.mark.parametrize("game_name, players", GAMES)
def test_the_lazy_observation_equals_the_eager_one_over_whole_games(game_name: str, players: int) -> None:
    decisions = 0
    for number, (payload, engine) in enumerate(_requests(game_name, players, seed=11 + players)):
        eager = codec.observation_from_proto(bot_pb2.DecisionRequest.FromString(payload).observation)
        assert eager == engine
        keys = list(eager)
        # one key at a time, in a random order, on a fresh lazy dict each way of reading
        lazy = _lazy(payload, shallow=number % 5 != 3)
        assert len(lazy) == len(eager) and list(lazy) == keys and list(lazy.keys()) == keys
        order = keys[:]
        random.Random(number).shuffle(order)
        for i, key in enumerate(order):
            assert key in lazy
            value = lazy[key] if i % 2 else lazy.get(key)
            assert value == eager[key] and type(value) is type(eager[key]), key
            assert lazy[key] is value  # decoded once
        assert dict.__eq__(lazy, eager)  # the storage is now the eager dict
        assert list(dict.keys(lazy)) == keys  # in the same order whatever the reading order
        decisions += 1
        if number % 4:
            continue
        # whole-dict readings on fresh lazy dicts, none read before (every 4th decision)
        assert _lazy(payload) == eager and eager == _lazy(payload) and not (_lazy(payload) != eager)
        assert list(_lazy(payload).items()) == list(eager.items())
        assert list(_lazy(payload).values()) == list(eager.values())
        assert repr(_lazy(payload)) == repr(eager)
        assert json.dumps(_lazy(payload)) == json.dumps(eager)
        assert json.dumps(_lazy(payload), indent=1, sort_keys=True) == json.dumps(eager, indent=1, sort_keys=True)
        for plain in (dict(_lazy(payload)), {**_lazy(payload)}, {} | _lazy(payload), _lazy(payload) | {},
                      _lazy(payload).copy(), copy.copy(_lazy(payload)), copy.deepcopy(_lazy(payload)),
                      pickle.loads(pickle.dumps(_lazy(payload)))):
            assert type(plain) is dict and plain == eager and list(plain) == keys
            assert NOT_DECODED not in plain.values()
        assert (lambda **kw: kw)(**_lazy(payload)) == eager
    assert decisions > 20


def test_changing_a_lazy_observation_is_changing_a_dict() -> None:
    payload, engine = next(iter(_requests("union_pacific", 3, seed=5)))
    lazy = _lazy(payload)
    eager = dict(engine)
    for d in (lazy, eager):
        d["seat"] = 99  # set before it is read
        d["mine"] = [1]  # a new key goes last
        del d["turn"]
        assert d.pop("display") == engine["display"]
        assert d.pop("nothing", "default") == "default"
        assert d.setdefault("variant", "x") == engine["variant"]
        assert d.setdefault("other", 7) == 7
        d.update(decision="changed")
    assert lazy == eager and list(lazy) == list(eager)
    assert lazy.popitem() == eager.popitem()
    lazy.clear()
    assert lazy == {} and len(lazy) == 0
    with pytest.raises(KeyError):
        _lazy(payload)["no such key"]
    with pytest.raises(TypeError):
        hash(_lazy(payload))


def test_threads_reading_one_key_get_the_same_object() -> None:
    payload, _ = next(iter(_requests("ticket_to_ride_pennsylvania", 4, seed=2)))
    for _ in range(20):
        lazy = _lazy(payload)
        seen: list[Any] = []
        start = threading.Barrier(4)

        def read() -> None:
            start.wait()
            seen.append(lazy["routes"])

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(seen) == 4 and all(v is seen[0] for v in seen)


class _EventReader(Bot):
    """Reads ``Match.public_events`` every ``every``-th decision (and keeps or drops observations)."""

    name = "event-reader"
    games = tuple(spec.name for spec in registered_games())

    def __init__(self, every: int, keep: bool) -> None:
        self.every, self.keep = every, keep
        self.seen: dict[int, list[tuple[int, list[Any]]]] = {}  # seat -> (decisions so far, log read then)
        self.kept: list[Any] = []
        self.final: dict[int, list[Any]] = {}

    def decide(self, observation: dict[str, Any], legal_actions: Any) -> int:
        seen = self.seen.setdefault(self.match.seat, [])
        n = len(seen) + 1
        if self.keep:  # a bot that changes its observation changes its copy, not the SDK's log
            self.kept.append(observation)
            if n % 3 == 0:
                observation["public_events"].clear()
            elif n % 3 == 1:
                observation["public_events"] = [{"type": "made up"}]
        seen.append((n, list(self.match.public_events) if n % self.every == 0 else []))
        return 0

    def end_match(self, result: Any) -> None:
        self.final[self.match.seat] = list(self.match.public_events)


@pytest.mark.parametrize("game_name, players, every, keep", [
    ("union_pacific", 3, 5, False), ("union_pacific", 4, 1, True),
    ("ticket_to_ride_pennsylvania", 2, 7, True), ("ticket_to_ride_pennsylvania", 5, 1000, False),
])
def test_match_public_events_over_grpc_are_every_decisions_events(game_name: str, players: int, every: int,
                                                                   keep: bool) -> None:
    bot = _EventReader(every, keep)
    expected: dict[int, list[list[Any]]] = {}  # seat -> each decision's events, from the engine
    address = f"127.0.0.1:{free_port()}"
    server = make_server(bot, address=address)
    try:
        with grpc.insecure_channel(address) as channel:
            decide = channel.unary_unary("/arena.v1.Bot/Decide")  # raw bytes, as the host sends
            end = channel.unary_unary("/arena.v1.Bot/EndMatch", request_serializer=bot_pb2.EndMatchRequest.SerializeToString,
                                      response_deserializer=bot_pb2.EndMatchReply.FromString)
            for payload, engine in _requests(game_name, players, seed=players):
                seat = engine["seat"]
                expected.setdefault(seat, []).append(engine["public_events"])
                decide(payload, timeout=10, wait_for_ready=True)
            for seat in expected:
                end(bot_pb2.EndMatchRequest(match_id="m", seat=seat), timeout=10)
    finally:
        server.stop(0).wait()
    assert sorted(bot.final) == sorted(expected) == list(range(players))
    for seat, per_decision in expected.items():
        whole = [e for events in per_decision for e in events]
        assert bot.final[seat] == whole and len(whole) > 0
        for n, log in bot.seen[seat]:
            if n % every == 0:
                assert log == [e for events in per_decision[:n] for e in events]
    if keep:  # the bot's own changes stayed in its observations
        assert any(observation["public_events"] == [{"type": "made up"}] for observation in bot.kept)


def test_a_request_that_does_not_parse_is_invalid_argument_and_the_server_keeps_serving() -> None:
    class Zero(Bot):
        name = "zero"
        games = tuple(spec.name for spec in registered_games())

        def decide(self, observation: dict[str, Any], legal_actions: Any) -> int:
            return 0

    payload, _ = next(iter(_requests("union_pacific", 2, seed=1)))
    address = f"127.0.0.1:{free_port()}"
    server = make_server(Zero(), address=address)
    try:
        with grpc.insecure_channel(address) as channel:
            decide = channel.unary_unary("/arena.v1.Bot/Decide")
            with pytest.raises(grpc.RpcError) as raised:
                decide(b"\xff\xff\xff", timeout=10, wait_for_ready=True)
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "does not parse" in raised.value.details()
            assert bot_pb2.DecisionReply.FromString(decide(payload, timeout=10)) == bot_pb2.DecisionReply(action_index=0)
    finally:
        server.stop(0).wait()


def test_a_match_copies_pickles_and_sets_its_public_events() -> None:
    import copy
    import pickle
    import random

    from arena.sdk import Match

    events = [{"type": "setup", "seat": None}, {"type": "build", "seat": 1}]
    match = Match("m", 0, 3, "standard", "union_pacific", None, random.Random(1), public_events=events)
    assert match.public_events == events and match.history_complete
    for twin in (copy.deepcopy(match), pickle.loads(pickle.dumps(match))):
        assert twin.public_events == events and twin.public_events is not match.public_events
        twin.public_events.append({"type": "pass"})
        assert len(match.public_events) == 2
    match.public_events = events[1:]
    assert match.public_events == events[1:] and not match.history_complete


def test_a_value_that_does_not_decode_is_a_value_error_naming_its_key() -> None:
    from arena.protocol.lazy import LazyDict, placeholders

    def broken(message: Any) -> Any:
        return {}["no such company"]  # a decoder's own KeyError must not read as a missing key

    observation = LazyDict(object(), {"companies": broken}, placeholders(["companies"]))
    assert "companies" in observation
    with pytest.raises(ValueError, match="'companies' does not decode: 'no such company'"):
        observation["companies"]
