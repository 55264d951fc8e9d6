"""Union Pacific's public events written from the engine's event records equal the dict path.

The host writes each event's bytes from its record (kit/wire_records.py) and what a seat
knows from the records (record_knowledge.RecordKnowledge), without the event dicts.  Here, over
whole random games of every table size:

- every record's entry, as each seat gets it, is the dict path's bytes of
  ``public_event(state.events[i], seat)``, and the frequent types take the direct writers;
- what a hidden value of a record (a turn's track card, a deck draw's card, an exchange's
  boxed card) changes is only its own seat's entry;
- the window starts and known shares from the records are the dict memo's at every decision;
- the records stay complete after the events are read and in a clone, and a state without
  them (its log assigned) goes back to the dicts.
"""

from __future__ import annotations

import random

import pytest

from arena.games import get_game
from arena.games.union_pacific import events as ev
from arena.games.union_pacific import knowledge
from arena.games.union_pacific.kit import wire_fast as fast
from arena.games.union_pacific.kit import wire_records
from arena.games.union_pacific.kit.wire_state import StateEncoder
from arena.games.union_pacific.record_knowledge import RecordKnowledge
from arena.host import codec
from tests.games.scenario import (act, block_all_builds, set_share_hand, set_track_hand, skipped_draw_game,
                                  stalemate_game, started_game)

GAME = get_game("union_pacific")
_TABLES = range(GAME.min_players, GAME.max_players + 1)
_FREQUENT = (ev.turn, ev.build, ev.invest, ev.pass_, ev.draw_deck, ev.draw_up, ev.draw_display, ev.refill,
             ev.exchange)


def _played(players: int, seed: int):
    state = GAME.new_state(players, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_seats()[0]
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
    return state


def _seen_by(entries, seat: int) -> bytes:
    common, owner, own = entries
    return own if seat == owner else common


@pytest.mark.parametrize("players", _TABLES)
def test_every_record_is_written_as_the_dict_path_writes_its_event(players: int) -> None:
    direct = 0
    for seed in range(3):
        state = _played(players, 40 + seed)
        records = ev.records(state)
        events = state.events
        assert records is not None and len(records) == len(events)
        for i, (rec, event) in enumerate(zip(records, events)):
            entries = wire_records.write_entries(rec, state.table)
            assert wire_records.record_entries(rec, state.table) == entries  # the kept ones too
            for seat in range(players):
                want = fast.events_bytes([knowledge.public_event(event, seat)])
                assert _seen_by(entries, seat) == want, f"{players}p seed {seed} event {i} {event} seat {seat}"
            direct += rec[0] in _FREQUENT
    assert direct > 300


def test_a_records_hidden_value_reaches_its_own_seat_only() -> None:
    table = GAME.new_state(4, 1).table
    for make, hidden in ((lambda h: (ev.turn, 7, 2, h), range(5)),
                         (lambda h: (ev.draw_deck, 2, h), [None, *range(10)]),
                         (lambda h: (ev.exchange, 2, h), range(11))):
        seen = {wire_records.write_entries(make(h), table) for h in hidden}
        assert len({entries[0] for entries in seen}) == 1  # every other seat: one entry whatever it was
        assert {entries[1] for entries in seen} == {2}
        assert len({entries[2] for entries in seen}) == len(seen) > 1  # the own seat sees the value


@pytest.mark.parametrize("bad", [(ev.turn, 3, -1, 0), (ev.turn, 3, True, 0), (ev.build, 0, 1, 2, 3, "4"),
                                 (ev.invest, 0, 10**6, 0), (ev.draw_deck, "1", 2), (ev.dividend_revealed, 1, 2),
                                 (ev.pass_, 0)])
def test_an_unexpected_record_is_left_to_the_dict_path(bad: tuple) -> None:
    with pytest.raises(fast._Unexpected):
        wire_records.write_entries(bad, GAME.new_state(4, 1).table)
    state = GAME.new_state(4, 2)
    ev.records(state).append(bad)
    assert StateEncoder().encode(state, 0) is None  # the host then encodes the observation's dict


@pytest.mark.parametrize("players", _TABLES)
def test_what_the_records_tell_is_what_the_event_dicts_tell(players: int) -> None:
    state = GAME.new_state(players, 60 + players)
    rng = random.Random(players)
    know = RecordKnowledge(ev.records(state), state.history)
    step = 0
    while not state.is_terminal():
        if step % 2 == 0:  # every other decision: several actions at once too
            assert know.update(state) == knowledge.windows_and_known(state), f"{players}p step {step}"
        seat = state.current_seats()[0]
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        step += 1
    assert know.update(state) == knowledge.windows_and_known(state), f"{players}p at the end"
    assert ev.records(state) is know.records


def test_the_records_stay_whole_through_reads_and_clones() -> None:
    state = GAME.new_state(3, 5)
    rng = random.Random(5)
    for _ in range(40):
        seat = state.current_seats()[0]
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        if rng.random() < 0.5:
            assert len(state.events) == len(ev.records(state))
    records = ev.records(state)
    twin = state.clone()
    assert ev.records(twin) == records and ev.records(twin) is not records
    seat = twin.current_seats()[0]
    twin.apply_action(seat, twin.legal_actions(seat)[0])
    assert len(ev.records(twin)) > len(records) == len(state.events)
    assert len(twin.events) == len(ev.records(twin))  # each record's dict once, no more
    assert twin.events[: len(records)] == state.events
    state.events = list(state.events)  # an assigned log: the records before it are gone
    assert ev.records(state) is None
    seat = state.current_seats()[0]
    state.apply_action(seat, state.legal_actions(seat)[0])
    logged = len(state._log)
    assert logged and len(state.events) == len(records) + logged  # the new records read...
    assert state._log == [] and ev.records(state) is None  # ...and not kept (they could never all be given)
    encoder = StateEncoder()
    assert encoder.encode(state, 0) is not None and encoder._know is None  # the dict path


def _pass():
    state = started_game(3, seed=13)
    block_all_builds(state)
    set_share_hand(state, 0, {})
    set_share_hand(state, 1, {"DM": 1})
    set_track_hand(state, 0, {"PLAIN": 2, "WILD": 2})
    return state, "pass discard WILD"


def _stalemate(players: int):
    return lambda: stalemate_game(players)


@pytest.mark.parametrize("make, kind", [(skipped_draw_game, ev.draw_skipped), (_pass, ev.pass_),
                                        *((_stalemate(n), ev.stalemate) for n in (2, 3, 4))],
                         ids=["draw_skipped", "pass", "stalemate-2p", "stalemate-3p", "stalemate-4p"])
def test_rare_records_are_written_as_the_dict_path_writes_their_events(make, kind) -> None:
    """Records random play never makes (a skipped draw, a pass, a stalemate): the host's bytes
    from the records are the observation dict's, and what they tell is the dict memo's."""
    state, text = make()
    encoder = codec.ObservationEncoder()
    know = RecordKnowledge(ev.records(state), state.history)
    for step in ("before", "after"):
        if step == "after":
            act(state, 0, text)
        for seat in range(state.n):
            written = encoder.encode_state("union_pacific", state, seat)
            assert written is not None, f"{step}: the record path fell back to the dicts"
            assert written == codec.ObservationEncoder().encode(state.clone().observation(seat)), (step, seat)
        assert know.update(state) == knowledge.windows_and_known(state.clone()), step
    assert kind in {rec[0] for rec in ev.records(state)}
