"""Headers, cookies and host names: what every answer carries against framing, sniffing and rebinding.

- A Content-Security-Policy without inline script or eval (htmx is told so
  in base.html), no framing, `nosniff`, no referrer to other sites, HSTS on
  HTTPS.
- The session cookie (it holds the seat tokens) is `Secure` when it was set
  over HTTPS, always `HttpOnly` and `SameSite=Lax`.
- Trusted hosts: a request (pages, API and Socket.IO alike) whose Host header
  names another host is refused, so a DNS-rebinding page cannot reach the
  server through a name of its own.
"""

from flask import request
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


class TrustedHosts:
    """WSGI middleware: a Host header outside `hosts` gets 400 before anything runs."""

    def __init__(self, app, hosts):
        self.app = app
        self.hosts = list(hosts)

    def __call__(self, environ, start_response):
        host = environ.get("HTTP_HOST")  # HTTP/1.0 without one reached our own address
        if host is not None and not host_is_trusted(host.lower(), self.hosts):  # host names ignore case
            refused = BadRequest(
                "This server does not answer to that host name. Its owner can add it with --public-host NAME."
            )
            return refused(environ, start_response)
        return self.app(environ, start_response)


def init_app(app, trusted_hosts=None):
    """Headers on every answer, the cookie rule, and (when given) the trusted host names."""
    app.session_interface = SessionInterface()

    @app.after_request
    def _headers(response):
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if request.is_secure:
            response.headers.setdefault("Strict-Transport-Security", HSTS)
        return response

    if trusted_hosts:
        app.wsgi_app = TrustedHosts(app.wsgi_app, trusted_hosts)
