"""The serving half of the Python SDK (:mod:`arena.sdk` re-exports :func:`serve` and
:func:`make_server`): the gRPC servicer that forwards the four calls of arena.v1.Bot to a
:class:`~arena.sdk.Bot`'s hooks, the server it runs in, and the process's stop rules (EOF on
stdin, SIGTERM).  Split from sdk.py by what it does: sdk.py is what a bot author reads
(Bot, Match, MatchResult, LegalActions), this module is how the protocol is spoken."""

from __future__ import annotations

import argparse
import logging
import operator
import os
import random
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from concurrent import futures
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena.host import codec
from arena.protocol import PROTOCOL_VERSION
from arena.protocol.lazy import NotDecodable
from arena.sdk import (DEFAULT_WORKERS, SERVICE, STOP_GRACE_S, Bot, LegalActions, Match, MatchResult, _call)
from arena.sdk_address import (ADDRESS_ENV, PORT_ENV, ServeError, _clear_stale_socket, check_address,
                               listen_address, socket_path)
from arena.sdk_request import ShallowRequest
from arena.sdk_request import legal_actions as read_legal_actions
from arena.sdk_request import observation_and_bytes as read_observation
from arena.v1 import bot_pb2, bot_pb2_grpc

log = logging.getLogger("arena.sdk")


def _match_rng(match_id: str, seat: int) -> random.Random:
    # A str seed is hashed with SHA-512 by random.Random: stable across runs and PYTHONHASHSEED.
    return random.Random(f"{match_id}/{seat}")


def _choice(value: Any) -> tuple[int, str]:
    """decide()'s return value as (index, debug); a TypeError names a wrong type."""
    debug = ""
    if isinstance(value, tuple) and len(value) == 2:
        value, debug = value
        if not isinstance(debug, str):
            raise TypeError(f"decide() returned a debug text of type {type(debug).__name__}, not str")
    if isinstance(value, bool):
        raise TypeError("decide() must return an int index into legal_actions, not a bool")
    try:
        return operator.index(value), debug
    except TypeError:
        raise TypeError(
            f"decide() must return an int index into legal_actions, got {type(value).__name__} {value!r}"
        ) from None


#: The reply bytes of ``DecisionReply(action_index=i)`` for the common indices.
_INDEX_REPLIES = [bot_pb2.DecisionReply(action_index=i).SerializeToString() for i in range(1024)]


class _Servicer(bot_pb2_grpc.BotServicer):
    """The four calls of arena.v1.Bot, forwarded to a :class:`Bot`'s hooks."""

    def __init__(self, bot: Bot) -> None:
        self._bot = bot
        self._matches: dict[tuple[str, int], Match] = {}
        self._lock = threading.Lock()
        self._describe = bot_pb2.DescribeReply(
            name=bot.name, version=bot.version, author=bot.author, language=bot.language,
            games=list(bot.games), protocol_version=PROTOCOL_VERSION,
        )

    def Describe(self, request: bot_pb2.DescribeRequest, context: grpc.ServicerContext) -> bot_pb2.DescribeReply:
        return self._describe

    def _hook(self, context: grpc.ServicerContext, match: Match, what: str, call: Any, *args: Any) -> Any:
        """Run a hook with ``Bot.match`` set; an exception becomes an error status (:meth:`_failed`)."""
        _call.match = match
        try:
            return call(*args)
        except Exception as exc:
            self._failed(context, match, what, exc)
        finally:
            _call.match = None

    @staticmethod
    def _failed(context: grpc.ServicerContext, match: Match, what: str, exc: Exception) -> None:
        """Abort the call a hook raised ``exc`` in (from inside the ``except`` clause): INTERNAL,
        the traceback logged; INVALID_ARGUMENT when a part of the request the hook read does
        not decode."""
        if isinstance(exc, NotDecodable):
            code, detail = grpc.StatusCode.INVALID_ARGUMENT, f"the DecisionRequest does not parse: {exc}"
        else:
            log.error("%s raised in match %s seat %d:\n%s", what, match.match_id, match.seat,
                      traceback.format_exc().rstrip())
            code, detail = grpc.StatusCode.INTERNAL, f"{what} raised {type(exc).__name__}: {exc}"
        context.abort(code, detail[:1000])

    def _open(self, context: grpc.ServicerContext, match: Match) -> Match:
        with self._lock:
            known = self._matches.get((match.match_id, match.seat))
            if known is not None:
                return known
            self._matches[(match.match_id, match.seat)] = match
        try:
            self._hook(context, match, "start_match()", self._bot.start_match, match)
        except BaseException:
            with self._lock:
                self._matches.pop((match.match_id, match.seat), None)
            raise
        return match

    def StartMatch(self, request: bot_pb2.StartMatchRequest, context: grpc.ServicerContext) -> bot_pb2.StartMatchReply:
        if request.game not in self._bot.games:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                          f"{self._bot.name} plays {', '.join(self._bot.games)}, not {request.game!r}")
        try:
            board = codec.board_from_proto(request.board) if request.HasField("board") else None
        except codec.CodecError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        match = Match(request.match_id, request.seat, request.num_players, request.variant, request.game, board,
                      _match_rng(request.match_id, request.seat))
        self._open(context, match)
        return bot_pb2.StartMatchReply()

    def Decide(self, request: bot_pb2.DecisionRequest, context: grpc.ServicerContext) -> bot_pb2.DecisionReply:
        return bot_pb2.DecisionReply.FromString(self.decide_bytes(request.SerializeToString(), context))

    def decide_bytes(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        """Decide on the wire: the request's bytes in, the reply's bytes out (what the server
        registers).  The request's top level is parsed now; the observation and the legal
        actions when the bot reads them (:mod:`arena.sdk_request`)."""
        try:
            request = ShallowRequest.FromString(data)
            observation, observation_bytes = read_observation(request.observation)
        except DecodeError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"the DecisionRequest does not parse: {exc}")
        except codec.CodecError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        match = self._matches.get((request.match_id, request.seat))
        if match is None:  # no StartMatch seen (e.g. this process was restarted): start it now
            match = self._late_start(context, request.match_id, request.seat, observation)
        match._observing(observation, observation_bytes)
        match.decision_time_ms, match.time_bank_ms = request.decision_time_ms, request.time_bank_ms
        count = len(request.legal_actions)
        legal = LegalActions._of_request(count, read_legal_actions, data)
        index, debug = self._hook(context, match, "decide()", self._bot.decide, observation, legal), ""
        if type(index) is not int:  # an (index, debug) tuple, or a wrong type said as INTERNAL
            index, debug = self._choice(context, match, index)
        if not 0 <= index < count:
            log.warning("decide() chose index %d of %d legal actions in match %s seat %d (decision %d): "
                        "the host will record an illegal action", index, count, match.match_id,
                        match.seat, request.decision_number)
        if not debug and 0 <= index < len(_INDEX_REPLIES):
            return _INDEX_REPLIES[index]
        try:
            return bot_pb2.DecisionReply(action_index=index, debug=debug).SerializeToString()
        except ValueError as exc:  # an index beyond int32
            context.abort(grpc.StatusCode.INTERNAL, f"decide() returned {index}: {exc}")

    def EndMatch(self, request: bot_pb2.EndMatchRequest, context: grpc.ServicerContext) -> bot_pb2.EndMatchReply:
        with self._lock:
            match = self._matches.pop((request.match_id, request.seat), None)
        if match is None:
            log.warning("EndMatch for match %s seat %d, which this process never saw", request.match_id,
                        request.seat)
            return bot_pb2.EndMatchReply()
        summary = codec.match_result_from_proto(request.result)
        result = MatchResult(request.match_id, request.seat, summary["cash"], summary["places"],
                             summary["termination"], summary["forfeited_seats"], request.forfeited,
                             summary["scores"])
        log.info("match %s seat %d over: %s, place %s", request.match_id, request.seat, result.termination,
                 result.place)
        self._hook(context, match, "end_match()", self._bot.end_match, result)
        return bot_pb2.EndMatchReply()

    def _choice(self, context: grpc.ServicerContext, match: Match, value: Any) -> tuple[int, str]:
        """decide()'s return value that is not an int, as (index, debug); a wrong type aborts the
        call as decide() raising would (checked apart from the call: one Python frame less per
        decision for the common int)."""
        try:
            return _choice(value)
        except TypeError as exc:
            self._failed(context, match, "decide()", exc)
            raise  # _failed aborts; never reached

    def _late_start(self, context: grpc.ServicerContext, match_id: str, seat: int,
                    observation: dict[str, Any]) -> Match:
        """The match of a Decide that came without StartMatch, started now from its observation."""
        try:
            players, variant, game = observation["num_players"], observation["variant"], observation["game"]
        except NotDecodable as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"the DecisionRequest does not parse: {exc}"[:1000])
        return self._open(context, Match(match_id, seat, players, variant, game, None, _match_rng(match_id, seat)))

    def open_matches(self) -> int:
        with self._lock:
            return len(self._matches)


def _check_bot(bot: Bot) -> None:
    if not isinstance(bot, Bot):
        raise ServeError(f"serve() needs an instance of a Bot subclass, got {type(bot).__name__}")
    if type(bot).decide is Bot.decide:
        raise ServeError(f"{type(bot).__name__} does not define decide(observation, legal_actions)")
    for attribute in ("name", "version", "language"):
        value = getattr(bot, attribute)
        if not isinstance(value, str) or not value.strip():
            raise ServeError(f"{type(bot).__name__}.{attribute} must be a non-empty string, got {value!r}")


def _add_servicer(servicer: _Servicer, server: grpc.Server) -> None:
    """As ``bot_pb2_grpc.add_BotServicer_to_server``, but Decide takes and gives bytes (see
    :meth:`_Servicer.decide_bytes`)."""
    def unary(method: Any, request: Any, reply: Any) -> grpc.RpcMethodHandler:
        return grpc.unary_unary_rpc_method_handler(method, request_deserializer=request.FromString,
                                                   response_serializer=reply.SerializeToString)

    handlers = {
        "Describe": unary(servicer.Describe, bot_pb2.DescribeRequest, bot_pb2.DescribeReply),
        "StartMatch": unary(servicer.StartMatch, bot_pb2.StartMatchRequest, bot_pb2.StartMatchReply),
        "Decide": grpc.unary_unary_rpc_method_handler(servicer.decide_bytes),  # bytes both ways
        "EndMatch": unary(servicer.EndMatch, bot_pb2.EndMatchRequest, bot_pb2.EndMatchReply),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_registered_method_handlers(SERVICE, handlers)


def make_server(bot: Bot, port: int | None = None, *, host: str = "127.0.0.1", address: str | None = None,
                max_workers: int = DEFAULT_WORKERS) -> grpc.Server:
    """A started gRPC server serving ``bot`` (stop it with ``server.stop(grace)``).

    It listens on ``address`` (``unix:/path/bot.sock`` or ``HOST:PORT``) if given, else on
    ``host:port``.  A socket file left by a process that is gone is replaced; gRPC removes
    the socket file when the server stops.
    """
    _check_bot(bot)
    if (port is None) == (address is None):
        raise ServeError("make_server() needs exactly one of a port and an address")
    if address is None:
        address = f"{host}:{port}"
    else:
        check_address(address)
    path = socket_path(address)
    if path is not None:
        _clear_stale_socket(address, path)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="arena-bot"),
        options=[("grpc.so_reuseport", 0)],  # never share a port with another process silently
    )
    _add_servicer(_Servicer(bot), server)
    try:
        bound = server.add_insecure_port(address)
    except RuntimeError as exc:
        bound = 0
        reason = str(exc)
    else:
        reason = "bind failed"
    if bound == 0:
        hint = "is the folder writable?" if path is not None else "is the port taken?"
        raise ServeError(f"cannot listen on {address} ({reason}): {hint}")
    server.start()
    return server


def _watch_stdin(stop: "_Stop") -> None:
    """Block on stdin; at EOF (the host is gone) stop at once."""
    fd = sys.stdin.fileno()
    try:
        while os.read(fd, 65536):
            pass
    except OSError as exc:
        log.warning("stdin unreadable (%s): treating it as closed", exc)
    stop.request("stdin closed: the host is gone", grace=0.0)


class _Stop:
    """Why and how fast the server should stop; requested once, from a thread or a signal handler.

    A signal handler only sets attributes (taking the event's lock there could deadlock
    with the interrupted main thread); the main thread notices within ``POLL_S``.
    """

    POLL_S = 0.25

    def __init__(self) -> None:
        self.event = threading.Event()
        self.requested = False
        self.reason = ""
        self.grace = STOP_GRACE_S

    def request(self, reason: str, grace: float, *, from_signal: bool = False) -> None:
        if not self.requested:
            self.reason, self.grace, self.requested = reason, grace, True
        if not from_signal:
            self.event.set()

    def wait(self) -> None:
        while not (self.event.wait(self.POLL_S) or self.requested):
            pass


def serve(bot: Bot, argv: Sequence[str] | None = None, *, max_workers: int = DEFAULT_WORKERS) -> None:
    """Serve ``bot`` until the host goes away (stdin EOF) or SIGTERM/SIGINT; then return.

    Where it listens: ``$ARENA_BOT_ADDRESS`` if set (the host always sets it), else
    ``--address ADDR`` (``unix:/path/bot.sock`` or ``HOST:PORT``), else ``--port N``
    (else ``$ARENA_BOT_PORT``) on 127.0.0.1.  Command line (``argv``, default
    ``sys.argv[1:]``; unknown options are left to the bot): those two and
    ``--ignore-stdin`` (keep running when stdin is closed, for runs by hand with no host).
    """
    parser = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]) or "bot",
                                     description=f"Arena bot {bot.name!r}: serves arena.v1.Bot over gRPC")
    parser.add_argument("--address", help=f"unix:/path/bot.sock or HOST:PORT (${ADDRESS_ENV}, when set, wins)")
    parser.add_argument("--port", help=f"port on 127.0.0.1, if there is no address (default: ${PORT_ENV})")
    parser.add_argument("--ignore-stdin", action="store_true",
                        help="do not exit when stdin reaches EOF (for runs without a host)")
    args, _ = parser.parse_known_args(argv)
    try:
        address, source = listen_address(args, os.environ)
    except ServeError as exc:
        parser.error(str(exc))
    if not logging.getLogger().handlers:
        logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                            format=f"%(asctime)s {bot.name} %(levelname)s %(message)s")
    if source == ADDRESS_ENV and (args.address is not None or args.port is not None):
        log.info("%s is set: it wins over --address/--port", ADDRESS_ENV)
    try:
        server = make_server(bot, address=address, max_workers=max_workers)
    except ServeError as exc:
        parser.exit(1, f"{parser.prog}: error: {exc}\n")
    stop = _Stop()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda num, _frame: stop.request(signal.Signals(num).name, STOP_GRACE_S,
                                                                   from_signal=True))
    if not args.ignore_stdin:
        if sys.stdin is None:
            log.warning("no stdin to watch: this bot will not notice when the host goes away")
        else:
            threading.Thread(target=_watch_stdin, args=(stop,), name="arena-stdin", daemon=True).start()
    log.info("%s %s serving on %s (from %s, pid %d)", bot.name, bot.version, address, source, os.getpid())
    stop.wait()
    log.info("stopping: %s", stop.reason)
    # Whatever a hook may still be doing, the process ends soon after.
    deadline = threading.Timer(stop.grace + 2.0, os._exit, args=(0,))
    deadline.daemon = True
    deadline.start()
    server.stop(stop.grace).wait()
    logging.shutdown()
    sys.stderr.flush()
