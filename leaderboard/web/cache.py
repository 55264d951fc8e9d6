"""Rendered answers kept while the store's data and the rating fits are unchanged.

Making a page at a million matches takes tens of milliseconds of Python (a leaderboard's
rows, matrices and template; a bot page's queries); ten clients on two cores cannot
wait for that on every view.  :class:`ResponseCache` keeps each answer (body, status,
headers) under its address and the **data version** it was made at: the store's
:func:`leaderboard.tallies.data_version` (matches stored, bots and versions, tournaments'
changes, worker exclusions: one query over a few small rows).  The version is read before
the answer is made, so an answer made while a match was being stored is kept under the
older version and the next view makes it again: a new match, bot or tournament status
shows at once.  An answer is also kept with what a :class:`Tracker` noted it was made
from (the fit number of each rating fit it was given, :mod:`leaderboard.web.tracked`), and
is made again when that moved: a new fit of one of its scopes shows at once, and an answer
made from the newest fit is not made again because that fit ended while it was asked for.
What depends on the clock alone (how old a fit is, a running tournament's rate and time
to go) is at most ``ttl_s`` seconds old: an answer is made again after that.

Bounded: at most ``max_bytes`` for all answers together, counting each one's body,
headers, address (a query string can be long, and any parameter makes a new address)
and :data:`ENTRY_OVERHEAD` bytes for the rest (least recently used dropped first); no
answer over ``max_bytes // 8``; at most :data:`MAX_ENTRIES` answers.  A request with
``Cache-Control: no-cache`` is answered afresh (and the fresh answer kept), as HTTP says.

Requests for the same address that miss at once make the answer once: the first makes
it, the others wait for it (after a new match, ten clients viewing ``/`` cost one page).
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response

#: Bodies kept at most, all answers together (bytes); ``arena serve --cache-mb``.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: How old an answer may be, at most, whatever the data version (seconds).
DEFAULT_TTL_S = 5.0
#: From this share of its ttl on, an answer is made again by the first view, while the views
#: meanwhile still get it (it is not older than its ttl): no view waits when only the clock passed.
REFRESH_SHARE = 0.8
#: Answers kept at most, whatever their size.
MAX_ENTRIES = 2000
#: What an answer costs beyond its body, headers and address (the entry, the key's tuple).
ENTRY_OVERHEAD = 400


class Tracker(Protocol):
    """What else an answer was made from, noted while it is made (the rating fits it used,
    :class:`leaderboard.web.tracked.TrackedRatings`): :meth:`begin` before the answer is made
    (in the thread that makes it), :meth:`end` after it (what it used), :meth:`current` at
    each later view (whether what it used is unchanged)."""

    def begin(self) -> None: ...

    def end(self) -> Hashable: ...

    def current(self, used: Any) -> bool: ...


@dataclass(frozen=True)
class _Entry:
    version: Hashable
    made: float  # time.monotonic() when the version was read
    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    size: int  # what it counts for against max_bytes
    used: Hashable = None  # what else it was made from (a Tracker's end()), checked at each view
    ttl_s: float | None = None  # how old it may be, if less than the cache's ttl_s


def _size(key: Hashable, headers: tuple[tuple[bytes, bytes], ...], body: bytes) -> int:
    address = sum(len(part) for part in key if isinstance(part, (str, bytes))) if isinstance(key, tuple) else 0
    return len(body) + sum(len(n) + len(v) for n, v in headers) + address + ENTRY_OVERHEAD


class ResponseCache:
    """Answers by (address, data version); see the module's docstring."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, ttl_s: float = DEFAULT_TTL_S) -> None:
        if max_bytes < 0 or ttl_s < 0:
            raise ValueError("max_bytes and ttl_s must be at least 0")
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._making: dict[Hashable, threading.Lock] = {}  # addresses whose answer is being made
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable, version: Hashable, tracker: Tracker | None = None) -> Response | None:
        """The kept answer of ``key`` if it was made at ``version`` less than ``ttl_s`` ago (and,
        with a ``tracker``, what else it used is still current)."""
        return self.lookup(key, version, tracker)[0]

    def lookup(self, key: Hashable, version: Hashable, tracker: Tracker | None = None,
               count_due: bool = True) -> tuple[Response | None, bool]:
        """As :meth:`get`, and whether the answer is due to be made again: older than
        :data:`REFRESH_SHARE` of its ttl (still valid; ``count_due``: counted as a hit)."""
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(key)
            ttl = self.ttl_s if entry is None or entry.ttl_s is None else min(self.ttl_s, entry.ttl_s)
            if entry is None or entry.version != version or now - entry.made >= ttl \
                    or (tracker is not None and not tracker.current(entry.used)):
                self.misses += 1
                return None, False
            due = now - entry.made >= REFRESH_SHARE * ttl
            if count_due or not due:
                self._entries.move_to_end(key)
                self.hits += 1
        response = Response(entry.body, status_code=entry.status)
        response.raw_headers = list(entry.headers)
        return response, due

    def hit(self) -> None:
        """Count a view given a kept answer that :meth:`lookup` said was due (another view remakes it)."""
        with self._lock:
            self.hits += 1

    def put(self, key: Hashable, version: Hashable, made: float, response: Response, used: Hashable = None,
            ttl_s: float | None = None) -> None:
        """Keep ``response`` (a 200 with its whole body) as ``key``'s answer at ``version``
        (``used``: what else it was made from, for the tracker of :meth:`get`; ``ttl_s``: how
        old it may be, at most, if less than the cache's ``ttl_s``)."""
        body = getattr(response, "body", None)
        if response.status_code != 200 or not isinstance(body, bytes) or response.background is not None:
            return
        headers = tuple(response.raw_headers)
        size = _size(key, headers, body)
        if size > self.max_bytes // 8:
            return
        entry = _Entry(version, made, response.status_code, headers, body, size, used, ttl_s)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old.size
            self._entries[key] = entry
            self.bytes += size
            while (self.bytes > self.max_bytes or len(self._entries) > MAX_ENTRIES) and self._entries:
                _, dropped = self._entries.popitem(last=False)
                self.bytes -= dropped.size

    def making(self, key: Hashable) -> threading.Lock:
        """The lock held while ``key``'s answer is made (one maker per address at a time)."""
        with self._lock:
            lock = self._making.get(key)
            if lock is None:
                lock = self._making[key] = threading.Lock()
            return lock

    def made(self, key: Hashable, lock: threading.Lock) -> None:
        """Forget ``key``'s lock once no one waits for it (the map holds addresses in flight only)."""
        with self._lock:
            if self._making.get(key) is lock and not lock.locked():
                del self._making[key]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


def cached(version: Callable[[Request], Hashable],
           tracker: Callable[[Request], Tracker | None] | None = None,
           ttl_s: Callable[[], float] | None = None,
           ) -> Callable[[Callable[[Request], Response]], Callable[[Request], Response]]:
    """A request handler whose answers are kept in the app's :class:`ResponseCache`
    (``request.app.state.responses``) under the request's address and ``version(request)``;
    with ``tracker``, each answer also with what the request's :class:`Tracker` noted it used;
    with ``ttl_s``, each at most ``ttl_s()`` seconds old (if less than the cache's; 0: not kept)."""

    def wrap(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        @functools.wraps(handler)
        def answer(request: Request) -> Response:
            cache: ResponseCache | None = getattr(request.app.state, "responses", None)
            most = None if ttl_s is None else ttl_s()
            if cache is None or cache.max_bytes == 0 or most == 0:
                return handler(request)
            made = time.monotonic()
            now = version(request)  # before the answer is made: a change meanwhile makes it again next time
            track = tracker(request) if tracker is not None else None
            key = (request.scope.get("root_path", ""), request.url.path, request.url.query)
            fresh = "no-cache" in request.headers.get("cache-control", "").lower()
            found, due = (None, False) if fresh else cache.lookup(key, now, track, count_due=False)
            if found is not None and not due:
                return found
            lock = cache.making(key)
            try:
                if found is not None and not lock.acquire(blocking=False):
                    cache.hit()  # due, and another view is making it again: this one is still valid
                    return found
                if found is None:
                    lock.acquire()  # another request making this answer: wait for it, then take it
                try:
                    if not fresh:  # made meanwhile by the view that held the lock? (one come to refresh takes a fresher one only)
                        again, again_due = cache.lookup(key, now, track, count_due=found is None)
                        if again is not None and (found is None or not again_due):
                            return again
                    return _make(handler, request, cache, key, now, made, most, track)
                finally:
                    lock.release()
            finally:
                cache.made(key, lock)

        return answer

    return wrap


def _make(handler: Callable[[Request], Response], request: Request, cache: ResponseCache, key: Hashable,
          version: Hashable, made: float, ttl_s: float | None, track: Tracker | None) -> Response:
    """Make the answer and keep it, with what ``track`` noted it used."""
    if track is not None:
        track.begin()  # what it uses is noted (and read) as it is asked for
    try:
        response = handler(request)
    finally:
        used = track.end() if track is not None else None
    cache.put(key, version, made, response, used, ttl_s)
    return response


__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TTL_S", "ENTRY_OVERHEAD", "MAX_ENTRIES", "ResponseCache", "Tracker",
           "cached"]
