"""The SDK reads a DecisionRequest's top level at once and the rest when the bot reads it
(:mod:`arena.sdk_request`): the shallow message reads every field as the generated one does,
odd but valid encodings of the observation decode as protobuf decodes them, and a part that
does not parse is INVALID_ARGUMENT when the bot reads it, over a real gRPC server."""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest

from google.protobuf import descriptor_pb2

from arena.games import get_game, registered_games
from arena.host import codec
from arena.host.client import encoder_for
from arena.host.codec import ObservationEncoder
from arena.host.process import free_port
from arena.protocol.lazy import LazyDict
from arena.protocol.wirebytes import length_prefixed, tag
from arena.sdk import Bot, make_server
from arena.sdk_request import ShallowRequest, legal_actions
from arena.sdk_request import observation as read_observation
from arena.sdk_request import observation_and_bytes
from arena.v1 import bot_pb2


def _payloads(game_name: str, players: int, seed: int, limit: int) -> list[bytes]:
    """Request bytes of the first ``limit`` decisions of a random game, as the host encodes them."""
    game = get_game(game_name)
    encoder, observations = encoder_for(game), ObservationEncoder()
    state, rng, out = game.new_state(players, seed), random.Random(seed), []
    while not state.is_terminal() and len(out) < limit:
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        out.append(encoder.encode(state, match_id=f"m{seed}", seat=seat, number=len(out), observation=None,
                                  actions=legal, decision_ms=1000 + len(out), bank_ms=5000 - len(out),
                                  observations=observations))
        state.apply_action(seat, legal[rng.randrange(len(legal))])
    return out


def _fields(descriptor: Any) -> dict[int, descriptor_pb2.FieldDescriptorProto]:
    message = descriptor_pb2.DescriptorProto()
    descriptor.CopyToProto(message)
    return {f.number: f for f in message.field}


def test_the_shallow_request_is_the_generated_one_with_two_fields_as_bytes() -> None:
    real, shallow = _fields(bot_pb2.DecisionRequest.DESCRIPTOR), _fields(ShallowRequest.DESCRIPTOR)
    assert shallow.keys() == real.keys()
    for number, field in shallow.items():
        if field.name in ("observation", "legal_actions"):
            assert field.type == field.TYPE_BYTES and field.label == field.LABEL_REPEATED
            assert real[number].type == field.TYPE_MESSAGE and field.name == real[number].name
        else:
            assert field == real[number]


def _field(number: int, body: bytes) -> bytes:
    """A length-delimited field."""
    return length_prefixed(tag(number, 2), body)


@pytest.mark.parametrize("game_name", [spec.name for spec in registered_games()])
def test_the_shallow_request_reads_what_the_whole_parse_reads(game_name: str) -> None:
    for payload in _payloads(game_name, 4, seed=3, limit=60):
        whole, shallow = bot_pb2.DecisionRequest.FromString(payload), ShallowRequest.FromString(payload)
        for name in ("match_id", "seat", "decision_number", "decision_time_ms", "time_bank_ms"):
            assert getattr(shallow, name) == getattr(whole, name), name
        assert [bot_pb2.Action.FromString(raw) for raw in shallow.legal_actions] == list(whole.legal_actions)
        assert list(legal_actions(payload)) == list(whole.legal_actions)  # all at once, as LegalActions does
        observation = read_observation(shallow.observation)
        assert isinstance(observation, LazyDict) and observation._message is None
        assert observation == codec.observation_from_proto(whole.observation)


def _split(member: Any) -> tuple[Any, Any]:
    """Two messages of ``member``'s type that protobuf merges back into ``member``."""
    fields = member.ListFields()
    assert len(fields) >= 2
    first, second = type(member)(), type(member)()
    first.CopyFrom(member)
    for descriptor, _ in fields[len(fields) // 2:]:
        first.ClearField(descriptor.name)
    second.CopyFrom(member)
    for descriptor, _ in fields[:len(fields) // 2]:
        second.ClearField(descriptor.name)
    return first, second


@pytest.mark.parametrize("game_name", [spec.name for spec in registered_games()])
def test_odd_but_valid_observation_encodings_decode_as_protobuf_decodes_them(game_name: str) -> None:
    payload = _payloads(game_name, 3, seed=8, limit=5)[-1]
    whole = bot_pb2.DecisionRequest.FromString(payload)
    expected = codec.observation_from_proto(whole.observation)
    member_name = whole.observation.WhichOneof("game")
    first, second = _split(getattr(whole.observation, member_name))
    [other] = [f for f in bot_pb2.Observation.DESCRIPTOR.fields if f.name != member_name][:1]
    head = bot_pb2.DecisionRequest()
    head.CopyFrom(whole)
    head.ClearField("observation")
    observations = {
        # the observation field twice (protobuf merges the two)
        "two observation fields": [bot_pb2.Observation(**{member_name: first}).SerializeToString(),
                                   bot_pb2.Observation(**{member_name: second}).SerializeToString()],
        # the member twice inside one observation (merged too)
        "the member twice": [bot_pb2.Observation(**{member_name: first}).SerializeToString()
                             + bot_pb2.Observation(**{member_name: second}).SerializeToString()],
        # a field this version does not know, after the member (skipped)
        "an unknown field": [whole.observation.SerializeToString() + tag(15, 0) + b"\x01"],
        # another game's member first: in a oneof the last one set wins
        "another member before": [_field(other.number, b"") + whole.observation.SerializeToString()],
    }
    for what, parts in observations.items():
        data = head.SerializeToString() + b"".join(_field(4, part) for part in parts)
        assert codec.observation_from_proto(bot_pb2.DecisionRequest.FromString(data).observation) == expected, what
        assert read_observation(ShallowRequest.FromString(data).observation) == expected, what


class _Reader(Bot):
    """Reads what ``self.reads`` says: nothing, an observation key, or a legal action."""

    name = "reader"
    games = tuple(spec.name for spec in registered_games())
    reads = "nothing"

    def decide(self, observation: dict[str, Any], legal_actions: Any) -> int:
        if self.reads == "observation":
            observation["game"]
        elif self.reads == "action":
            legal_actions[0].action
        return 0


def test_a_part_that_does_not_parse_is_invalid_argument_when_read() -> None:
    payload = _payloads("union_pacific", 2, seed=1, limit=1)[0]
    whole = bot_pb2.DecisionRequest.FromString(payload)
    head = bot_pb2.DecisionRequest()
    head.CopyFrom(whole)
    head.ClearField("observation")
    head.ClearField("legal_actions")
    good_observation = _field(4, whole.observation.SerializeToString())
    good_actions = b"".join(_field(5, a.SerializeToString()) for a in whole.legal_actions)
    # the union_pacific member holding bytes that are no message; an action whose text is not UTF-8
    bad_observation = _field(4, _field(1, b"\xff\xff\xff"))
    bad_actions = _field(5, _field(2, b"\xff\xfe")) + good_actions
    bot = _Reader()
    address = f"127.0.0.1:{free_port()}"
    server = make_server(bot, address=address)
    try:
        with grpc.insecure_channel(address) as channel:
            decide = channel.unary_unary("/arena.v1.Bot/Decide")
            # a started match (else the SDK reads the observation itself to start it, see below)
            channel.unary_unary("/arena.v1.Bot/StartMatch",
                                request_serializer=bot_pb2.StartMatchRequest.SerializeToString,
                                response_deserializer=bot_pb2.StartMatchReply.FromString)(
                bot_pb2.StartMatchRequest(match_id=whole.match_id, seat=whole.seat, num_players=2,
                                          variant="standard", game="union_pacific"), timeout=10, wait_for_ready=True)
            for reads, data, what in [("observation", bad_observation + good_actions, "the observation does not parse"),
                                      ("action", good_observation + bad_actions, "the legal actions do not parse")]:
                request = head.SerializeToString() + data
                bot.reads = "nothing"  # a bot that does not read the broken part answers
                assert bot_pb2.DecisionReply.FromString(decide(request, timeout=10, wait_for_ready=True)) == \
                    bot_pb2.DecisionReply(action_index=0)
                bot.reads = reads
                with pytest.raises(grpc.RpcError) as raised:
                    decide(request, timeout=10)
                assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert "does not parse" in raised.value.details() and what in raised.value.details()
            # still serving, reading both
            for reads in ("observation", "action"):
                bot.reads = reads
                assert bot_pb2.DecisionReply.FromString(decide(payload, timeout=10)) == \
                    bot_pb2.DecisionReply(action_index=0)
            bot.reads = "nothing"  # a match not started: the SDK reads the observation to start it
            late = bot_pb2.DecisionRequest(match_id="late", seat=0).SerializeToString() + bad_observation + good_actions
            with pytest.raises(grpc.RpcError) as raised:
                decide(late, timeout=10)
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "the observation does not parse" in raised.value.details()
            empty = head.SerializeToString() + _field(4, b"") + good_actions
            with pytest.raises(grpc.RpcError) as raised:  # no game member: refused at once
                decide(empty, timeout=10)
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "no game member" in raised.value.details()
    finally:
        server.stop(0).wait()


@pytest.mark.parametrize("kept", ["bytes", "reader"])
def test_a_logged_observation_that_does_not_decode_is_refused_at_every_read_never_skipped(kept: str) -> None:
    """A decision whose observation the bot never read still joins the public-events log; if it
    does not decode, every read of the log says so (NotDecodable: INVALID_ARGUMENT), and no
    later read gives a log with that decision's events missing.  The log keeps either the
    observation's bytes (what the server does) or the lazy dict's reader: both give the events
    the host sent."""
    from arena.protocol.lazy import NotDecodable
    from arena.sdk import Match

    requests = [ShallowRequest.FromString(p) for p in _payloads("union_pacific", 3, 1, 12)]
    seat = requests[0].seat
    mine = [r for r in requests if r.seat == seat]
    assert len(mine) >= 3

    def match(corrupt: int | None) -> Match:
        m = Match("m1", seat, 3, "standard", "union_pacific", None, None)
        for i, request in enumerate(mine):
            raw = request.observation[0]
            if i == corrupt:  # the game member's length kept, its body a truncated varint
                raw = raw[:1] + bytes([4]) + b"\x08\xff\xff\xff"
            observation, data = observation_and_bytes([raw])
            assert data == raw
            m._observing(observation, data if kept == "bytes" else None)
            assert isinstance(m._unread[-1], bytes) == (kept == "bytes")
        return m

    whole = match(None).public_events
    sent = [event for r in mine for event in read_observation(r.observation)["public_events"]]
    assert whole == sent
    broken = match(1)
    for _ in range(2):
        with pytest.raises(NotDecodable, match="public_events"):
            broken.public_events
    assert len(whole) > 0
