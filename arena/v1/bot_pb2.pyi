from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProtocolVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROTOCOL_VERSION_UNSPECIFIED: _ClassVar[ProtocolVersion]
    PROTOCOL_VERSION_1: _ClassVar[ProtocolVersion]

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_NORMAL: _ClassVar[Termination]
    TERMINATION_STALEMATE: _ClassVar[Termination]
    TERMINATION_FORFEIT: _ClassVar[Termination]
    TERMINATION_ERROR: _ClassVar[Termination]
PROTOCOL_VERSION_UNSPECIFIED: ProtocolVersion
PROTOCOL_VERSION_1: ProtocolVersion
TERMINATION_UNSPECIFIED: Termination
TERMINATION_NORMAL: Termination
TERMINATION_STALEMATE: Termination
TERMINATION_FORFEIT: Termination
TERMINATION_ERROR: Termination

class DescribeRequest(_message.Message):
    __slots__ = ("protocol_version",)
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    def __init__(self, protocol_version: _Optional[int] = ...) -> None: ...

class DescribeReply(_message.Message):
    __slots__ = ("name", "version", "author", "language", "games", "protocol_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    author: str
    language: str
    games: _containers.RepeatedScalarFieldContainer[str]
    protocol_version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., language: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class StartMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat", "num_players", "variant", "game", "board")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    num_players: int
    variant: str
    game: str
    board: Board
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., num_players: _Optional[int] = ..., variant: _Optional[str] = ..., game: _Optional[str] = ..., board: _Optional[_Union[Board, _Mapping]] = ...) -> None: ...

class StartMatchReply(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "seat", "decision_number", "observation", "legal_actions", "decision_time_ms", "time_bank_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECISION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DECISION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    decision_number: int
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    decision_time_ms: int
    time_bank_ms: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., decision_number: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., decision_time_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class DecisionReply(_message.Message):
    __slots__ = ("action_index", "debug")
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    DEBUG_FIELD_NUMBER: _ClassVar[int]
    action_index: int
    debug: str
    def __init__(self, action_index: _Optional[int] = ..., debug: _Optional[str] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("cash", "places", "termination", "forfeited_seats", "scores")
    class CashEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class PlacesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ScoresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    CASH_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    cash: _containers.ScalarMap[str, int]
    places: _containers.ScalarMap[str, int]
    termination: Termination
    forfeited_seats: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.ScalarMap[str, int]
    def __init__(self, cash: _Optional[_Mapping[str, int]] = ..., places: _Optional[_Mapping[str, int]] = ..., termination: _Optional[_Union[Termination, str]] = ..., forfeited_seats: _Optional[_Iterable[int]] = ..., scores: _Optional[_Mapping[str, int]] = ...) -> None: ...

class EndMatchRequest(_message.Message):
    __slots__ = ("match_id", "seat", "result", "forfeited")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    result: MatchResult
    forfeited: bool
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ..., forfeited: _Optional[bool] = ...) -> None: ...

class EndMatchReply(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Observation(_message.Message):
    __slots__ = ("union_pacific", "ticket_to_ride_pennsylvania")
    UNION_PACIFIC_FIELD_NUMBER: _ClassVar[int]
    TICKET_TO_RIDE_PENNSYLVANIA_FIELD_NUMBER: _ClassVar[int]
    union_pacific: UnionPacificObservation
    ticket_to_ride_pennsylvania: TicketToRidePennsylvaniaObservation
    def __init__(self, union_pacific: _Optional[_Union[UnionPacificObservation, _Mapping]] = ..., ticket_to_ride_pennsylvania: _Optional[_Union[TicketToRidePennsylvaniaObservation, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("index", "text", "union_pacific", "ticket_to_ride_pennsylvania")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    UNION_PACIFIC_FIELD_NUMBER: _ClassVar[int]
    TICKET_TO_RIDE_PENNSYLVANIA_FIELD_NUMBER: _ClassVar[int]
    index: int
    text: str
    union_pacific: UnionPacificAction
    ticket_to_ride_pennsylvania: TicketToRidePennsylvaniaAction
    def __init__(self, index: _Optional[int] = ..., text: _Optional[str] = ..., union_pacific: _Optional[_Union[UnionPacificAction, _Mapping]] = ..., ticket_to_ride_pennsylvania: _Optional[_Union[TicketToRidePennsylvaniaAction, _Mapping]] = ...) -> None: ...

class Board(_message.Message):
    __slots__ = ("union_pacific", "ticket_to_ride_pennsylvania")
    UNION_PACIFIC_FIELD_NUMBER: _ClassVar[int]
    TICKET_TO_RIDE_PENNSYLVANIA_FIELD_NUMBER: _ClassVar[int]
    union_pacific: UnionPacificBoard
    ticket_to_ride_pennsylvania: TicketToRidePennsylvaniaBoard
    def __init__(self, union_pacific: _Optional[_Union[UnionPacificBoard, _Mapping]] = ..., ticket_to_ride_pennsylvania: _Optional[_Union[TicketToRidePennsylvaniaBoard, _Mapping]] = ...) -> None: ...

class UnionPacificObservation(_message.Message):
    __slots__ = ("seat", "num_players", "variant", "decision", "current_seat", "turn", "dividends_paid", "dividends_to_end", "share_deck", "track_deck", "up_stack", "display", "track_discards", "boxed_four_of_a_kind", "free_spaces", "companies", "players", "hand", "pending_first_investment", "imaginary", "public_events", "known_shares")
    class Company(_message.Message):
        __slots__ = ("code", "trains_on_board", "supply", "value", "sections")
        CODE_FIELD_NUMBER: _ClassVar[int]
        TRAINS_ON_BOARD_FIELD_NUMBER: _ClassVar[int]
        SUPPLY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        SECTIONS_FIELD_NUMBER: _ClassVar[int]
        code: str
        trains_on_board: int
        supply: int
        value: int
        sections: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, code: _Optional[str] = ..., trains_on_board: _Optional[int] = ..., supply: _Optional[int] = ..., value: _Optional[int] = ..., sections: _Optional[_Iterable[int]] = ...) -> None: ...
    class Player(_message.Message):
        __slots__ = ("seat", "cash", "invested", "hand_shares", "hand_track")
        class InvestedEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CASH_FIELD_NUMBER: _ClassVar[int]
        INVESTED_FIELD_NUMBER: _ClassVar[int]
        HAND_SHARES_FIELD_NUMBER: _ClassVar[int]
        HAND_TRACK_FIELD_NUMBER: _ClassVar[int]
        seat: int
        cash: int
        invested: _containers.ScalarMap[str, int]
        hand_shares: int
        hand_track: int
        def __init__(self, seat: _Optional[int] = ..., cash: _Optional[int] = ..., invested: _Optional[_Mapping[str, int]] = ..., hand_shares: _Optional[int] = ..., hand_track: _Optional[int] = ...) -> None: ...
    class Hand(_message.Message):
        __slots__ = ("shares", "track")
        class SharesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        class TrackEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        SHARES_FIELD_NUMBER: _ClassVar[int]
        TRACK_FIELD_NUMBER: _ClassVar[int]
        shares: _containers.ScalarMap[str, int]
        track: _containers.ScalarMap[str, int]
        def __init__(self, shares: _Optional[_Mapping[str, int]] = ..., track: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class Imaginary(_message.Message):
        __slots__ = ("invested", "cash")
        class InvestedEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        INVESTED_FIELD_NUMBER: _ClassVar[int]
        CASH_FIELD_NUMBER: _ClassVar[int]
        invested: _containers.ScalarMap[str, int]
        cash: int
        def __init__(self, invested: _Optional[_Mapping[str, int]] = ..., cash: _Optional[int] = ...) -> None: ...
    class KnownShares(_message.Message):
        __slots__ = ("shares",)
        class SharesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        SHARES_FIELD_NUMBER: _ClassVar[int]
        shares: _containers.ScalarMap[str, int]
        def __init__(self, shares: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class TrackDiscardsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class BoxedFourOfAKindEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class KnownSharesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: UnionPacificObservation.KnownShares
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[UnionPacificObservation.KnownShares, _Mapping]] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    CURRENT_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    DIVIDENDS_PAID_FIELD_NUMBER: _ClassVar[int]
    DIVIDENDS_TO_END_FIELD_NUMBER: _ClassVar[int]
    SHARE_DECK_FIELD_NUMBER: _ClassVar[int]
    TRACK_DECK_FIELD_NUMBER: _ClassVar[int]
    UP_STACK_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    TRACK_DISCARDS_FIELD_NUMBER: _ClassVar[int]
    BOXED_FOUR_OF_A_KIND_FIELD_NUMBER: _ClassVar[int]
    FREE_SPACES_FIELD_NUMBER: _ClassVar[int]
    COMPANIES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIRST_INVESTMENT_FIELD_NUMBER: _ClassVar[int]
    IMAGINARY_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_EVENTS_FIELD_NUMBER: _ClassVar[int]
    KNOWN_SHARES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    num_players: int
    variant: str
    decision: str
    current_seat: int
    turn: int
    dividends_paid: int
    dividends_to_end: int
    share_deck: int
    track_deck: int
    up_stack: int
    display: _containers.RepeatedScalarFieldContainer[str]
    track_discards: _containers.ScalarMap[str, int]
    boxed_four_of_a_kind: _containers.ScalarMap[str, int]
    free_spaces: _containers.RepeatedScalarFieldContainer[int]
    companies: _containers.RepeatedCompositeFieldContainer[UnionPacificObservation.Company]
    players: _containers.RepeatedCompositeFieldContainer[UnionPacificObservation.Player]
    hand: UnionPacificObservation.Hand
    pending_first_investment: str
    imaginary: UnionPacificObservation.Imaginary
    public_events: _containers.RepeatedCompositeFieldContainer[UnionPacificEvent]
    known_shares: _containers.MessageMap[str, UnionPacificObservation.KnownShares]
    def __init__(self, seat: _Optional[int] = ..., num_players: _Optional[int] = ..., variant: _Optional[str] = ..., decision: _Optional[str] = ..., current_seat: _Optional[int] = ..., turn: _Optional[int] = ..., dividends_paid: _Optional[int] = ..., dividends_to_end: _Optional[int] = ..., share_deck: _Optional[int] = ..., track_deck: _Optional[int] = ..., up_stack: _Optional[int] = ..., display: _Optional[_Iterable[str]] = ..., track_discards: _Optional[_Mapping[str, int]] = ..., boxed_four_of_a_kind: _Optional[_Mapping[str, int]] = ..., free_spaces: _Optional[_Iterable[int]] = ..., companies: _Optional[_Iterable[_Union[UnionPacificObservation.Company, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[UnionPacificObservation.Player, _Mapping]]] = ..., hand: _Optional[_Union[UnionPacificObservation.Hand, _Mapping]] = ..., pending_first_investment: _Optional[str] = ..., imaginary: _Optional[_Union[UnionPacificObservation.Imaginary, _Mapping]] = ..., public_events: _Optional[_Iterable[_Union[UnionPacificEvent, _Mapping]]] = ..., known_shares: _Optional[_Mapping[str, UnionPacificObservation.KnownShares]] = ...) -> None: ...

class UnionPacificEvent(_message.Message):
    __slots__ = ("setup", "first_investment", "display", "share_deck", "turn", "reshuffle", "build", "draw", "refill", "four_of_a_kind", "draw_skipped", "exchange", "invest", "dividend_revealed", "imaginary_shareholder", "dividend", "stalemate", "game_end")
    class Setup(_message.Message):
        __slots__ = ("players", "variant", "up_stack")
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        VARIANT_FIELD_NUMBER: _ClassVar[int]
        UP_STACK_FIELD_NUMBER: _ClassVar[int]
        players: int
        variant: str
        up_stack: int
        def __init__(self, players: _Optional[int] = ..., variant: _Optional[str] = ..., up_stack: _Optional[int] = ...) -> None: ...
    class FirstInvestment(_message.Message):
        __slots__ = ("picks",)
        class PicksEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        PICKS_FIELD_NUMBER: _ClassVar[int]
        picks: _containers.ScalarMap[str, str]
        def __init__(self, picks: _Optional[_Mapping[str, str]] = ...) -> None: ...
    class Display(_message.Message):
        __slots__ = ("display",)
        DISPLAY_FIELD_NUMBER: _ClassVar[int]
        display: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, display: _Optional[_Iterable[str]] = ...) -> None: ...
    class ShareDeck(_message.Message):
        __slots__ = ("cards",)
        CARDS_FIELD_NUMBER: _ClassVar[int]
        cards: int
        def __init__(self, cards: _Optional[int] = ...) -> None: ...
    class Turn(_message.Message):
        __slots__ = ("turn", "seat", "track_card")
        TURN_FIELD_NUMBER: _ClassVar[int]
        SEAT_FIELD_NUMBER: _ClassVar[int]
        TRACK_CARD_FIELD_NUMBER: _ClassVar[int]
        turn: int
        seat: int
        track_card: str
        def __init__(self, turn: _Optional[int] = ..., seat: _Optional[int] = ..., track_card: _Optional[str] = ...) -> None: ...
    class Reshuffle(_message.Message):
        __slots__ = ("cards",)
        CARDS_FIELD_NUMBER: _ClassVar[int]
        cards: int
        def __init__(self, cards: _Optional[int] = ...) -> None: ...
    class Build(_message.Message):
        __slots__ = ("seat", "card", "company", "section", "value")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        SECTION_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        company: str
        section: int
        value: int
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., company: _Optional[str] = ..., section: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...
    class Draw(_message.Message):
        __slots__ = ("seat", "source", "company")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        SOURCE_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        seat: int
        source: str
        company: str
        def __init__(self, seat: _Optional[int] = ..., source: _Optional[str] = ..., company: _Optional[str] = ...) -> None: ...
    class Refill(_message.Message):
        __slots__ = ("company",)
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        company: str
        def __init__(self, company: _Optional[str] = ...) -> None: ...
    class FourOfAKind(_message.Message):
        __slots__ = ("company",)
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        company: str
        def __init__(self, company: _Optional[str] = ...) -> None: ...
    class DrawSkipped(_message.Message):
        __slots__ = ("seat",)
        SEAT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        def __init__(self, seat: _Optional[int] = ...) -> None: ...
    class Exchange(_message.Message):
        __slots__ = ("seat", "company")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        seat: int
        company: str
        def __init__(self, seat: _Optional[int] = ..., company: _Optional[str] = ...) -> None: ...
    class Invest(_message.Message):
        __slots__ = ("seat", "shares", "discard")
        class SharesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        SEAT_FIELD_NUMBER: _ClassVar[int]
        SHARES_FIELD_NUMBER: _ClassVar[int]
        DISCARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        shares: _containers.ScalarMap[str, int]
        discard: str
        def __init__(self, seat: _Optional[int] = ..., shares: _Optional[_Mapping[str, int]] = ..., discard: _Optional[str] = ...) -> None: ...
    class Pass(_message.Message):
        __slots__ = ("seat", "discard")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        DISCARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        discard: str
        def __init__(self, seat: _Optional[int] = ..., discard: _Optional[str] = ...) -> None: ...
    class DividendRevealed(_message.Message):
        __slots__ = ("number",)
        NUMBER_FIELD_NUMBER: _ClassVar[int]
        number: int
        def __init__(self, number: _Optional[int] = ...) -> None: ...
    class ImaginaryShareholder(_message.Message):
        __slots__ = ("invested",)
        class InvestedEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        INVESTED_FIELD_NUMBER: _ClassVar[int]
        invested: _containers.ScalarMap[str, int]
        def __init__(self, invested: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class CompanyPayout(_message.Message):
        __slots__ = ("company", "value", "holdings", "payouts")
        class HoldingsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        class PayoutsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        HOLDINGS_FIELD_NUMBER: _ClassVar[int]
        PAYOUTS_FIELD_NUMBER: _ClassVar[int]
        company: str
        value: int
        holdings: _containers.ScalarMap[str, int]
        payouts: _containers.ScalarMap[str, int]
        def __init__(self, company: _Optional[str] = ..., value: _Optional[int] = ..., holdings: _Optional[_Mapping[str, int]] = ..., payouts: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class UnionPacificPayout(_message.Message):
        __slots__ = ("holdings", "payouts")
        class HoldingsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        class PayoutsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        HOLDINGS_FIELD_NUMBER: _ClassVar[int]
        PAYOUTS_FIELD_NUMBER: _ClassVar[int]
        holdings: _containers.ScalarMap[str, int]
        payouts: _containers.ScalarMap[str, int]
        def __init__(self, holdings: _Optional[_Mapping[str, int]] = ..., payouts: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class Dividend(_message.Message):
        __slots__ = ("number", "companies", "union_pacific", "cash")
        class CashEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        NUMBER_FIELD_NUMBER: _ClassVar[int]
        COMPANIES_FIELD_NUMBER: _ClassVar[int]
        UNION_PACIFIC_FIELD_NUMBER: _ClassVar[int]
        CASH_FIELD_NUMBER: _ClassVar[int]
        number: int
        companies: _containers.RepeatedCompositeFieldContainer[UnionPacificEvent.CompanyPayout]
        union_pacific: UnionPacificEvent.UnionPacificPayout
        cash: _containers.ScalarMap[str, int]
        def __init__(self, number: _Optional[int] = ..., companies: _Optional[_Iterable[_Union[UnionPacificEvent.CompanyPayout, _Mapping]]] = ..., union_pacific: _Optional[_Union[UnionPacificEvent.UnionPacificPayout, _Mapping]] = ..., cash: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class Stalemate(_message.Message):
        __slots__ = ("dividends_paid",)
        DIVIDENDS_PAID_FIELD_NUMBER: _ClassVar[int]
        dividends_paid: int
        def __init__(self, dividends_paid: _Optional[int] = ...) -> None: ...
    class GameEnd(_message.Message):
        __slots__ = ("cash", "places", "termination")
        class CashEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        class PlacesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        CASH_FIELD_NUMBER: _ClassVar[int]
        PLACES_FIELD_NUMBER: _ClassVar[int]
        TERMINATION_FIELD_NUMBER: _ClassVar[int]
        cash: _containers.ScalarMap[str, int]
        places: _containers.ScalarMap[str, int]
        termination: str
        def __init__(self, cash: _Optional[_Mapping[str, int]] = ..., places: _Optional[_Mapping[str, int]] = ..., termination: _Optional[str] = ...) -> None: ...
    SETUP_FIELD_NUMBER: _ClassVar[int]
    FIRST_INVESTMENT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_FIELD_NUMBER: _ClassVar[int]
    SHARE_DECK_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLE_FIELD_NUMBER: _ClassVar[int]
    BUILD_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    REFILL_FIELD_NUMBER: _ClassVar[int]
    FOUR_OF_A_KIND_FIELD_NUMBER: _ClassVar[int]
    DRAW_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    INVEST_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    DIVIDEND_REVEALED_FIELD_NUMBER: _ClassVar[int]
    IMAGINARY_SHAREHOLDER_FIELD_NUMBER: _ClassVar[int]
    DIVIDEND_FIELD_NUMBER: _ClassVar[int]
    STALEMATE_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    setup: UnionPacificEvent.Setup
    first_investment: UnionPacificEvent.FirstInvestment
    display: UnionPacificEvent.Display
    share_deck: UnionPacificEvent.ShareDeck
    turn: UnionPacificEvent.Turn
    reshuffle: UnionPacificEvent.Reshuffle
    build: UnionPacificEvent.Build
    draw: UnionPacificEvent.Draw
    refill: UnionPacificEvent.Refill
    four_of_a_kind: UnionPacificEvent.FourOfAKind
    draw_skipped: UnionPacificEvent.DrawSkipped
    exchange: UnionPacificEvent.Exchange
    invest: UnionPacificEvent.Invest
    dividend_revealed: UnionPacificEvent.DividendRevealed
    imaginary_shareholder: UnionPacificEvent.ImaginaryShareholder
    dividend: UnionPacificEvent.Dividend
    stalemate: UnionPacificEvent.Stalemate
    game_end: UnionPacificEvent.GameEnd
    def __init__(self, setup: _Optional[_Union[UnionPacificEvent.Setup, _Mapping]] = ..., first_investment: _Optional[_Union[UnionPacificEvent.FirstInvestment, _Mapping]] = ..., display: _Optional[_Union[UnionPacificEvent.Display, _Mapping]] = ..., share_deck: _Optional[_Union[UnionPacificEvent.ShareDeck, _Mapping]] = ..., turn: _Optional[_Union[UnionPacificEvent.Turn, _Mapping]] = ..., reshuffle: _Optional[_Union[UnionPacificEvent.Reshuffle, _Mapping]] = ..., build: _Optional[_Union[UnionPacificEvent.Build, _Mapping]] = ..., draw: _Optional[_Union[UnionPacificEvent.Draw, _Mapping]] = ..., refill: _Optional[_Union[UnionPacificEvent.Refill, _Mapping]] = ..., four_of_a_kind: _Optional[_Union[UnionPacificEvent.FourOfAKind, _Mapping]] = ..., draw_skipped: _Optional[_Union[UnionPacificEvent.DrawSkipped, _Mapping]] = ..., exchange: _Optional[_Union[UnionPacificEvent.Exchange, _Mapping]] = ..., invest: _Optional[_Union[UnionPacificEvent.Invest, _Mapping]] = ..., dividend_revealed: _Optional[_Union[UnionPacificEvent.DividendRevealed, _Mapping]] = ..., imaginary_shareholder: _Optional[_Union[UnionPacificEvent.ImaginaryShareholder, _Mapping]] = ..., dividend: _Optional[_Union[UnionPacificEvent.Dividend, _Mapping]] = ..., stalemate: _Optional[_Union[UnionPacificEvent.Stalemate, _Mapping]] = ..., game_end: _Optional[_Union[UnionPacificEvent.GameEnd, _Mapping]] = ..., **kwargs) -> None: ...

class UnionPacificAction(_message.Message):
    __slots__ = ("first_invest", "build", "invest", "draw", "exchange")
    class FirstInvest(_message.Message):
        __slots__ = ("company",)
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        company: str
        def __init__(self, company: _Optional[str] = ...) -> None: ...
    class Build(_message.Message):
        __slots__ = ("card", "company", "section")
        CARD_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        SECTION_FIELD_NUMBER: _ClassVar[int]
        card: str
        company: str
        section: int
        def __init__(self, card: _Optional[str] = ..., company: _Optional[str] = ..., section: _Optional[int] = ...) -> None: ...
    class Invest(_message.Message):
        __slots__ = ("shares", "discard")
        class SharesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        SHARES_FIELD_NUMBER: _ClassVar[int]
        DISCARD_FIELD_NUMBER: _ClassVar[int]
        shares: _containers.ScalarMap[str, int]
        discard: str
        def __init__(self, shares: _Optional[_Mapping[str, int]] = ..., discard: _Optional[str] = ...) -> None: ...
    class Pass(_message.Message):
        __slots__ = ("discard",)
        DISCARD_FIELD_NUMBER: _ClassVar[int]
        discard: str
        def __init__(self, discard: _Optional[str] = ...) -> None: ...
    class Draw(_message.Message):
        __slots__ = ("source", "company")
        SOURCE_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        source: str
        company: str
        def __init__(self, source: _Optional[str] = ..., company: _Optional[str] = ...) -> None: ...
    class Exchange(_message.Message):
        __slots__ = ("company",)
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        company: str
        def __init__(self, company: _Optional[str] = ...) -> None: ...
    FIRST_INVEST_FIELD_NUMBER: _ClassVar[int]
    BUILD_FIELD_NUMBER: _ClassVar[int]
    INVEST_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    first_invest: UnionPacificAction.FirstInvest
    build: UnionPacificAction.Build
    invest: UnionPacificAction.Invest
    draw: UnionPacificAction.Draw
    exchange: UnionPacificAction.Exchange
    def __init__(self, first_invest: _Optional[_Union[UnionPacificAction.FirstInvest, _Mapping]] = ..., build: _Optional[_Union[UnionPacificAction.Build, _Mapping]] = ..., invest: _Optional[_Union[UnionPacificAction.Invest, _Mapping]] = ..., draw: _Optional[_Union[UnionPacificAction.Draw, _Mapping]] = ..., exchange: _Optional[_Union[UnionPacificAction.Exchange, _Mapping]] = ..., **kwargs) -> None: ...

class UnionPacificBoard(_message.Message):
    __slots__ = ("name", "note", "track_types", "wild_cards", "cities", "sections", "companies", "union_pacific_shares")
    class City(_message.Message):
        __slots__ = ("name", "lon", "lat")
        NAME_FIELD_NUMBER: _ClassVar[int]
        LON_FIELD_NUMBER: _ClassVar[int]
        LAT_FIELD_NUMBER: _ClassVar[int]
        name: str
        lon: float
        lat: float
        def __init__(self, name: _Optional[str] = ..., lon: _Optional[float] = ..., lat: _Optional[float] = ...) -> None: ...
    class Section(_message.Message):
        __slots__ = ("a", "b", "spaces", "type")
        A_FIELD_NUMBER: _ClassVar[int]
        B_FIELD_NUMBER: _ClassVar[int]
        SPACES_FIELD_NUMBER: _ClassVar[int]
        TYPE_FIELD_NUMBER: _ClassVar[int]
        a: str
        b: str
        spaces: int
        type: str
        def __init__(self, a: _Optional[str] = ..., b: _Optional[str] = ..., spaces: _Optional[int] = ..., type: _Optional[str] = ...) -> None: ...
    class CityPair(_message.Message):
        __slots__ = ("a", "b")
        A_FIELD_NUMBER: _ClassVar[int]
        B_FIELD_NUMBER: _ClassVar[int]
        a: str
        b: str
        def __init__(self, a: _Optional[str] = ..., b: _Optional[str] = ...) -> None: ...
    class Company(_message.Message):
        __slots__ = ("code", "name", "shares", "trains", "home", "types", "start")
        CODE_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        SHARES_FIELD_NUMBER: _ClassVar[int]
        TRAINS_FIELD_NUMBER: _ClassVar[int]
        HOME_FIELD_NUMBER: _ClassVar[int]
        TYPES_FIELD_NUMBER: _ClassVar[int]
        START_FIELD_NUMBER: _ClassVar[int]
        code: str
        name: str
        shares: int
        trains: int
        home: str
        types: _containers.RepeatedScalarFieldContainer[str]
        start: _containers.RepeatedCompositeFieldContainer[UnionPacificBoard.CityPair]
        def __init__(self, code: _Optional[str] = ..., name: _Optional[str] = ..., shares: _Optional[int] = ..., trains: _Optional[int] = ..., home: _Optional[str] = ..., types: _Optional[_Iterable[str]] = ..., start: _Optional[_Iterable[_Union[UnionPacificBoard.CityPair, _Mapping]]] = ...) -> None: ...
    class TrackTypesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    TRACK_TYPES_FIELD_NUMBER: _ClassVar[int]
    WILD_CARDS_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    SECTIONS_FIELD_NUMBER: _ClassVar[int]
    COMPANIES_FIELD_NUMBER: _ClassVar[int]
    UNION_PACIFIC_SHARES_FIELD_NUMBER: _ClassVar[int]
    name: str
    note: str
    track_types: _containers.ScalarMap[str, int]
    wild_cards: int
    cities: _containers.RepeatedCompositeFieldContainer[UnionPacificBoard.City]
    sections: _containers.RepeatedCompositeFieldContainer[UnionPacificBoard.Section]
    companies: _containers.RepeatedCompositeFieldContainer[UnionPacificBoard.Company]
    union_pacific_shares: int
    def __init__(self, name: _Optional[str] = ..., note: _Optional[str] = ..., track_types: _Optional[_Mapping[str, int]] = ..., wild_cards: _Optional[int] = ..., cities: _Optional[_Iterable[_Union[UnionPacificBoard.City, _Mapping]]] = ..., sections: _Optional[_Iterable[_Union[UnionPacificBoard.Section, _Mapping]]] = ..., companies: _Optional[_Iterable[_Union[UnionPacificBoard.Company, _Mapping]]] = ..., union_pacific_shares: _Optional[int] = ...) -> None: ...

class TicketToRidePennsylvaniaObservation(_message.Message):
    __slots__ = ("seat", "num_players", "variant", "decision", "current_seat", "turn", "train_deck", "ticket_deck", "discard", "row", "routes", "share_piles", "share_offer", "players", "neutral", "hand", "tickets", "offered_tickets", "chosen_tickets", "final_round", "consecutive_passes", "public_events")
    class ShareNumbers(_message.Message):
        __slots__ = ("numbers",)
        NUMBERS_FIELD_NUMBER: _ClassVar[int]
        numbers: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, numbers: _Optional[_Iterable[int]] = ...) -> None: ...
    class SharePile(_message.Message):
        __slots__ = ("left", "top")
        LEFT_FIELD_NUMBER: _ClassVar[int]
        TOP_FIELD_NUMBER: _ClassVar[int]
        left: int
        top: int
        def __init__(self, left: _Optional[int] = ..., top: _Optional[int] = ...) -> None: ...
    class Player(_message.Message):
        __slots__ = ("seat", "trains", "route_points", "cards", "tickets", "shares", "known_cards")
        class SharesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: TicketToRidePennsylvaniaObservation.ShareNumbers
            def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TicketToRidePennsylvaniaObservation.ShareNumbers, _Mapping]] = ...) -> None: ...
        class KnownCardsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        SEAT_FIELD_NUMBER: _ClassVar[int]
        TRAINS_FIELD_NUMBER: _ClassVar[int]
        ROUTE_POINTS_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        TICKETS_FIELD_NUMBER: _ClassVar[int]
        SHARES_FIELD_NUMBER: _ClassVar[int]
        KNOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
        seat: int
        trains: int
        route_points: int
        cards: int
        tickets: int
        shares: _containers.MessageMap[str, TicketToRidePennsylvaniaObservation.ShareNumbers]
        known_cards: _containers.ScalarMap[str, int]
        def __init__(self, seat: _Optional[int] = ..., trains: _Optional[int] = ..., route_points: _Optional[int] = ..., cards: _Optional[int] = ..., tickets: _Optional[int] = ..., shares: _Optional[_Mapping[str, TicketToRidePennsylvaniaObservation.ShareNumbers]] = ..., known_cards: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class Neutral(_message.Message):
        __slots__ = ("shares",)
        class SharesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: TicketToRidePennsylvaniaObservation.ShareNumbers
            def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TicketToRidePennsylvaniaObservation.ShareNumbers, _Mapping]] = ...) -> None: ...
        SHARES_FIELD_NUMBER: _ClassVar[int]
        shares: _containers.MessageMap[str, TicketToRidePennsylvaniaObservation.ShareNumbers]
        def __init__(self, shares: _Optional[_Mapping[str, TicketToRidePennsylvaniaObservation.ShareNumbers]] = ...) -> None: ...
    class TicketList(_message.Message):
        __slots__ = ("tickets",)
        TICKETS_FIELD_NUMBER: _ClassVar[int]
        tickets: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, tickets: _Optional[_Iterable[str]] = ...) -> None: ...
    class FinalRound(_message.Message):
        __slots__ = ("trigger_seat", "turns_left")
        TRIGGER_SEAT_FIELD_NUMBER: _ClassVar[int]
        TURNS_LEFT_FIELD_NUMBER: _ClassVar[int]
        trigger_seat: int
        turns_left: int
        def __init__(self, trigger_seat: _Optional[int] = ..., turns_left: _Optional[int] = ...) -> None: ...
    class DiscardEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class SharePilesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TicketToRidePennsylvaniaObservation.SharePile
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TicketToRidePennsylvaniaObservation.SharePile, _Mapping]] = ...) -> None: ...
    class HandEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    CURRENT_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TRAIN_DECK_FIELD_NUMBER: _ClassVar[int]
    TICKET_DECK_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    SHARE_PILES_FIELD_NUMBER: _ClassVar[int]
    SHARE_OFFER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NEUTRAL_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TICKETS_FIELD_NUMBER: _ClassVar[int]
    OFFERED_TICKETS_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_TICKETS_FIELD_NUMBER: _ClassVar[int]
    FINAL_ROUND_FIELD_NUMBER: _ClassVar[int]
    CONSECUTIVE_PASSES_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_EVENTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    num_players: int
    variant: str
    decision: str
    current_seat: int
    turn: int
    train_deck: int
    ticket_deck: int
    discard: _containers.ScalarMap[str, int]
    row: _containers.RepeatedScalarFieldContainer[str]
    routes: _containers.RepeatedScalarFieldContainer[int]
    share_piles: _containers.MessageMap[str, TicketToRidePennsylvaniaObservation.SharePile]
    share_offer: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaObservation.Player]
    neutral: TicketToRidePennsylvaniaObservation.Neutral
    hand: _containers.ScalarMap[str, int]
    tickets: _containers.RepeatedScalarFieldContainer[str]
    offered_tickets: _containers.RepeatedScalarFieldContainer[str]
    chosen_tickets: TicketToRidePennsylvaniaObservation.TicketList
    final_round: TicketToRidePennsylvaniaObservation.FinalRound
    consecutive_passes: int
    public_events: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaEvent]
    def __init__(self, seat: _Optional[int] = ..., num_players: _Optional[int] = ..., variant: _Optional[str] = ..., decision: _Optional[str] = ..., current_seat: _Optional[int] = ..., turn: _Optional[int] = ..., train_deck: _Optional[int] = ..., ticket_deck: _Optional[int] = ..., discard: _Optional[_Mapping[str, int]] = ..., row: _Optional[_Iterable[str]] = ..., routes: _Optional[_Iterable[int]] = ..., share_piles: _Optional[_Mapping[str, TicketToRidePennsylvaniaObservation.SharePile]] = ..., share_offer: _Optional[_Iterable[str]] = ..., players: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaObservation.Player, _Mapping]]] = ..., neutral: _Optional[_Union[TicketToRidePennsylvaniaObservation.Neutral, _Mapping]] = ..., hand: _Optional[_Mapping[str, int]] = ..., tickets: _Optional[_Iterable[str]] = ..., offered_tickets: _Optional[_Iterable[str]] = ..., chosen_tickets: _Optional[_Union[TicketToRidePennsylvaniaObservation.TicketList, _Mapping]] = ..., final_round: _Optional[_Union[TicketToRidePennsylvaniaObservation.FinalRound, _Mapping]] = ..., consecutive_passes: _Optional[int] = ..., public_events: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaEvent, _Mapping]]] = ...) -> None: ...

class TicketToRidePennsylvaniaEvent(_message.Message):
    __slots__ = ("setup", "shuffle", "reshuffle", "deal", "row", "refresh", "deal_tickets", "initial_tickets", "turn", "take", "refill", "blind", "no_second_card", "draw_tickets", "keep_tickets", "claim", "share", "neutral_share", "final_round", "deadlock", "neutral_reveal", "scoring", "game_end")
    class Setup(_message.Message):
        __slots__ = ("players", "variant")
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        VARIANT_FIELD_NUMBER: _ClassVar[int]
        players: int
        variant: str
        def __init__(self, players: _Optional[int] = ..., variant: _Optional[str] = ...) -> None: ...
    class Shuffle(_message.Message):
        __slots__ = ("cards", "pile")
        CARDS_FIELD_NUMBER: _ClassVar[int]
        PILE_FIELD_NUMBER: _ClassVar[int]
        cards: int
        pile: str
        def __init__(self, cards: _Optional[int] = ..., pile: _Optional[str] = ...) -> None: ...
    class Reshuffle(_message.Message):
        __slots__ = ("cards",)
        CARDS_FIELD_NUMBER: _ClassVar[int]
        cards: int
        def __init__(self, cards: _Optional[int] = ...) -> None: ...
    class Deal(_message.Message):
        __slots__ = ("seat", "count", "cards")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        seat: int
        count: int
        cards: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...
    class Row(_message.Message):
        __slots__ = ("row",)
        ROW_FIELD_NUMBER: _ClassVar[int]
        row: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, row: _Optional[_Iterable[str]] = ...) -> None: ...
    class Refresh(_message.Message):
        __slots__ = ("discarded", "row")
        DISCARDED_FIELD_NUMBER: _ClassVar[int]
        ROW_FIELD_NUMBER: _ClassVar[int]
        discarded: _containers.RepeatedScalarFieldContainer[str]
        row: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, discarded: _Optional[_Iterable[str]] = ..., row: _Optional[_Iterable[str]] = ...) -> None: ...
    class Tickets(_message.Message):
        __slots__ = ("seat", "count", "tickets")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        TICKETS_FIELD_NUMBER: _ClassVar[int]
        seat: int
        count: int
        tickets: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, seat: _Optional[int] = ..., count: _Optional[int] = ..., tickets: _Optional[_Iterable[str]] = ...) -> None: ...
    class InitialTickets(_message.Message):
        __slots__ = ("kept_counts", "kept", "returned")
        class KeptCountsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        KEPT_COUNTS_FIELD_NUMBER: _ClassVar[int]
        KEPT_FIELD_NUMBER: _ClassVar[int]
        RETURNED_FIELD_NUMBER: _ClassVar[int]
        kept_counts: _containers.ScalarMap[str, int]
        kept: _containers.RepeatedScalarFieldContainer[str]
        returned: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, kept_counts: _Optional[_Mapping[str, int]] = ..., kept: _Optional[_Iterable[str]] = ..., returned: _Optional[_Iterable[str]] = ...) -> None: ...
    class KeepTickets(_message.Message):
        __slots__ = ("seat", "kept_count", "returned_count", "kept", "returned")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        KEPT_COUNT_FIELD_NUMBER: _ClassVar[int]
        RETURNED_COUNT_FIELD_NUMBER: _ClassVar[int]
        KEPT_FIELD_NUMBER: _ClassVar[int]
        RETURNED_FIELD_NUMBER: _ClassVar[int]
        seat: int
        kept_count: int
        returned_count: int
        kept: _containers.RepeatedScalarFieldContainer[str]
        returned: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, seat: _Optional[int] = ..., kept_count: _Optional[int] = ..., returned_count: _Optional[int] = ..., kept: _Optional[_Iterable[str]] = ..., returned: _Optional[_Iterable[str]] = ...) -> None: ...
    class Turn(_message.Message):
        __slots__ = ("turn", "seat")
        TURN_FIELD_NUMBER: _ClassVar[int]
        SEAT_FIELD_NUMBER: _ClassVar[int]
        turn: int
        seat: int
        def __init__(self, turn: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...
    class Take(_message.Message):
        __slots__ = ("seat", "slot", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        SLOT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        slot: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., slot: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Refill(_message.Message):
        __slots__ = ("slot", "card")
        SLOT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        slot: int
        card: str
        def __init__(self, slot: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class Blind(_message.Message):
        __slots__ = ("seat", "card")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        seat: int
        card: str
        def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...
    class NoSecondCard(_message.Message):
        __slots__ = ("seat",)
        SEAT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        def __init__(self, seat: _Optional[int] = ...) -> None: ...
    class Claim(_message.Message):
        __slots__ = ("seat", "route", "colour", "locomotives", "cards", "points", "trains_left")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        ROUTE_FIELD_NUMBER: _ClassVar[int]
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        LOCOMOTIVES_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        TRAINS_LEFT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        route: str
        colour: str
        locomotives: int
        cards: _containers.RepeatedScalarFieldContainer[str]
        points: int
        trains_left: int
        def __init__(self, seat: _Optional[int] = ..., route: _Optional[str] = ..., colour: _Optional[str] = ..., locomotives: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., points: _Optional[int] = ..., trains_left: _Optional[int] = ...) -> None: ...
    class Share(_message.Message):
        __slots__ = ("seat", "company", "number")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        NUMBER_FIELD_NUMBER: _ClassVar[int]
        seat: int
        company: str
        number: int
        def __init__(self, seat: _Optional[int] = ..., company: _Optional[str] = ..., number: _Optional[int] = ...) -> None: ...
    class NeutralShare(_message.Message):
        __slots__ = ("seat", "company", "number")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        NUMBER_FIELD_NUMBER: _ClassVar[int]
        seat: int
        company: str
        number: int
        def __init__(self, seat: _Optional[int] = ..., company: _Optional[str] = ..., number: _Optional[int] = ...) -> None: ...
    class Pass(_message.Message):
        __slots__ = ("seat",)
        SEAT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        def __init__(self, seat: _Optional[int] = ...) -> None: ...
    class FinalRound(_message.Message):
        __slots__ = ("trigger_seat", "trains")
        TRIGGER_SEAT_FIELD_NUMBER: _ClassVar[int]
        TRAINS_FIELD_NUMBER: _ClassVar[int]
        trigger_seat: int
        trains: int
        def __init__(self, trigger_seat: _Optional[int] = ..., trains: _Optional[int] = ...) -> None: ...
    class Deadlock(_message.Message):
        __slots__ = ("passes",)
        PASSES_FIELD_NUMBER: _ClassVar[int]
        passes: int
        def __init__(self, passes: _Optional[int] = ...) -> None: ...
    class ShareRef(_message.Message):
        __slots__ = ("company", "number")
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        NUMBER_FIELD_NUMBER: _ClassVar[int]
        company: str
        number: int
        def __init__(self, company: _Optional[str] = ..., number: _Optional[int] = ...) -> None: ...
    class NeutralReveal(_message.Message):
        __slots__ = ("order", "revealed")
        ORDER_FIELD_NUMBER: _ClassVar[int]
        REVEALED_FIELD_NUMBER: _ClassVar[int]
        order: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaEvent.ShareRef]
        revealed: int
        def __init__(self, order: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaEvent.ShareRef, _Mapping]]] = ..., revealed: _Optional[int] = ...) -> None: ...
    class TicketResult(_message.Message):
        __slots__ = ("ticket", "completed")
        TICKET_FIELD_NUMBER: _ClassVar[int]
        COMPLETED_FIELD_NUMBER: _ClassVar[int]
        ticket: str
        completed: bool
        def __init__(self, ticket: _Optional[str] = ..., completed: _Optional[bool] = ...) -> None: ...
    class SeatScore(_message.Message):
        __slots__ = ("seat", "routes", "tickets", "globetrotter", "shares", "total", "ticket_results")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        ROUTES_FIELD_NUMBER: _ClassVar[int]
        TICKETS_FIELD_NUMBER: _ClassVar[int]
        GLOBETROTTER_FIELD_NUMBER: _ClassVar[int]
        SHARES_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        TICKET_RESULTS_FIELD_NUMBER: _ClassVar[int]
        seat: int
        routes: int
        tickets: int
        globetrotter: int
        shares: int
        total: int
        ticket_results: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaEvent.TicketResult]
        def __init__(self, seat: _Optional[int] = ..., routes: _Optional[int] = ..., tickets: _Optional[int] = ..., globetrotter: _Optional[int] = ..., shares: _Optional[int] = ..., total: _Optional[int] = ..., ticket_results: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaEvent.TicketResult, _Mapping]]] = ...) -> None: ...
    class CompanyScore(_message.Message):
        __slots__ = ("company", "holdings", "places", "points")
        class HoldingsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: TicketToRidePennsylvaniaObservation.ShareNumbers
            def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TicketToRidePennsylvaniaObservation.ShareNumbers, _Mapping]] = ...) -> None: ...
        class PlacesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        class PointsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        HOLDINGS_FIELD_NUMBER: _ClassVar[int]
        PLACES_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        company: str
        holdings: _containers.MessageMap[str, TicketToRidePennsylvaniaObservation.ShareNumbers]
        places: _containers.ScalarMap[str, int]
        points: _containers.ScalarMap[str, int]
        def __init__(self, company: _Optional[str] = ..., holdings: _Optional[_Mapping[str, TicketToRidePennsylvaniaObservation.ShareNumbers]] = ..., places: _Optional[_Mapping[str, int]] = ..., points: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class Scoring(_message.Message):
        __slots__ = ("seats", "companies")
        SEATS_FIELD_NUMBER: _ClassVar[int]
        COMPANIES_FIELD_NUMBER: _ClassVar[int]
        seats: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaEvent.SeatScore]
        companies: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaEvent.CompanyScore]
        def __init__(self, seats: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaEvent.SeatScore, _Mapping]]] = ..., companies: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaEvent.CompanyScore, _Mapping]]] = ...) -> None: ...
    class GameEnd(_message.Message):
        __slots__ = ("scores", "places", "termination", "completed_tickets")
        class ScoresEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        class PlacesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        class CompletedTicketsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        SCORES_FIELD_NUMBER: _ClassVar[int]
        PLACES_FIELD_NUMBER: _ClassVar[int]
        TERMINATION_FIELD_NUMBER: _ClassVar[int]
        COMPLETED_TICKETS_FIELD_NUMBER: _ClassVar[int]
        scores: _containers.ScalarMap[str, int]
        places: _containers.ScalarMap[str, int]
        termination: str
        completed_tickets: _containers.ScalarMap[str, int]
        def __init__(self, scores: _Optional[_Mapping[str, int]] = ..., places: _Optional[_Mapping[str, int]] = ..., termination: _Optional[str] = ..., completed_tickets: _Optional[_Mapping[str, int]] = ...) -> None: ...
    SETUP_FIELD_NUMBER: _ClassVar[int]
    SHUFFLE_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLE_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    REFRESH_FIELD_NUMBER: _ClassVar[int]
    DEAL_TICKETS_FIELD_NUMBER: _ClassVar[int]
    INITIAL_TICKETS_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    REFILL_FIELD_NUMBER: _ClassVar[int]
    BLIND_FIELD_NUMBER: _ClassVar[int]
    NO_SECOND_CARD_FIELD_NUMBER: _ClassVar[int]
    DRAW_TICKETS_FIELD_NUMBER: _ClassVar[int]
    KEEP_TICKETS_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    NEUTRAL_SHARE_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    FINAL_ROUND_FIELD_NUMBER: _ClassVar[int]
    DEADLOCK_FIELD_NUMBER: _ClassVar[int]
    NEUTRAL_REVEAL_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    setup: TicketToRidePennsylvaniaEvent.Setup
    shuffle: TicketToRidePennsylvaniaEvent.Shuffle
    reshuffle: TicketToRidePennsylvaniaEvent.Reshuffle
    deal: TicketToRidePennsylvaniaEvent.Deal
    row: TicketToRidePennsylvaniaEvent.Row
    refresh: TicketToRidePennsylvaniaEvent.Refresh
    deal_tickets: TicketToRidePennsylvaniaEvent.Tickets
    initial_tickets: TicketToRidePennsylvaniaEvent.InitialTickets
    turn: TicketToRidePennsylvaniaEvent.Turn
    take: TicketToRidePennsylvaniaEvent.Take
    refill: TicketToRidePennsylvaniaEvent.Refill
    blind: TicketToRidePennsylvaniaEvent.Blind
    no_second_card: TicketToRidePennsylvaniaEvent.NoSecondCard
    draw_tickets: TicketToRidePennsylvaniaEvent.Tickets
    keep_tickets: TicketToRidePennsylvaniaEvent.KeepTickets
    claim: TicketToRidePennsylvaniaEvent.Claim
    share: TicketToRidePennsylvaniaEvent.Share
    neutral_share: TicketToRidePennsylvaniaEvent.NeutralShare
    final_round: TicketToRidePennsylvaniaEvent.FinalRound
    deadlock: TicketToRidePennsylvaniaEvent.Deadlock
    neutral_reveal: TicketToRidePennsylvaniaEvent.NeutralReveal
    scoring: TicketToRidePennsylvaniaEvent.Scoring
    game_end: TicketToRidePennsylvaniaEvent.GameEnd
    def __init__(self, setup: _Optional[_Union[TicketToRidePennsylvaniaEvent.Setup, _Mapping]] = ..., shuffle: _Optional[_Union[TicketToRidePennsylvaniaEvent.Shuffle, _Mapping]] = ..., reshuffle: _Optional[_Union[TicketToRidePennsylvaniaEvent.Reshuffle, _Mapping]] = ..., deal: _Optional[_Union[TicketToRidePennsylvaniaEvent.Deal, _Mapping]] = ..., row: _Optional[_Union[TicketToRidePennsylvaniaEvent.Row, _Mapping]] = ..., refresh: _Optional[_Union[TicketToRidePennsylvaniaEvent.Refresh, _Mapping]] = ..., deal_tickets: _Optional[_Union[TicketToRidePennsylvaniaEvent.Tickets, _Mapping]] = ..., initial_tickets: _Optional[_Union[TicketToRidePennsylvaniaEvent.InitialTickets, _Mapping]] = ..., turn: _Optional[_Union[TicketToRidePennsylvaniaEvent.Turn, _Mapping]] = ..., take: _Optional[_Union[TicketToRidePennsylvaniaEvent.Take, _Mapping]] = ..., refill: _Optional[_Union[TicketToRidePennsylvaniaEvent.Refill, _Mapping]] = ..., blind: _Optional[_Union[TicketToRidePennsylvaniaEvent.Blind, _Mapping]] = ..., no_second_card: _Optional[_Union[TicketToRidePennsylvaniaEvent.NoSecondCard, _Mapping]] = ..., draw_tickets: _Optional[_Union[TicketToRidePennsylvaniaEvent.Tickets, _Mapping]] = ..., keep_tickets: _Optional[_Union[TicketToRidePennsylvaniaEvent.KeepTickets, _Mapping]] = ..., claim: _Optional[_Union[TicketToRidePennsylvaniaEvent.Claim, _Mapping]] = ..., share: _Optional[_Union[TicketToRidePennsylvaniaEvent.Share, _Mapping]] = ..., neutral_share: _Optional[_Union[TicketToRidePennsylvaniaEvent.NeutralShare, _Mapping]] = ..., final_round: _Optional[_Union[TicketToRidePennsylvaniaEvent.FinalRound, _Mapping]] = ..., deadlock: _Optional[_Union[TicketToRidePennsylvaniaEvent.Deadlock, _Mapping]] = ..., neutral_reveal: _Optional[_Union[TicketToRidePennsylvaniaEvent.NeutralReveal, _Mapping]] = ..., scoring: _Optional[_Union[TicketToRidePennsylvaniaEvent.Scoring, _Mapping]] = ..., game_end: _Optional[_Union[TicketToRidePennsylvaniaEvent.GameEnd, _Mapping]] = ..., **kwargs) -> None: ...

class TicketToRidePennsylvaniaAction(_message.Message):
    __slots__ = ("keep_tickets", "take", "blind", "draw_tickets", "share", "neutral_share", "claim")
    class KeepTickets(_message.Message):
        __slots__ = ("positions",)
        POSITIONS_FIELD_NUMBER: _ClassVar[int]
        positions: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, positions: _Optional[_Iterable[int]] = ...) -> None: ...
    class Take(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: str
        def __init__(self, card: _Optional[str] = ...) -> None: ...
    class Blind(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class DrawTickets(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Pass(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Share(_message.Message):
        __slots__ = ("company",)
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        company: str
        def __init__(self, company: _Optional[str] = ...) -> None: ...
    class NeutralShare(_message.Message):
        __slots__ = ("company",)
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        company: str
        def __init__(self, company: _Optional[str] = ...) -> None: ...
    class Claim(_message.Message):
        __slots__ = ("route", "colour", "locomotives")
        ROUTE_FIELD_NUMBER: _ClassVar[int]
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        LOCOMOTIVES_FIELD_NUMBER: _ClassVar[int]
        route: str
        colour: str
        locomotives: int
        def __init__(self, route: _Optional[str] = ..., colour: _Optional[str] = ..., locomotives: _Optional[int] = ...) -> None: ...
    KEEP_TICKETS_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    BLIND_FIELD_NUMBER: _ClassVar[int]
    DRAW_TICKETS_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    NEUTRAL_SHARE_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    keep_tickets: TicketToRidePennsylvaniaAction.KeepTickets
    take: TicketToRidePennsylvaniaAction.Take
    blind: TicketToRidePennsylvaniaAction.Blind
    draw_tickets: TicketToRidePennsylvaniaAction.DrawTickets
    share: TicketToRidePennsylvaniaAction.Share
    neutral_share: TicketToRidePennsylvaniaAction.NeutralShare
    claim: TicketToRidePennsylvaniaAction.Claim
    def __init__(self, keep_tickets: _Optional[_Union[TicketToRidePennsylvaniaAction.KeepTickets, _Mapping]] = ..., take: _Optional[_Union[TicketToRidePennsylvaniaAction.Take, _Mapping]] = ..., blind: _Optional[_Union[TicketToRidePennsylvaniaAction.Blind, _Mapping]] = ..., draw_tickets: _Optional[_Union[TicketToRidePennsylvaniaAction.DrawTickets, _Mapping]] = ..., share: _Optional[_Union[TicketToRidePennsylvaniaAction.Share, _Mapping]] = ..., neutral_share: _Optional[_Union[TicketToRidePennsylvaniaAction.NeutralShare, _Mapping]] = ..., claim: _Optional[_Union[TicketToRidePennsylvaniaAction.Claim, _Mapping]] = ..., **kwargs) -> None: ...

class TicketToRidePennsylvaniaBoard(_message.Message):
    __slots__ = ("name", "format_version", "notes", "sources", "players", "route_points", "train_cards", "globetrotter_bonus", "longest_path_bonus", "tickets_setup", "tickets_draw", "locations", "cities", "routes", "companies", "tickets", "reconstruction_status")
    class Players(_message.Message):
        __slots__ = ("min", "max", "trains_per_player", "end_trigger_trains")
        MIN_FIELD_NUMBER: _ClassVar[int]
        MAX_FIELD_NUMBER: _ClassVar[int]
        TRAINS_PER_PLAYER_FIELD_NUMBER: _ClassVar[int]
        END_TRIGGER_TRAINS_FIELD_NUMBER: _ClassVar[int]
        min: int
        max: int
        trains_per_player: int
        end_trigger_trains: int
        def __init__(self, min: _Optional[int] = ..., max: _Optional[int] = ..., trains_per_player: _Optional[int] = ..., end_trigger_trains: _Optional[int] = ...) -> None: ...
    class TrainCards(_message.Message):
        __slots__ = ("colours", "per_colour", "locomotives", "total")
        COLOURS_FIELD_NUMBER: _ClassVar[int]
        PER_COLOUR_FIELD_NUMBER: _ClassVar[int]
        LOCOMOTIVES_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        colours: _containers.RepeatedScalarFieldContainer[str]
        per_colour: int
        locomotives: int
        total: int
        def __init__(self, colours: _Optional[_Iterable[str]] = ..., per_colour: _Optional[int] = ..., locomotives: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...
    class TicketsSetup(_message.Message):
        __slots__ = ("deal", "keep_at_least")
        DEAL_FIELD_NUMBER: _ClassVar[int]
        KEEP_AT_LEAST_FIELD_NUMBER: _ClassVar[int]
        deal: int
        keep_at_least: int
        def __init__(self, deal: _Optional[int] = ..., keep_at_least: _Optional[int] = ...) -> None: ...
    class TicketsDraw(_message.Message):
        __slots__ = ("draw", "keep_at_least")
        DRAW_FIELD_NUMBER: _ClassVar[int]
        KEEP_AT_LEAST_FIELD_NUMBER: _ClassVar[int]
        draw: int
        keep_at_least: int
        def __init__(self, draw: _Optional[int] = ..., keep_at_least: _Optional[int] = ...) -> None: ...
    class Nodes(_message.Message):
        __slots__ = ("nodes",)
        NODES_FIELD_NUMBER: _ClassVar[int]
        nodes: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, nodes: _Optional[_Iterable[str]] = ...) -> None: ...
    class City(_message.Message):
        __slots__ = ("id", "name", "lon", "lat", "note")
        ID_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        LON_FIELD_NUMBER: _ClassVar[int]
        LAT_FIELD_NUMBER: _ClassVar[int]
        NOTE_FIELD_NUMBER: _ClassVar[int]
        id: str
        name: str
        lon: float
        lat: float
        note: str
        def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., lon: _Optional[float] = ..., lat: _Optional[float] = ..., note: _Optional[str] = ...) -> None: ...
    class Route(_message.Message):
        __slots__ = ("id", "a", "b", "length", "colour", "ferry", "locomotives", "double_with", "companies", "confidence", "note")
        ID_FIELD_NUMBER: _ClassVar[int]
        A_FIELD_NUMBER: _ClassVar[int]
        B_FIELD_NUMBER: _ClassVar[int]
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        FERRY_FIELD_NUMBER: _ClassVar[int]
        LOCOMOTIVES_FIELD_NUMBER: _ClassVar[int]
        DOUBLE_WITH_FIELD_NUMBER: _ClassVar[int]
        COMPANIES_FIELD_NUMBER: _ClassVar[int]
        CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
        NOTE_FIELD_NUMBER: _ClassVar[int]
        id: str
        a: str
        b: str
        length: int
        colour: str
        ferry: bool
        locomotives: int
        double_with: str
        companies: _containers.RepeatedScalarFieldContainer[str]
        confidence: str
        note: str
        def __init__(self, id: _Optional[str] = ..., a: _Optional[str] = ..., b: _Optional[str] = ..., length: _Optional[int] = ..., colour: _Optional[str] = ..., ferry: _Optional[bool] = ..., locomotives: _Optional[int] = ..., double_with: _Optional[str] = ..., companies: _Optional[_Iterable[str]] = ..., confidence: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...
    class Company(_message.Message):
        __slots__ = ("code", "name", "shares", "points")
        CODE_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        SHARES_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        code: str
        name: str
        shares: int
        points: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, code: _Optional[str] = ..., name: _Optional[str] = ..., shares: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ...) -> None: ...
    class Ticket(_message.Message):
        __slots__ = ("id", "a", "b", "points")
        ID_FIELD_NUMBER: _ClassVar[int]
        A_FIELD_NUMBER: _ClassVar[int]
        B_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        id: str
        a: str
        b: str
        points: int
        def __init__(self, id: _Optional[str] = ..., a: _Optional[str] = ..., b: _Optional[str] = ..., points: _Optional[int] = ...) -> None: ...
    class Source(_message.Message):
        __slots__ = ("what", "where")
        WHAT_FIELD_NUMBER: _ClassVar[int]
        WHERE_FIELD_NUMBER: _ClassVar[int]
        what: str
        where: str
        def __init__(self, what: _Optional[str] = ..., where: _Optional[str] = ...) -> None: ...
    class Strings(_message.Message):
        __slots__ = ("items",)
        ITEMS_FIELD_NUMBER: _ClassVar[int]
        items: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, items: _Optional[_Iterable[str]] = ...) -> None: ...
    class RoutePointsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class LocationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TicketToRidePennsylvaniaBoard.Nodes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TicketToRidePennsylvaniaBoard.Nodes, _Mapping]] = ...) -> None: ...
    class ReconstructionStatusEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TicketToRidePennsylvaniaBoard.Strings
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TicketToRidePennsylvaniaBoard.Strings, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_VERSION_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUTE_POINTS_FIELD_NUMBER: _ClassVar[int]
    TRAIN_CARDS_FIELD_NUMBER: _ClassVar[int]
    GLOBETROTTER_BONUS_FIELD_NUMBER: _ClassVar[int]
    LONGEST_PATH_BONUS_FIELD_NUMBER: _ClassVar[int]
    TICKETS_SETUP_FIELD_NUMBER: _ClassVar[int]
    TICKETS_DRAW_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    COMPANIES_FIELD_NUMBER: _ClassVar[int]
    TICKETS_FIELD_NUMBER: _ClassVar[int]
    RECONSTRUCTION_STATUS_FIELD_NUMBER: _ClassVar[int]
    name: str
    format_version: int
    notes: _containers.RepeatedScalarFieldContainer[str]
    sources: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaBoard.Source]
    players: TicketToRidePennsylvaniaBoard.Players
    route_points: _containers.ScalarMap[str, int]
    train_cards: TicketToRidePennsylvaniaBoard.TrainCards
    globetrotter_bonus: int
    longest_path_bonus: int
    tickets_setup: TicketToRidePennsylvaniaBoard.TicketsSetup
    tickets_draw: TicketToRidePennsylvaniaBoard.TicketsDraw
    locations: _containers.MessageMap[str, TicketToRidePennsylvaniaBoard.Nodes]
    cities: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaBoard.City]
    routes: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaBoard.Route]
    companies: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaBoard.Company]
    tickets: _containers.RepeatedCompositeFieldContainer[TicketToRidePennsylvaniaBoard.Ticket]
    reconstruction_status: _containers.MessageMap[str, TicketToRidePennsylvaniaBoard.Strings]
    def __init__(self, name: _Optional[str] = ..., format_version: _Optional[int] = ..., notes: _Optional[_Iterable[str]] = ..., sources: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaBoard.Source, _Mapping]]] = ..., players: _Optional[_Union[TicketToRidePennsylvaniaBoard.Players, _Mapping]] = ..., route_points: _Optional[_Mapping[str, int]] = ..., train_cards: _Optional[_Union[TicketToRidePennsylvaniaBoard.TrainCards, _Mapping]] = ..., globetrotter_bonus: _Optional[int] = ..., longest_path_bonus: _Optional[int] = ..., tickets_setup: _Optional[_Union[TicketToRidePennsylvaniaBoard.TicketsSetup, _Mapping]] = ..., tickets_draw: _Optional[_Union[TicketToRidePennsylvaniaBoard.TicketsDraw, _Mapping]] = ..., locations: _Optional[_Mapping[str, TicketToRidePennsylvaniaBoard.Nodes]] = ..., cities: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaBoard.City, _Mapping]]] = ..., routes: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaBoard.Route, _Mapping]]] = ..., companies: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaBoard.Company, _Mapping]]] = ..., tickets: _Optional[_Iterable[_Union[TicketToRidePennsylvaniaBoard.Ticket, _Mapping]]] = ..., reconstruction_status: _Optional[_Mapping[str, TicketToRidePennsylvaniaBoard.Strings]] = ...) -> None: ...
