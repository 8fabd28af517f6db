"""Socket.IO handlers: thin; every change goes through `Rooms`.

Each connected player's sockets join the Socket.IO room "CODE/PLAYER", so a
view is only ever emitted to the one player it was made for.
"""

from flask import request, session
from flask_socketio import join_room

from .errors import IllegalMove


def _channel(code: str, player: str) -> str:
    return f"{code}/{player}"


def init_app(socketio, rooms):
    """Register the handlers and hand `rooms` a way to push views."""
    members: dict[str, tuple[str, str]] = {}  # sid -> (room code, player id)

    def push(code, views, gone):
        """Each connected member gets their own view; the gone get `removed`."""
        for player, view in views.items():
            socketio.emit("view", view, to=_channel(code, player))
        for player in gone:
            socketio.emit("removed", {"room": code}, to=_channel(code, player))

    rooms.push = push

    @socketio.on("connect")
    def connect(auth):
        """A client connects with auth={"token"} or a browser's session cookie.

        Every connected member, this socket included, gets a fresh view.
        """
        auth = auth if isinstance(auth, dict) else {}
        try:
            token = auth.get("token")
            if token is None and isinstance(auth.get("room"), str):
                token = session.get("seats", {}).get(auth["room"].strip().upper())
            code, player = rooms.locate(token)
            join_room(_channel(code, player))
            rooms.connect(code, player)
        except IllegalMove as error:
            raise ConnectionRefusedError(error.to_dict()["error"]) from None
        members[request.sid] = (code, player)

    @socketio.on("disconnect")
    def disconnect(*_reason):
        """The player's seat stays; `connected` turns false for the others."""
        member = members.pop(request.sid, None)
        if member:
            rooms.disconnect(*member)

    def as_member(call):
        """Run `call(code, player)` for this socket's seat; refusals become the ack."""
        member = members.get(request.sid)
        try:
            if member is None:
                raise IllegalMove("bad_token", "Connect with your token first.")
            return call(*member)
        except IllegalMove as error:
            return error.to_dict()

    @socketio.on("action")
    def action(payload):
        """Sent by a player; acked with {"view"} or {"error"}; all get views."""
        return as_member(lambda code, player: {"view": rooms.act(code, player, payload)})

    @socketio.on("signal")
    def signal(payload):
        """Sent while a player shakes or peeks; the others' views show it, never the dice."""
        activity = payload.get("activity") if isinstance(payload, dict) else "?"
        return as_member(lambda code, player: rooms.signal(code, player, activity) or {"ok": True})
