"""Talking to one bot over gRPC: the connection, the request encoding, and a seat's client.

:class:`BotConnection` is one channel to one bot (``127.0.0.1:<port>`` or a remote
address), shared by every match that bot plays.  :class:`SeatClient` is one seat of
one match: it sends the decisions with their deadlines, keeps the seat's clock and
turns every failure into a typed :class:`~arena.records.FaultReason` with a detail.
Calls are synchronous (grpcio's blocking API with per-call ``timeout=``); the
simultaneous first investment uses the same calls' futures.
"""

from __future__ import annotations

import time
import weakref
from operator import itemgetter
from typing import Any, Callable, NamedTuple, Protocol, Sequence

import grpc
from google.protobuf.message import DecodeError

from arena.games.base import Game, GameState
from arena.host import codec
from arena.host.clock import Clocks, SeatClock
from arena.host.codec import ObservationEncoder
from arena.protocol import PROTOCOL_VERSION
from arena.protocol.wirebytes import SMALL_VARINTS, length_prefixed, varint
from arena.records import FaultReason
from arena.v1 import bot_pb2

#: The largest reply the host accepts from a bot (a bigger one is a malformed reply).
MAX_MESSAGE_BYTES = 1 << 20

_SERVICE = "/arena.v1.Bot/"
_monotonic = time.monotonic


class Gate(Protocol):
    """Something to enter before a call to a bot and leave after it (see ``FreezeGate``)."""

    def enter(self) -> None: ...

    def leave(self) -> None: ...


class BotNotReadyError(RuntimeError):
    """The bot never answered Describe within the limit; the message says what was seen."""


def channel_options(max_message_bytes: int = MAX_MESSAGE_BYTES) -> list[tuple[str, Any]]:
    """Channel options: reply size limit, quick reconnects (bots start and restart), no proxy."""
    return [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.initial_reconnect_backoff_ms", 50),
        ("grpc.min_reconnect_backoff_ms", 50),
        ("grpc.max_reconnect_backoff_ms", 250),
        ("grpc.enable_http_proxy", 0),
    ]


class BotConnection:
    """One gRPC channel to one bot, thread-safe, shared by all of its matches."""

    def __init__(self, address: str, *, max_message_bytes: int = MAX_MESSAGE_BYTES, gate: Gate | None = None) -> None:
        self.address = address
        self.max_message_bytes = max_message_bytes
        #: Thawed around every call, frozen otherwise (a sandboxed bot uses CPU only while asked).
        self.gate = gate
        self.channel = grpc.insecure_channel(address, options=channel_options(max_message_bytes))
        ch = self.channel
        self._describe = ch.unary_unary(_SERVICE + "Describe", request_serializer=_serialize,
                                        response_deserializer=bot_pb2.DescribeReply.FromString)
        self._start = ch.unary_unary(_SERVICE + "StartMatch", request_serializer=_serialize,
                                     response_deserializer=bot_pb2.StartMatchReply.FromString)
        # Decide carries raw bytes both ways: requests are pre-encoded (see DecisionEncoder)
        # and a reply that does not parse is told apart from a gRPC error.
        self._decide = ch.unary_unary(_SERVICE + "Decide")
        self._end = ch.unary_unary(_SERVICE + "EndMatch", request_serializer=_serialize,
                                   response_deserializer=bot_pb2.EndMatchReply.FromString)

    def _call(self, method: Callable[..., Any], request: Any, timeout: float) -> Any:
        gate = self.gate
        if gate is None:
            return method(request, timeout=timeout)
        gate.enter()
        try:
            return method(request, timeout=timeout)
        finally:
            gate.leave()

    def describe(self, timeout: float) -> bot_pb2.DescribeReply:
        return self._call(self._describe, bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout)

    def start_match(self, request: bot_pb2.StartMatchRequest, timeout: float) -> None:
        self._call(self._start, request, timeout)

    def decide(self, payload: bytes, timeout: float) -> bytes:
        """One Decide call with a serialized DecisionRequest; returns the reply's bytes."""
        if self.gate is None:  # every decision of an unsandboxed bot: one Python frame less
            return self._decide(payload, timeout=timeout)
        return self._call(self._decide, payload, timeout)

    def decide_future(self, payload: bytes, timeout: float) -> grpc.Future:
        gate = self.gate
        if gate is None:
            return self._decide.future(payload, timeout=timeout)
        gate.enter()
        try:
            future = self._decide.future(payload, timeout=timeout)
        except BaseException:
            gate.leave()
            raise
        future.add_done_callback(lambda _f: gate.leave())
        return future

    def end_match(self, request: bot_pb2.EndMatchRequest, timeout: float) -> None:
        self._call(self._end, request, timeout)

    def wait_ready(self, limit_s: float, *, alive: Callable[[], bool] | None = None,
                   poll_s: float = 0.05) -> bot_pb2.DescribeReply:
        """Poll Describe until it answers (ready); :class:`BotNotReadyError` after ``limit_s``.

        ``alive`` (if given) is asked between polls; when it says False the wait stops at once.
        """
        deadline = time.monotonic() + limit_s
        last = "no answer"
        while True:
            left = deadline - time.monotonic()
            try:
                return self.describe(timeout=max(0.05, min(left, 1.0)))
            except grpc.RpcError as exc:
                last = _rpc_text(exc)
                if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise BotNotReadyError(f"Describe on {self.address} failed: {last}") from None
            if alive is not None and not alive():
                raise BotNotReadyError(f"the bot exited before it answered Describe on {self.address}")
            if time.monotonic() + poll_s >= deadline:
                raise BotNotReadyError(
                    f"no answer to Describe on {self.address} within {limit_s:g} s (last: {last})")
            time.sleep(poll_s)

    def close(self) -> None:
        self.channel.close()


def _serialize(message: Any) -> bytes:
    return message.SerializeToString()


def _rpc_text(exc: grpc.RpcError) -> str:
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return f"{code.name if code else 'error'}: {details}"


# ------------------------------------------------------------------ encoding

_LEGAL_ACTION_TAG = b"\x2a"  # DecisionRequest.legal_actions: field 5, length-delimited
_OBSERVATION_FIELD_TAG = b"\x22"  # DecisionRequest.observation: field 4, length-delimited
#: _INDEX_FIELDS[i]: Action.index = i (field 1, varint); empty for 0, as protobuf writes it.
_INDEX_FIELDS = [b""] + [b"\x08" + varint(i) for i in range(1, 1 << 14)]


class DecisionEncoder:
    """Serializes DecisionRequests, with each action's encoding cached by action id.

    An action's text and structured form depend on the game's data only, so the
    ``Action`` message of every id is encoded once (by :mod:`arena.host.codec`,
    without its index) and reused: each legal-action entry is the field's tag and
    length, the cached bytes, then the ``index`` field (protobuf reads fields in any
    order), so a whole list is joined by C code.  The observation comes from an
    :class:`~arena.host.codec.ObservationEncoder` (one per match: with a game's fast
    encoder, only the fields that changed are encoded again).  The result parses as the message the
    codec builds.
    """

    def __init__(self, game: str) -> None:
        self.game = game
        self._actions: dict[int, bytes] = {}
        # _entries[w][action]: the entry up to its index field, for an index field of w bytes.
        self._entries: tuple[dict[int, bytes], dict[int, bytes], dict[int, bytes]] = ({}, {}, {})
        # _prefixes[(match_id, seat)]: the request's match_id and seat fields.
        self._prefixes: dict[tuple[str, int], bytes] = {}

    def action_bytes(self, state: GameState, action: int) -> bytes:
        cached = self._actions.get(action)
        if cached is None:
            message = codec.action_to_proto(0, state.action_to_string(action), state.describe_action(action),
                                            game=self.game)
            cached = self._actions[action] = message.SerializeToString()
        return cached

    def _learn(self, state: GameState, actions: Sequence[int]) -> None:
        none, two, three = self._entries
        for action in actions:
            if action not in two:
                body = self.action_bytes(state, action)
                none[action] = _entry(body, 0)
                two[action] = _entry(body, 2)
                three[action] = _entry(body, 3)

    def legal_actions_bytes(self, state: GameState, actions: Sequence[int]) -> bytes:
        """The ``legal_actions`` entries of ``actions`` (index i for ``actions[i]``)."""
        if not actions:
            return b""
        if len(actions) > len(_INDEX_FIELDS):  # a huge list: the index field would grow
            return b"".join(length_prefixed(_LEGAL_ACTION_TAG, self.action_bytes(state, a) + (b"\x08" + varint(i) if i else b""))
                            for i, a in enumerate(actions))
        none, two, three = self._entries
        n = len(actions)
        # Entries and index fields interleaved: [entry 0, b"", entry 1, index 1, entry 2, index 2, ...]
        parts = _INDEX_FIELDS[:n] * 2  # the right length; even places are overwritten below
        parts[1::2] = _INDEX_FIELDS[:n]
        try:
            parts[0] = none[actions[0]]
            if n > 1:
                parts[2:256:2] = _get_all(actions[1:128], two)
            if n > 128:
                parts[256::2] = _get_all(actions[128:], three)
        except KeyError:
            self._learn(state, actions)
            return self.legal_actions_bytes(state, actions)
        return b"".join(parts)

    def head(self, match_id: str, seat: int, number: int, decision_ms: int, bank_ms: int) -> bytes:
        """The request's fields 1-3, 6 and 7, as protobuf writes them (numbers in order, zeros left
        out): written directly, the ``match_id``/``seat`` part kept per seat."""
        prefix = self._prefixes.get((match_id, seat))
        if prefix is None or not (0 <= number < _INT32_LIMIT and 0 <= decision_ms < _INT64_LIMIT
                                  and 0 <= bank_ms < _INT64_LIMIT):
            if type(match_id) is not str or type(seat) is not int or not 0 <= seat < _INT32_LIMIT:
                return bot_pb2.DecisionRequest(match_id=match_id, seat=seat, decision_number=number,
                                               decision_time_ms=decision_ms, time_bank_ms=bank_ms).SerializeToString()
            if prefix is None:
                prefix = bot_pb2.DecisionRequest(match_id=match_id, seat=seat).SerializeToString()
                if len(self._prefixes) >= 4096:
                    self._prefixes.clear()
                self._prefixes[(match_id, seat)] = prefix
            if not (0 <= number < _INT32_LIMIT and 0 <= decision_ms < _INT64_LIMIT and 0 <= bank_ms < _INT64_LIMIT):
                return bot_pb2.DecisionRequest(match_id=match_id, seat=seat, decision_number=number,
                                               decision_time_ms=decision_ms, time_bank_ms=bank_ms).SerializeToString()
        return b"".join((prefix,
                         b"\x18" + _varint(number) if number else b"",
                         b"\x30" + _varint(decision_ms) if decision_ms else b"",
                         b"\x38" + _varint(bank_ms) if bank_ms else b""))

    def encode(self, state: GameState, *, match_id: str, seat: int, number: int, observation: dict[str, Any] | None,
               actions: Sequence[int], decision_ms: int, bank_ms: int,
               observations: ObservationEncoder | None = None) -> bytes:
        """The request's bytes; ``observation`` None: ``state.observation(seat)``'s, written
        from the state when the game's kit can (see :meth:`ObservationEncoder.encode_state`)."""
        head = self.head(match_id, seat, number, decision_ms, bank_ms)
        observations = observations or ObservationEncoder()
        if observation is None:
            wrapped = observations.encode_state(self.game, state, seat)
        else:
            wrapped = observations.encode(observation)
        return b"".join((head, length_prefixed(_OBSERVATION_FIELD_TAG, wrapped),
                         self.legal_actions_bytes(state, actions)))


_INT32_LIMIT = 1 << 31
_INT64_LIMIT = 1 << 63


def _varint(value: int) -> bytes:
    return SMALL_VARINTS[value] if value < 2048 else varint(value)


def _get_all(keys: Sequence[int], table: dict[int, bytes]) -> list[bytes]:
    """``[table[k] for k in keys]``, in one C call."""
    if len(keys) == 1:
        return [table[keys[0]]]
    return list(itemgetter(*keys)(table))


def _entry(body: bytes, index_bytes: int) -> bytes:
    """A legal_actions entry without its index field (of ``index_bytes`` bytes, which follows)."""
    size = len(body) + index_bytes
    return _LEGAL_ACTION_TAG + (SMALL_VARINTS[size] if size < 2048 else varint(size)) + body


_ENCODERS: "weakref.WeakKeyDictionary[Game, DecisionEncoder]" = weakref.WeakKeyDictionary()


def encoder_for(game: Game) -> DecisionEncoder:
    """The shared encoder of ``game`` (its action cache lives as long as the game object)."""
    encoder = _ENCODERS.get(game)
    if encoder is None:
        encoder = _ENCODERS.setdefault(game, DecisionEncoder(game.name))
    return encoder


# -------------------------------------------------------------------- faults


def classify_rpc_error(exc: BaseException) -> tuple[FaultReason, str]:
    """The fault reason and detail of a failed call."""
    if not isinstance(exc, grpc.RpcError) or not hasattr(exc, "code"):
        # e.g. ValueError("Cannot invoke RPC on closed channel!") after a restart elsewhere
        return FaultReason.DISCONNECT, f"{type(exc).__name__}: {exc}"
    code = exc.code()
    text = _rpc_text(exc)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return FaultReason.TIMEOUT, text
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
        return FaultReason.DISCONNECT, text
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in (exc.details() or ""):
        return FaultReason.MALFORMED_REPLY, f"reply too large: {exc.details()}"
    return FaultReason.PROTOCOL_ERROR, text


#: _REPLY_INDEX[bytes]: i, for the bytes protobuf writes for ``DecisionReply(action_index=i)``
#: (0 <= i < 4096, no debug text): such a reply is read without parsing it.
_REPLY_INDEX = {bot_pb2.DecisionReply(action_index=i).SerializeToString(): i for i in range(4096)}


class Decision(NamedTuple):
    """What came of asking a seat: the chosen index, or the fault that voids the reply (a named
    tuple: made at every decision, for half a frozen dataclass's cost)."""

    index: int | None
    fault: tuple[FaultReason, str] | None
    elapsed_s: float
    debug: str = ""


class SeatClient:
    """One seat of one match played by a bot: its calls, deadlines, clock and fault reading."""

    def __init__(self, connection: BotConnection, *, match_id: str, seat: int, clocks: Clocks,
                 encoder: DecisionEncoder, setup_timeout_s: float = 5.0,
                 observations: ObservationEncoder | None = None) -> None:
        self.connection = connection
        self.match_id = match_id
        self.seat = seat
        self.clock = SeatClock(clocks)
        self.encoder = encoder
        #: The match's observation encoder (shared by its seats, used from the match's thread).
        self.observations = observations if observations is not None else ObservationEncoder()
        self.setup_timeout_s = setup_timeout_s

    def start_match(self, request: bot_pb2.StartMatchRequest) -> tuple[FaultReason, str] | None:
        """Send StartMatch; the fault if it failed."""
        try:
            self.connection.start_match(request, timeout=self.setup_timeout_s)
        except Exception as exc:  # noqa: BLE001 - every failure is a fault to record
            reason, detail = classify_rpc_error(exc)
            return reason, f"StartMatch: {detail}"
        return None

    def payload(self, state: GameState, number: int, observation: dict[str, Any] | None,
                actions: Sequence[int]) -> bytes:
        """The DecisionRequest for this seat; ``observation`` None (what the match runner passes):
        the seat's observation of ``state``, written from the state where the game's kit can."""
        return self.encoder.encode(state, match_id=self.match_id, seat=self.seat, number=number,
                                   observation=observation, actions=actions,
                                   decision_ms=self.clock.decision_ms, bank_ms=self.clock.request_bank_ms(),
                                   observations=self.observations)

    def decide(self, payload: bytes, n_legal: int) -> Decision:
        """Ask for one decision and wait for it (blocking, with the clock's deadline)."""
        allowed = self.clock.allowed_s()
        start = _monotonic()
        try:
            raw = self.connection.decide(payload, allowed)
        except Exception as exc:  # noqa: BLE001
            return self._failed(exc, _monotonic() - start)
        return self._read(raw, _monotonic() - start, n_legal, allowed)

    def begin(self, payload: bytes) -> "PendingDecision":
        """Send a decision request without waiting (for simultaneous decisions)."""
        return PendingDecision(self, payload)

    def _failed(self, exc: BaseException, elapsed: float) -> Decision:
        reason, detail = classify_rpc_error(exc)
        if reason is FaultReason.TIMEOUT:
            allowed, bank = self.clock.allowed_s(), self.clock.request_bank_ms()
            self.clock.expire(elapsed)
            detail = (f"no reply within {allowed * 1000:.0f} ms (decision {self.clock.decision_ms} ms + bank "
                      f"{bank} ms + grace {self.clock.clocks.grace_ms} ms)")
        else:
            self.clock.charge(elapsed)
        return Decision(None, (reason, detail), elapsed)

    def _read(self, raw: bytes, elapsed: float, n_legal: int, allowed: float) -> Decision:
        """The reply ``raw`` read and judged; ``allowed``: the clock's :meth:`~SeatClock.allowed_s`
        when the request was sent (nothing charged the clock since)."""
        if not self.clock.charge(elapsed):
            return Decision(None, (FaultReason.TIMEOUT, f"reply after {elapsed * 1000:.0f} ms, allowed "
                                                        f"{allowed * 1000:.0f} ms"), elapsed)
        index = _REPLY_INDEX.get(raw)  # the reply of nearly every decision: an index, no debug text
        if index is not None and index < n_legal:
            return Decision(index, None, elapsed)
        try:
            reply = bot_pb2.DecisionReply.FromString(raw)
        except DecodeError as exc:
            return Decision(None, (FaultReason.MALFORMED_REPLY,
                                   f"the reply ({len(raw)} bytes) is not a DecisionReply: {exc}"), elapsed)
        index = reply.action_index
        if not 0 <= index < n_legal:
            return Decision(None, (FaultReason.ILLEGAL_ACTION,
                                   f"action_index {index} is out of range [0, {n_legal})"), elapsed, reply.debug)
        return Decision(index, None, elapsed, reply.debug)

    def end_match(self, request: bot_pb2.EndMatchRequest) -> str | None:
        """Send EndMatch; the error text if it failed (never a fault: the match is over)."""
        try:
            self.connection.end_match(request, timeout=self.setup_timeout_s)
        except Exception as exc:  # noqa: BLE001
            return f"EndMatch: {classify_rpc_error(exc)[1]}"
        return None


class PendingDecision:
    """A decision request in flight; :meth:`result` waits for it and reads it like :meth:`SeatClient.decide`."""

    def __init__(self, client: SeatClient, payload: bytes) -> None:
        self.client = client
        self._allowed = client.clock.allowed_s()
        self._start = time.monotonic()
        self._done_at: float | None = None
        try:
            self._future: grpc.Future | None = client.connection.decide_future(payload, self._allowed)
            self._error: BaseException | None = None
            self._future.add_done_callback(self._mark_done)
        except Exception as exc:  # noqa: BLE001
            self._future, self._error, self._done_at = None, exc, time.monotonic()

    def _mark_done(self, _future: grpc.Future) -> None:
        self._done_at = time.monotonic()

    def result(self, n_legal: int) -> Decision:
        client = self.client
        if self._future is None:
            return client._failed(self._error or RuntimeError("the request was never sent"), 0.0)
        try:
            raw = self._future.result()
        except Exception as exc:  # noqa: BLE001
            return client._failed(exc, self._elapsed())
        return client._read(raw, self._elapsed(), n_legal, self._allowed)

    def _elapsed(self) -> float:
        done = self._done_at if self._done_at is not None else time.monotonic()
        return done - self._start
