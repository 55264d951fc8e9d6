"""The game registry: specs as data, registration, look-up by name."""

from __future__ import annotations

import dataclasses

import pytest

import arena.games as games
from arena.games import registry
from arena.games.base import IMAGINARY
from arena.games.registry import GameSpec, game_kit, game_spec, get_game, register_game, registered_games


@pytest.fixture()
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test vanish after it."""
    registered_games()  # load the shipped games first
    monkeypatch.setattr(registry, "_registry", dict(registry._registry))
    monkeypatch.setattr(registry, "_instances", dict(registry._instances))


def _spec(**changes) -> GameSpec:
    fields = dict(name="toy", title="Toy", min_players=2, max_players=4, variants=("standard",),
                  score_name="score", score_unit="points")
    return GameSpec(**{**fields, **changes})


def test_the_shipped_games_are_registered_with_their_facts() -> None:
    assert [spec.name for spec in registered_games()] == ["ticket_to_ride_pennsylvania", "union_pacific"]
    assert games.GAMES == ("ticket_to_ride_pennsylvania", "union_pacific")
    up, ttr = game_spec("union_pacific"), game_spec("ticket_to_ride_pennsylvania")
    assert (up.title, up.seat_counts, up.variants) == ("Union Pacific", (2, 3, 4, 5, 6), ("standard", "pro"))
    assert (up.score_name, up.score_unit) == ("cash", "dollars")
    assert up.participants(2) == ("0", "1", IMAGINARY) and up.participants(3) == ("0", "1", "2")
    assert (ttr.title, ttr.seat_counts, ttr.variants) == ("Ticket to Ride: Pennsylvania", (2, 3, 4, 5), ("standard",))
    assert (ttr.score_name, ttr.score_unit) == ("score", "points")
    assert ttr.participants(2) == ("0", "1")  # the neutral shareholder is no participant of the result
    for spec in registered_games():
        game = get_game(spec.name)
        assert game.spec is spec and get_game(spec.name) is game  # built once


def test_a_spec_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        game_spec("union_pacific").max_players = 7  # type: ignore[misc]


def test_an_unknown_name_is_refused_naming_the_known_games() -> None:
    for look_up in (get_game, game_spec):
        with pytest.raises(ValueError, match="unknown game 'chess'; Arena knows: ticket_to_ride_pennsylvania, "
                                             "union_pacific"):
            look_up("chess")


def test_participants_outside_the_seat_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="2 to 6 players, not 7"):
        game_spec("union_pacific").participants(7)


def test_a_second_registration_under_a_name_is_refused(scratch_registry: None) -> None:
    register_game(_spec(), lambda: None)
    with pytest.raises(ValueError, match="'toy' is already registered"):
        register_game(_spec(title="Another toy"), lambda: None)
    with pytest.raises(ValueError, match="'union_pacific' is already registered"):
        register_game(_spec(name="union_pacific"), lambda: None)
    assert game_spec("toy").title == "Toy"


def test_a_factory_must_make_a_game_with_the_registered_spec(scratch_registry: None) -> None:
    register_game(_spec(), lambda: get_game("union_pacific"))
    with pytest.raises(TypeError, match="factory of 'toy'"):
        get_game("toy")


def test_registration_wants_a_spec(scratch_registry: None) -> None:
    with pytest.raises(TypeError, match="GameSpec"):
        register_game({"name": "toy"}, lambda: None)  # type: ignore[arg-type]


@pytest.mark.parametrize(("changes", "message"), [
    ({"name": "Toy Game"}, "lower-case"),
    ({"min_players": 0}, "not a range"),
    ({"min_players": 5}, "not a range"),
    ({"variants": ()}, "non-empty and distinct"),
    ({"variants": ("a", "a")}, "non-empty and distinct"),
    ({"reference_participants": ((5, ("bank",)),)}, "seat count the game does not have"),
    ({"reference_participants": ((2, ("1",)),)}, "not seat numbers"),
    ({"reference_participants": ((2, ("bank",)), (2, ("house",)))}, "given twice"),
])
def test_a_bad_spec_is_refused_with_a_reason(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _spec(**changes)


def test_reference_participants_follow_the_seats() -> None:
    spec = _spec(reference_participants=((2, ("bank",)),))
    assert spec.participants(2) == ("0", "1", "bank") and spec.participants(3) == ("0", "1", "2")
    assert spec.default_variant == "standard"


def test_every_shipped_game_has_a_kit_whose_parts_load_lazily() -> None:
    for spec in registered_games():
        kit = game_kit(spec.name)
        assert kit.game == spec.name and kit.package == f"arena.games.{spec.name}.kit"
        with pytest.raises(LookupError, match=f"{spec.name!r} has no 'nothing' in its kit"):
            kit.part("nothing")


def test_a_game_without_a_kit_is_named_in_the_error(scratch_registry: None) -> None:
    register_game(_spec(), lambda: None)
    with pytest.raises(LookupError, match="'toy' registered no kit"):
        game_kit("toy")


def test_reference_participants_have_titles_for_people() -> None:
    assert game_spec("union_pacific").reference_title("imaginary") == "the imaginary shareholder"
    assert _spec().reference_title("neutral") == "neutral"  # no title given: its name
    with pytest.raises(ValueError, match=r"titles given for \['ghost'\]"):
        _spec(reference_titles=(("ghost", "a ghost"),))
