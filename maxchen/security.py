"""Headers, cookies and host names: what every answer (Socket.IO's too) carries against framing, sniffing and rebinding.

- A Content-Security-Policy without inline script or eval (htmx is told so
  in base.html), no framing, `nosniff`, no referrer to other sites, HSTS on
  HTTPS.
- The session cookie (it holds the seat tokens) is `Secure` when it was set
  over HTTPS, always `HttpOnly` and `SameSite=Lax`.
- Trusted hosts: a request (pages, API and Socket.IO alike) whose Host header
  names another host is refused, so a DNS-rebinding page cannot reach the
  server through a name of its own.
- Same origin: a state-changing request that a page of another site sends is
  refused (403); the API and Socket.IO carry their own credentials.
- The bearer token of the API's requests is read here, once.
"""

from urllib.parse import urlsplit

from flask import abort, current_app, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.exceptions import BadRequest
from werkzeug.sansio.utils import host_is_trusted

CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
HSTS = "max-age=31536000"


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed cookie, `Secure` whenever the request came over HTTPS."""

    def get_cookie_secure(self, app):
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


class Guard:
    """WSGI middleware around everything, Socket.IO's answers included.

    Every answer carries `HEADERS` (and HSTS over HTTPS) unless it set its
    own; a Host header outside `hosts` (when given) gets 400 before anything
    runs.
    """

    def __init__(self, app, hosts=None):
        self.app = app
        self.hosts = list(hosts or ())

    def __call__(self, environ, start_response):
        extra = dict(HEADERS)
        if environ.get("wsgi.url_scheme") == "https":
            extra["Strict-Transport-Security"] = HSTS

        def respond(status, headers, exc_info=None):
            present = {name.lower() for name, _ in headers}
            headers = [*headers, *((k, v) for k, v in extra.items() if k.lower() not in present)]
            return start_response(status, headers, exc_info)

        host = environ.get("HTTP_HOST")  # HTTP/1.0 without one reached our own address
        if self.hosts and host is not None and not host_is_trusted(host.lower(), self.hosts):  # names ignore case
            refused = BadRequest(
                "This server does not answer to that host name. Its owner can add it with --public-host NAME."
            )
            return refused(environ, respond)
        return self.app(environ, respond)


LOOPBACK = ("127.0.0.1", "::1")


class Proxied:
    """Behind `hops` proxies (werkzeug's ProxyFix): their X-Forwarded-For and -Proto are believed, but only on
    connections that come from one of the proxies' `addresses`; anyone else who reaches the server directly
    is taken at their own address, whatever headers they send."""

    def __init__(self, app, hops: int, addresses=LOOPBACK):
        from werkzeug.middleware.proxy_fix import ProxyFix

        self.app = app
        self.fixed = ProxyFix(app, x_for=hops, x_proto=hops)
        self.addresses = frozenset(addresses)

    def __call__(self, environ, start_response):
        trusted = environ.get("REMOTE_ADDR") in self.addresses
        return (self.fixed if trusted else self.app)(environ, start_response)


def bearer_token() -> str | None:
    """The token of the request's `Authorization: Bearer <token>`, if it has one."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def same_origin_posts():
    """Refuse state-changing requests that a page of another site sends."""
    if request.method in ("GET", "HEAD", "OPTIONS") or request.path.startswith(("/api/", "/socket.io")):
        return None
    origin = request.headers.get("Origin")
    if origin:
        mine = urlsplit(request.host_url)
        theirs = urlsplit(origin)
        if (theirs.scheme, theirs.netloc) != (mine.scheme, mine.netloc):
            # Behind a proxy, the usual cause: it does not pass the Host with its port, or the scheme.
            current_app.logger.warning("refused a POST from %s to %s: another origin", origin, request.host_url)
            abort(403)
    elif request.headers.get("Sec-Fetch-Site") == "cross-site":
        abort(403)
    return None


def init_app(app, trusted_hosts=None):
    """The cookie rule, and headers and (when given) trusted host names on every answer."""
    app.session_interface = SessionInterface()
    app.wsgi_app = Guard(app.wsgi_app, trusted_hosts)
