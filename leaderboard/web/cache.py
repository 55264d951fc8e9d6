"""Rendered answers kept while the store's data and the rating fits are unchanged.

Making a page at a million matches takes tens of milliseconds of Python (a leaderboard's
rows, matrices and template; a bot page's queries); ten clients on two cores cannot
wait for that on every view.  :class:`ResponseCache` keeps each answer (body, status,
headers) under its address and the **data version** it was made at: the store's
:func:`leaderboard.queries.data_version` (matches stored, bots and versions, tournaments'
changes, worker exclusions: one query over a few small rows) and the number of rating fits
made so far.  The version is read before the answer is made, so an answer made while a
match was being stored is kept under the older version and the next view makes it
again: a new match, bot, tournament status or fit shows at once.  What depends on the
clock alone (how old a fit is, a running tournament's rate and time to go) is at most
``ttl_s`` seconds old: an answer is made again after that.

Bounded: at most ``max_bytes`` of bodies (least recently used dropped first), no body
over ``max_bytes // 8``.  Only 200 answers are kept.  A request with ``Cache-Control:
no-cache`` is answered afresh (and the fresh answer kept), as HTTP says.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

#: Bodies kept at most, all answers together (bytes); ``arena serve --cache-mb``.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: How old an answer may be, at most, whatever the data version (seconds).
DEFAULT_TTL_S = 5.0


@dataclass(frozen=True)
class _Entry:
    version: Hashable
    made: float  # time.monotonic() when the version was read
    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes


class ResponseCache:
    """Answers by (address, data version); see the module's docstring."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, ttl_s: float = DEFAULT_TTL_S) -> None:
        if max_bytes < 0 or ttl_s < 0:
            raise ValueError("max_bytes and ttl_s must be at least 0")
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable, version: Hashable) -> Response | None:
        """The kept answer of ``key`` if it was made at ``version`` less than ``ttl_s`` ago."""
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.version != version or now - entry.made >= self.ttl_s:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
        response = Response(entry.body, status_code=entry.status)
        response.raw_headers = list(entry.headers)
        return response

    def put(self, key: Hashable, version: Hashable, made: float, response: Response) -> None:
        """Keep ``response`` (a 200 with its whole body) as ``key``'s answer at ``version``."""
        body = getattr(response, "body", None)
        if response.status_code != 200 or not isinstance(body, bytes) or response.background is not None:
            return
        if len(body) > self.max_bytes // 8:
            return
        entry = _Entry(version, made, response.status_code, tuple(response.raw_headers), body)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= len(old.body)
            self._entries[key] = entry
            self.bytes += len(body)
            while self.bytes > self.max_bytes and self._entries:
                _, dropped = self._entries.popitem(last=False)
                self.bytes -= len(dropped.body)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


def cached(version: Callable[[Request], Hashable]) -> Callable[[Callable[[Request], Response]],
                                                               Callable[[Request], Response]]:
    """A request handler whose answers are kept in the app's :class:`ResponseCache`
    (``request.app.state.responses``) under the request's address and ``version(request)``."""

    def wrap(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        @functools.wraps(handler)
        def answer(request: Request) -> Response:
            cache: ResponseCache | None = getattr(request.app.state, "responses", None)
            if cache is None or cache.max_bytes == 0:
                return handler(request)
            made = time.monotonic()
            now = version(request)  # before the answer is made: a change meanwhile makes it again next time
            key = (request.scope.get("root_path", ""), request.url.path, request.url.query)
            fresh = "no-cache" in request.headers.get("cache-control", "").lower()
            found = None if fresh else cache.get(key, now)
            if found is not None:
                return found
            response = handler(request)
            cache.put(key, now, made, response)
            return response

        return answer

    return wrap


__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TTL_S", "ResponseCache", "cached"]
