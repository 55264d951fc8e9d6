"""Security headers on every response of the web app.

The pages show names and text chosen by bot authors, so the browser is told to run
nothing but this site's own scripts (no inline script, no inline style attribute in
markup), to guess no content types, never to show the pages inside another site's
frame, and to send no referrer to other sites.

The files under ``/static/`` (the viewers' modules import one another) are sent with
``Cache-Control: no-cache``: the browser keeps them but asks again each time (an
ETag answers 304 when unchanged), so after an upgrade a new page script is never
paired with an old cached module it imports.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The Content-Security-Policy of every response.  ``style-src 'self'``: the pages
#: use the stylesheet only (scripts may still set CSSOM properties, which CSP allows).
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

#: Every header added, by name.
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
}

_ENCODED = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in SECURITY_HEADERS.items()]
_REVALIDATE = [(b"cache-control", b"no-cache")]


class SecurityHeaders:
    """ASGI middleware: adds :data:`SECURITY_HEADERS` to every HTTP response (errors too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        wanted = _ENCODED + _REVALIDATE if scope["path"].startswith("/static/") else _ENCODED

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in wanted if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
