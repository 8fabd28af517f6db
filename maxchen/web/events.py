"""Socket.IO handlers: thin; every change goes through `Rooms`, every push through `Live`.

Three kinds of socket: the room page (auth {"room"} and the session cookie)
gets rendered parts; a bot (auth {"token"}) gets its JSON view; a watcher
(auth {"room", "watch": true}, no seat) gets the public parts only. A page
of a class (auth {"class"}) hears `class` events; a class board (with
"watch": true) gets every table's public parts and the pooled statistics.
"""

import contextlib

import engineio.exceptions
from flask import request, url_for
from flask_socketio import ConnectionRefusedError, join_room  # noqa: A004 - sends its data to the client
from socketio.packet import ACK, BINARY_ACK, BINARY_EVENT, CONNECT, CONNECT_ERROR, DISCONNECT, EVENT, Packet

from .. import messages
from ..classroom import normalize_class_code
from ..errors import IllegalMove
from ..live import ClassLive, Live, channel
from ..presence import Socket
from ..rooms import normalize_code
from . import forms
from .errors import toast
from .locale import LANGUAGES, select_locale
from .seats import browser_classes, browser_seats

RELEASE_AFTER = 1  # seconds a gone seat's socket stays open for what it is still told
OUTBOX = 128  # packets waiting for a connection that reads none: it is closed at this many


class TextPacket(Packet):
    """Our events carry JSON only: no search for binary data through every message sent."""

    uses_binary_events = False

    def decode(self, encoded_packet):
        """A packet that is not ours (broken or too deep JSON, an event without a name, binary) is ignored."""
        try:
            attachments = super().decode(encoded_packet)
        except (ValueError, IndexError, TypeError):
            attachments = None
        # Binary events are not ours either: python-socketio would keep every frame a packet
        # announces (999,999,999 of them, if it says so) until they have all come.
        binary = self.packet_type in (BINARY_EVENT, BINARY_ACK)
        unknown = self.packet_type not in KNOWN  # python-socketio raises on it, a traceback in the log
        if attachments is None or binary or unknown or (self.packet_type == EVENT and not _named(self.data)):
            # Our own event `unreadable`, which refuses it: answered if the sender asked for an answer
            # (an ack id), never handed on (python-socketio itself fails on a nameless one).
            asked = self.id if self.packet_type in (EVENT, BINARY_EVENT) else None
            self.packet_type, self.namespace, self.id, self.data = EVENT, "/", asked, [UNREADABLE]
            return 0
        return attachments


UNREADABLE = "unreadable"  # what an event no JSON reader or handler could take becomes
KNOWN = (CONNECT, DISCONNECT, EVENT, ACK, CONNECT_ERROR, BINARY_EVENT, BINARY_ACK)


def _named(data) -> bool:
    return isinstance(data, list) and bool(data) and isinstance(data[0], str)


def refuse_on(socketio, errors) -> None:
    """An event that fails with one of `errors` (the store away) is answered with `store_down`."""

    @socketio.on_error_default
    def _failed(error):
        if isinstance(error, errors):
            return messages.answer(IllegalMove("store_down"))
        raise error


class Transport:
    """What the rooms and the pushes ask of Socket.IO: send, close a replaced socket, let a gone one go."""

    def __init__(self, socketio):
        self.socketio = socketio

    def emit(self, event, data, to, skip=None, local=False):
        """To a socket or a channel in any process (through the message queue), or only this one's (`local`)."""
        self.socketio.emit(event, data, to=to, skip_sid=skip, ignore_queue=local)

    def close(self, socket):
        """A newer socket of the same seat took this one's place."""
        self.socketio.emit("replaced", {"room": socket.code}, to=socket.sid)
        self.socketio.server.disconnect(socket.sid)

    def release(self, socket):
        """Its seat is gone (left or removed): no more pushes of the room, not even the public ones."""
        if socket.kind == "html":
            self.socketio.server.leave_room(socket.sid, channel(socket.code, socket.lang))
        self.socketio.start_background_task(self._let_go, socket.sid)

    def _let_go(self, sid):
        self.socketio.sleep(RELEASE_AFTER)  # first its last words go out: "removed", the leaver's own answer
        self.socketio.server.disconnect(sid)


def init_app(app, socketio, rooms, live: Live, class_live: ClassLive) -> None:
    """Register the handlers: each parses, makes one call into `rooms` (or the classes) and answers."""
    classes = app.extensions["maxchen.classes"]
    throttle = app.extensions["maxchen.throttle"]

    # Every packet a connection sends is counted before anything is done with it, Engine.IO's
    # own (pongs, upgrades) too: a connection over its budget is closed (its packets would only
    # queue up work). And a connection that stops reading is closed before its outbox grows.
    server = socketio.server
    handle_connect, handle_gone = server._handle_eio_connect, server._handle_eio_disconnect

    def guarded(eio_sid, environ):
        sock = server.eio.sockets.get(eio_sid)
        if sock is not None:
            _guard(sock, environ.get("REMOTE_ADDR", ""))
        return handle_connect(eio_sid, environ)

    def _guard(sock, address):
        receive, send = sock.receive, sock.send

        def counted(pkt):
            if not throttle.packet(sock.sid, address):
                app.logger.warning("closed a connection from %s: too many packets", address)
                sock.close(wait=False, abort=True)
                raise engineio.exceptions.SocketIsClosedError
            receive(pkt)

        closing = []

        def bounded(pkt):
            if sock.queue.qsize() >= OUTBOX:
                if not closing:  # closed apart: a push holds its room's lock, and the close wants it too
                    closing.append(True)
                    app.logger.warning("closed a connection from %s: it stopped reading", address)
                    socketio.start_background_task(sock.close, wait=False, abort=True)
                return
            send(pkt)

        sock.receive, sock.send = counted, bounded

    def gone(eio_sid, reason):
        throttle.packets.forget(eio_sid)
        return handle_gone(eio_sid, reason)

    server.eio.on("connect", guarded)
    server.eio.on("disconnect", gone)

    @socketio.on("connect")
    def connect(auth):
        """A page, a bot or a watcher connects; it gets the whole room at once.

        The others see the new connection in the players area (nothing else).
        """
        if rooms.presence.get(request.sid) or _established():  # a client event named "connect"
            return messages.answer(IllegalMove("unknown_event"))
        auth = auth if isinstance(auth, dict) else {}
        address = request.remote_addr or ""
        if "class" in auth:
            return _class_socket(auth, address)
        try:
            seat = _bot_seat(auth)
            # A guesser behind the same router must not cut a seated player off.
            guess = seat is None and not _page_holds_seat(auth)
            with throttle.attempt(address) if guess else contextlib.nullcontext():  # guessing codes or tokens
                socket = _socket(auth, seat)
            if socket.kind == "html":
                join_room(channel(socket.code, socket.lang))
            # The board of a browser seated at the table always gets in: strangers cannot crowd it out.
            rooms.connect(socket, capped=socket.player is not None or socket.code not in browser_seats())
        except IllegalMove as error:
            # The page reads the code in `data` (socket.io's connect_error); `message` is for people.
            refusal = messages.answer(error, _lang(auth))["error"]
            raise ConnectionRefusedError(refusal["message"], refusal) from None
        return None

    def _class_socket(auth, address):
        """A page of a class: the teacher's desk, a waiting student, or a class board (`watch`)."""
        try:
            token = isinstance(auth["class"], str) and browser_classes().get(auth["class"].upper())
            with contextlib.nullcontext() if token else throttle.attempt(address):  # guessing codes
                code = normalize_class_code(auth["class"])
                classes.load(code)
            role = _class_role(code, token) if token else None
            if role is None:
                throttle.watcher(address)
            watch = auth.get("watch") is True
            desk = role == "teacher" and not watch
            class_live.join(request.sid, code, _lang(auth), watch, role is not None, desk)
            join_room(ClassLive.channel(code))
            if desk:
                join_room(ClassLive.desk(code))
            if watch:
                join_room(ClassLive.channel(code, _lang(auth)))
        except IllegalMove as error:
            refusal = messages.answer(error, _lang(auth))["error"]
            raise ConnectionRefusedError(refusal["message"], refusal) from None

    def _class_role(code, token) -> str | None:
        try:
            return classes.role(code, token)[0]
        except IllegalMove:
            return None

    def _bot_seat(auth) -> tuple[str, str] | None:
        """A bot's (room code, player), looked up once; None for a page, a watcher or a wrong token."""
        token = auth.get("token")
        try:
            return None if token is None else rooms.locate(token)
        except IllegalMove:
            return None

    def _socket(auth, seat) -> Socket:
        token = auth.get("token")
        if token is not None:
            code, player = seat or rooms.locate(token)  # a wrong token is refused here
            return Socket(request.sid, code, player, _lang(auth), "json")
        code = normalize_code(auth.get("room"))
        if auth.get("watch") is True:
            if rooms.load(code).shared:
                raise IllegalMove("one_phone")  # the table's one phone is the only screen it has
            throttle.watcher(request.remote_addr or "")
            return Socket(request.sid, code, None, _lang(auth))
        token = browser_seats().get(code)
        return Socket(request.sid, code, rooms.authenticate(code, token), _lang(auth))

    def _page_holds_seat(auth) -> bool:
        """A page whose cookie holds a seat of the room it opens."""
        try:
            code = normalize_code(auth.get("room"))
        except IllegalMove:
            return False
        return auth.get("token") is None and code in browser_seats() and auth.get("watch") is not True

    def _lang(auth) -> str:
        """The language a socket reads: the `lang` it sends, else its page's or browser's."""
        lang = auth.get("lang")
        return lang if isinstance(lang, str) and lang in LANGUAGES else select_locale()

    def _established() -> bool:
        """An open, settled connection: during a real connect or disconnect it is not."""
        return socketio.server.manager.is_connected(request.sid, request.namespace or "/")

    @socketio.on("disconnect")
    def disconnect(*_reason):
        """The player's seat stays; `connected` turns false for the others."""
        if _established():  # a client event named "disconnect": the socket is still open
            return messages.answer(IllegalMove("unknown_event"))
        class_live.forget(request.sid)
        rooms.disconnect(request.sid)

    def refused(reason):
        """`reason` as the ack, in the socket's language."""
        socket = rooms.presence.get(request.sid)
        return messages.answer(IllegalMove(reason), socket.lang if socket else None)

    def as_member(call):
        """Run `call(code, player)` for this socket's seat; refusals become the ack."""
        socket = rooms.presence.get(request.sid)
        try:
            if socket is None or socket.player is None:
                raise IllegalMove("connect_first")
            throttle.event(socket.code, socket.player)
            return call(socket.code, socket.player)
        except IllegalMove as error:
            return messages.answer(error, socket.lang if socket else None)

    @socketio.on(UNREADABLE)
    def unreadable(*_any):
        """A packet that was no event of ours (TextPacket): refused, in the socket's language."""
        return refused("unreadable")

    @socketio.on("*")
    def unknown(_event=None, *_args):
        """An event no handler of ours takes: refused with `unknown_event`, so a sender waiting on its ack hears why."""
        return refused("unknown_event")

    @socketio.on("action")
    def action(payload=None, *_more):
        """Sent by a player; acked with {"view"} or {"error"}; all get what changed."""
        return as_member(lambda code, player: {"view": rooms.act(code, player, payload)})

    @socketio.on("form")
    def form(fields=None, *_more):
        """A room page's form sent over its socket (static/live.js), as the page would post it: its
        pushes bring what changed; a refusal comes back as the toast the page shows."""
        socket = rooms.presence.get(request.sid)
        if socket is None or socket.kind != "html":
            return refused("connect_first")

        def act(code, player):
            if rooms.act(code, player, forms.sent_action(fields), view=False) is None:
                return {"gone": url_for("pages.room", code=code, gone="left")}
            return {"ok": True}

        answer = as_member(act)
        if "error" in answer:
            answer["toast"] = toast(answer["error"]["message"])
        return answer

    @socketio.on("react")
    def react(payload=None, *_more):
        """A player's emoji to the table: every screen of the room gets `reaction`; a few per seat, then a pause."""
        emoji = payload.get("emoji") if isinstance(payload, dict) else None
        address = request.remote_addr or ""

        def budget(code, player):
            throttle.reaction(code, player, address)

        return as_member(lambda code, player: rooms.react(code, player, emoji, budget) or {"ok": True})

    @socketio.on("signal")
    def signal(payload=None, *_more):
        """Sent while a player shakes or peeks; the others' players area shows it, never the dice."""
        activity = payload.get("activity") if isinstance(payload, dict) else "?"
        return as_member(lambda code, player: rooms.signal(code, player, activity) or {"ok": True})
