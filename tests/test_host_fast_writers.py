"""The host's hand-written shortcuts give protobuf's bytes, and step aside for anything unexpected.

- Ticket to Ride's ``players`` rows and ``hand`` (kit/wire_fast.py) against the generic codec,
  on every decision of whole games at every table size, and for values the engine never makes;
- Union Pacific's player rows and hands written from the state (kit/wire_state.py) against the
  dict writers of kit/wire_fast.py, including numbers beyond the small-number tables;
- the host reading a reply (client.py): the common replies are read from a table of their
  bytes, and every other reply is parsed and judged as before.
"""

from __future__ import annotations

import random

import pytest

from arena.games import get_game
from arena.games.ticket_to_ride_pennsylvania.kit import wire as ttr_wire
from arena.games.ticket_to_ride_pennsylvania.kit import wire_fast as ttr_fast
from arena.games.ticket_to_ride_pennsylvania.kit import wire_fields as ttr_fields
from arena.games.ticket_to_ride_pennsylvania.state import observation_fields
from arena.games.union_pacific.board import SHARE_CODES
from arena.games.union_pacific.kit import wire_events as up_events
from arena.games.union_pacific.kit import wire_fast as up_fast
from arena.games.union_pacific.kit import wire_state as up_state
from arena.host.client import SeatClient, encoder_for
from arena.host.clock import Clocks
from arena.records import FaultReason
from arena.v1 import bot_pb2

_TTR = ttr_wire._Obs.DESCRIPTOR


def _codec_bytes(name: str, value) -> bytes:
    return ttr_wire._CODEC.field_bytes(_TTR, name, value, "observation")


def test_ticket_to_ride_rows_and_hands_are_the_codecs_bytes() -> None:
    game = get_game("ticket_to_ride_pennsylvania")
    rows = hands = 0
    for players in range(game.min_players, game.max_players + 1):
        state = game.new_state(players, 40 + players)
        rng = random.Random(players)
        while not state.is_terminal():
            seat = state.current_seats()[0]
            fields = observation_fields(state, seat)
            for row in fields["players"]:
                fast = ttr_fast.player_entry(row)
                assert fast is not None, row  # the engine's rows all take the fast path
                assert fast == _codec_bytes("players", [row]), row
                rows += 1
            assert ttr_fast.count_map(ttr_fast.HAND_TAG, fields["hand"]) == _codec_bytes("hand", fields["hand"]), fields["hand"]
            hands += 1
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
    assert rows > 1000 and hands > 300


_ROW = {"seat": 1, "trains": 30, "route_points": 7, "cards": 4, "tickets": 2, "shares": {"PRR": [1, 3]},
        "known_cards": {"blue": 1}}


@pytest.mark.parametrize("change", [
    {"cash": 3},  # an unknown key
    {"trains": -1}, {"trains": 5000}, {"trains": True}, {"route_points": 2.0},
    {"shares": {"PRR": []}}, {"shares": {"PRR": [200]}}, {"shares": {"PRR": [-1]}}, {"shares": {3: [1]}},
    {"shares": []}, {"known_cards": {"blue": 0}}, {"known_cards": {"blue": -2}}, {"known_cards": {1: 1}},
    {"known_cards": {"blue": True}},
])
def test_ticket_to_ride_writers_leave_the_unexpected_to_the_codec(change: dict) -> None:
    row = {**_ROW, **change}
    assert ttr_fast.player_entry(row) is None
    assert ttr_fast.player_entry(_ROW) == _codec_bytes("players", [_ROW])
    if "known_cards" in change:
        assert ttr_fast.count_map(ttr_fast.HAND_TAG, change["known_cards"]) is None
    assert ttr_fast.count_map(ttr_fast.HAND_TAG, [("blue", 1)]) is None
    assert ttr_fast.count_map(ttr_fast.HAND_TAG, {}) == b"" == _codec_bytes("hand", {})


def test_ticket_to_ride_field_writers_are_the_codecs_bytes_or_leave_it_to_the_codec() -> None:
    tags = ttr_fields._TAGS
    for values in ([], ["PRR"], ["PRR", "B&O", "PRR"], ["héllo", ""]):
        for name in ("share_offer", "tickets", "offered_tickets"):
            assert ttr_fast.strings(tags[name], values) == _codec_bytes(name, values)
    row = ["red", None, "locomotive", None, "blue"]
    assert ttr_fast.strings(tags["row"], row, empty_for_none=True) == _codec_bytes("row", row)
    for bad in (["PRR", None], ["PRR", 3], ("PRR",), "PRR", [b"PRR"]):
        assert ttr_fast.strings(tags["tickets"], bad) is None
        try:  # the field's writer then gives what the codec gives: its bytes, or its error
            expected = _codec_bytes("tickets", bad)
        except Exception as exc:  # noqa: BLE001
            with pytest.raises(type(exc)):
                ttr_fields._strings("tickets", bad)
        else:
            assert ttr_fields._strings("tickets", bad) == expected
    owners = (-1, 0, 3, -1, 1, 4)
    assert ttr_fast.packed_owners(tags["routes"], owners) == _codec_bytes(
        "routes", [None if o == -1 else o for o in owners])
    assert ttr_fast.packed_owners(tags["routes"], ()) == b"" == _codec_bytes("routes", [])
    for bad in ((0, -2), (0, 5000), (0, True), (0, 1.0), (0, "1")):
        assert ttr_fast.packed_owners(tags["routes"], bad) is None
    counts = {"red": 0, "blue": 3, "locomotive": 1, "black": 0}
    assert ttr_fast.count_map(tags["discard"], counts, zeros=True) == _codec_bytes("discard", counts)
    for bad in ({"red": -1}, {"red": True}, {"red": 5000}, {3: 1}, [("red", 1)]):
        assert ttr_fast.count_map(tags["discard"], bad, zeros=True) is None


def test_ticket_to_ride_counts_written_from_the_tuple_are_the_maps_bytes() -> None:
    """``count_entries`` (hand, known cards: from the engine's count tuple) equals ``count_map`` of the
    dict the engine's observation has, and is None for what that refuses."""
    names = get_game("ticket_to_ride_pennsylvania").new_state(3, 0).kind_names
    rng = random.Random(3)
    for _ in range(300):
        counts = tuple(rng.choice((0, 0, 1, 2, 7, 2047)) for _ in names)
        as_dict = {names[i]: n for i, n in enumerate(counts) if n}
        expected = ttr_fast.count_map(ttr_fast.HAND_TAG, as_dict)
        assert expected == _codec_bytes("hand", as_dict)
        assert ttr_fast.count_entries(ttr_fast.HAND_TAG, names, counts) == expected
    zeros = (0,) * len(names)
    for bad in ((-1,) + zeros[1:], (True,) + zeros[1:], (2048,) + zeros[1:], zeros[1:]):
        assert ttr_fast.count_entries(ttr_fast.HAND_TAG, names, bad) is None
    assert ttr_fast.count_entries(ttr_fast.HAND_TAG, ("red", "red"), (1, 1)) is None  # not distinct
    assert ttr_fast.count_entries(ttr_fast.HAND_TAG, ("red", 3), (1, 1)) is None


def test_union_pacific_dividends_are_protobufs_bytes() -> None:
    """The dividend writer gives protobuf's deterministic bytes for every dividend of whole games
    (2-6 players, the imaginary shareholder's included), and leaves any other shape to the codec."""
    game = get_game("union_pacific")
    seen = 0
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(3):
            state = game.new_state(players, seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                seat = state.current_seats()[0]
                state.apply_action(seat, rng.choice(state.legal_actions(seat)))
            for event in state.events:
                if event["type"] == "dividend":
                    proto = up_events.event_to_proto(event).SerializeToString(deterministic=True)
                    body = up_fast._write_dividend(event)  # the engine's dividends take the fast path
                    assert proto.endswith(body) and len(body) > 20
                    assert up_fast._event_bytes(event, 0) == up_fast.length_prefixed(up_fast._EVENT_TAG, proto)
                    seen += 1
    assert seen >= 15
    good = {"type": "dividend", "number": 2, "companies": [
        {"company": "EPRG", "value": 0, "holdings": {"0": 1, "imaginary": 2}, "payouts": {"0": 0, "imaginary": 4}}],
        "union_pacific": {"holdings": {}, "payouts": {}}, "cash": {"0": 10, "10": 3, "2": 0}}
    expected = up_events.event_to_proto(good).SerializeToString(deterministic=True)
    assert up_fast._event_bytes(good, 0) == up_fast.length_prefixed(up_fast._EVENT_TAG, expected)
    payout = good["companies"][0]
    for bad in ({**good, "extra": 1}, {k: v for k, v in good.items() if k != "cash"}, {**good, "number": True},
                {**good, "companies": [{**payout, "rule": "x"}]}, {**good, "companies": [{**payout, "value": -1}]},
                {**good, "companies": ({**payout},)}, {**good, "union_pacific": {"holdings": {}}},
                {**good, "cash": {"0": 2.5}}, {**good, "cash": {0: 1}}):
        with pytest.raises(up_fast._Unexpected):
            up_fast._write_dividend(bad)
        try:  # the checked path: the codec's bytes, or its error
            expected = up_fast.length_prefixed(
                up_fast._EVENT_TAG, up_events.event_to_proto(bad).SerializeToString(deterministic=True))
        except Exception as exc:  # noqa: BLE001
            with pytest.raises(type(exc)):
                up_fast._event_bytes(bad, 0)
        else:
            assert up_fast._event_bytes(bad, 0) == expected


def test_union_pacific_rows_and_hands_match_the_dict_writers() -> None:
    rng = random.Random(5)
    kinds = get_game("union_pacific").new_state(3, 0).board.card_kinds
    for _ in range(300):
        invested = tuple(rng.choice((0, 0, 1, 2, 5)) for _ in SHARE_CODES)
        cash = rng.choice((0, 1, 17, 2047, 2048, 90_000))
        key = (rng.randrange(6), cash, invested, rng.randrange(12), rng.randrange(3000))
        up_state._PLAYERS.clear()
        row = {"seat": key[0], "cash": cash, "invested": up_state._counts(invested, SHARE_CODES),
               "hand_shares": key[3], "hand_track": key[4]}
        assert up_state._player(key) == up_fast.length_prefixed(up_state._PLAYER_TAG, up_fast._player(row))
        shares = tuple(rng.choice((0, 0, 1, 3)) for _ in SHARE_CODES)
        track = tuple(rng.choice((0, 1, 4)) for _ in kinds)
        hand = {"shares": up_state._counts(shares, SHARE_CODES), "track": up_state._counts(track, kinds)}
        assert up_state._hand(shares, track, kinds) == up_fast._hand(hand)


def test_union_pacific_rows_refuse_what_the_dict_writer_refuses() -> None:
    up_state._PLAYERS.clear()
    with pytest.raises(up_fast._Unexpected):
        up_state._player((0, -5, (0,) * len(SHARE_CODES), 1, 1))


class _Replies:
    """A connection that answers each Decide with the next of ``replies``."""

    gate = None

    def __init__(self, replies: list[bytes]) -> None:
        self.replies = replies

    def decide(self, payload: bytes, timeout: float) -> bytes:
        return self.replies.pop(0)


def _reply(**fields) -> bytes:
    return bot_pb2.DecisionReply(**fields).SerializeToString()


def test_every_reply_is_read_as_before() -> None:
    replies = [b"", _reply(action_index=2), _reply(action_index=3), _reply(action_index=2, debug="why"),
               _reply(action_index=5000), _reply(action_index=4095), b"\xff\xff", _reply(action_index=-1)]
    client = SeatClient(_Replies(replies), match_id="m", seat=0, clocks=Clocks(), encoder=encoder_for(
        get_game("union_pacific")))
    asked = len(replies)
    got = [client.decide(b"", 3) for _ in range(asked)]
    assert [(d.index, d.debug) for d in got[:2]] == [(0, ""), (2, "")]
    assert got[2].index is None and got[2].fault == (FaultReason.ILLEGAL_ACTION,
                                                      "action_index 3 is out of range [0, 3)")
    assert (got[3].index, got[3].fault, got[3].debug) == (2, None, "why")
    assert got[4].fault == (FaultReason.ILLEGAL_ACTION, "action_index 5000 is out of range [0, 3)")
    assert got[5].fault == (FaultReason.ILLEGAL_ACTION, "action_index 4095 is out of range [0, 3)")
    assert got[6].index is None and got[6].fault[0] is FaultReason.MALFORMED_REPLY
    assert got[7].fault == (FaultReason.ILLEGAL_ACTION, "action_index -1 is out of range [0, 3)")
    assert client.clock.decisions == asked and not replies


def test_ticket_to_ride_flat_events_are_protobufs_bytes_or_left_to_the_codec() -> None:
    """Every event of whole games, as each seat sees it: the flat writer's bytes are protobuf's
    (through the codec), or it says None and the codec writes it."""
    from arena.games.ticket_to_ride_pennsylvania import knowledge as ttr_knowledge

    game = get_game("ticket_to_ride_pennsylvania")
    written: dict[str, int] = {}
    for players in range(game.min_players, game.max_players + 1):
        state = game.new_state(players, 70 + players)
        rng = random.Random(players)
        while not state.is_terminal():
            seat = state.current_seats()[0]
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        for event in state.events:
            for seat in range(players):
                view = ttr_knowledge.public_event(event, seat)
                want = ttr_wire.event_to_proto(view).SerializeToString(deterministic=True)
                got = ttr_wire._FLAT_EVENT(view)
                if got is not None:
                    assert got == want, view
                    written[view["type"]] = written.get(view["type"], 0) + 1
    assert {"claim", "draw_tickets", "keep_tickets", "deal", "turn", "take"} <= written.keys()
    assert "row" not in written and "refresh" not in written  # their row goes through the codec's conversion
    flat_event = ttr_fast.FlatEvents(ttr_wire._CODEC.absent, ttr_wire._CODEC.fields)
    claim = {"type": "claim", "seat": 1, "route": "r", "colour": None, "locomotives": 0, "cards": ["red"],
             "points": 2, "trains_left": 5}
    assert flat_event(claim) == ttr_wire.event_to_proto(claim).SerializeToString(
        deterministic=True)
    for wrong in ({"seat": -1}, {"seat": True}, {"points": 1 << 40}, {"route": None}, {"cards": ["x", None]},
                  {"cards": ("x",)}, {"route": "\udc80"}, {"extra": 1}, {"type": "nothing"}, {"type": 3}):
        assert flat_event({**claim, **wrong}) is None, wrong
    del claim["points"]
    assert flat_event(claim) is None
