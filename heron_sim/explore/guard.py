"""Only the explorer's own page drives the explorer.

The server listens on 127.0.0.1 only, yet any page the designer opens in the same browser can
send it requests: a form, or a ``fetch`` with a ``text/plain`` body, needs no permission from the
browser (no CORS preflight), so a page elsewhere could start games on the designer's machine or
cancel theirs; and a page whose own name is rebound to 127.0.0.1 (DNS rebinding) would even read
the answers. :class:`OwnPageOnly`, the ASGI middleware every request goes through, refuses:

- a ``Host`` that is not this server (400): a loopback name (127.0.0.1, localhost, [::1], or the
  address the server listens on) with the port it listens on;
- on the API (``/api/...``) and for every method but GET, HEAD and OPTIONS (403): an ``Origin``
  other than the page's own (``http://`` one of those names, that port; ``null`` too), and a
  ``Sec-Fetch-Site`` of ``cross-site`` or ``same-site`` (another site, or another port of this
  machine: the browser says where the request comes from);
- for every method but GET, HEAD and OPTIONS (415): a ``Content-Type`` other than
  ``application/json``: a browser sends a JSON body to another origin only after a preflight
  that this server never grants, so no page elsewhere can send one.

A request without ``Origin`` (a script, the test client) is served when it sends JSON: a
browser sends an ``Origin`` with every POST. The page itself (a link followed from
elsewhere) and its static files are served whatever the ``Origin`` and ``Sec-Fetch-Site``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .form import EXTRA

#: The names of this machine a request may address the server by (besides its own address).
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: The methods that change nothing (the others must be JSON from the page itself).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: ``Sec-Fetch-Site`` values of a request sent by a page of another origin.
FOREIGN_SITES = frozenset({"cross-site", "same-site"})
DEFAULT_PORTS = {"http": 80, "https": 443}

Refusal = tuple[int, str]  # (status, message)


def _address(netloc: str, scheme: str) -> tuple[str, int | None] | None:
    """(name, port) of a ``host[:port]`` (the scheme's default port when it has none); None when
    it is not one (a user name, a path, a port out of range)."""
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or parts.netloc != netloc or "@" in netloc:
        return None
    return parts.hostname, DEFAULT_PORTS.get(scheme) if port is None else port


def _is_own_host(netloc: str, scope: Scope) -> bool:
    """Whether ``host[:port]`` names this server: a loopback name, or the address it listens on
    (``scope["server"]``: the test client's ``testserver``), with the port it listens on."""
    address = _address(netloc, scope.get("scheme", "http"))
    server = scope.get("server")
    names = LOOPBACK | {str(server[0]).lower()} if server else LOOPBACK
    port = server[1] if server else None  # no server address (a Unix socket): any port
    return address is not None and address[0] in names and port in (None, address[1])


def _is_own_origin(origin: str, scope: Scope) -> bool:
    """Whether an ``Origin`` (``scheme://host[:port]``) is the page's own."""
    scheme, sep, netloc = origin.partition("://")
    return bool(sep) and scheme.lower() == scope.get("scheme", "http") and _is_own_host(netloc, scope)


def _host_refusal(scope: Scope, headers: Headers) -> Refusal | None:
    host = headers.get("host", "")
    if not _is_own_host(host, scope):
        return 400, f"request refused: Host {host!r} is not this explorer (127.0.0.1 or localhost, its port)"
    return None


def _origin_refusal(scope: Scope, headers: Headers) -> Refusal | None:
    origin = headers.get("origin")
    if origin is not None and not _is_own_origin(origin, scope):
        return 403, f"request refused: it comes from another page ({origin!r}), not the explorer's own"
    return None


def _site_refusal(scope: Scope, headers: Headers) -> Refusal | None:
    site = headers.get("sec-fetch-site", "").lower()
    if site in FOREIGN_SITES:
        return 403, f"request refused: it comes from another page (Sec-Fetch-Site: {site})"
    return None


def _type_refusal(scope: Scope, headers: Headers) -> Refusal | None:
    kind = headers.get("content-type")
    if kind is None or kind.split(";")[0].strip().lower() != "application/json":
        return 415, f"request refused: the body must be application/json, not {kind or 'untyped'!r}"
    return None


def _checks(scope: Scope) -> list:
    """The checks a request goes through: the host always; where it comes from on the API and
    for a change; what it sends for a change."""
    changes = scope["method"] not in SAFE_METHODS
    checks = [_host_refusal]
    if changes or scope["path"].startswith("/api/"):
        checks += [_origin_refusal, _site_refusal]
    if changes:
        checks.append(_type_refusal)
    return checks


def refusal(scope: Scope) -> Refusal | None:
    """Why the explorer refuses an HTTP request (status, message), or None: it is served."""
    headers = Headers(scope=scope)
    return next((found for check in _checks(scope) if (found := check(scope, headers))), None)


class OwnPageOnly:
    """ASGI middleware: a refused request gets its status and ``{"errors": {"extra": message}}``
    (the shape of the explorer's other errors), and reaches no route."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = refusal(scope) if scope["type"] == "http" else None
        if found is None:
            await self.app(scope, receive, send)
            return
        status, message = found
        await JSONResponse({"errors": {EXTRA: message}}, status_code=status)(scope, receive, send)
