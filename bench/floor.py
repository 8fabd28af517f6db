"""The floor of our stack: a bare python-socketio relay on eventlet, nothing of ours.

    .venv/bin/python bench/floor.py PORT

A client connects with auth {"room": NAME} and sends `action` events; the
relay counts a version per room, answers the sender's ack with it and sends
every socket of the room a `view` {"version": n}. bench/light.py measures it
beside the real server: what our rooms, rules, storage and pages cost on top.
"""

import sys

import eventlet

eventlet.monkey_patch()

import socketio  # noqa: E402

server = socketio.Server(async_mode="eventlet")
versions: dict[str, int] = {}
rooms_of: dict[str, str] = {}


@server.on("connect")
def connect(sid, _environ, auth):
    room = (auth or {}).get("room", "")
    rooms_of[sid] = room
    server.enter_room(sid, room)
    server.emit("view", {"version": versions.get(room, 0)}, to=sid)


@server.on("disconnect")
def disconnect(sid, *_reason):
    rooms_of.pop(sid, None)


@server.on("action")
def action(sid, _payload):
    room = rooms_of[sid]
    versions[room] = versions.get(room, 0) + 1
    server.emit("view", {"version": versions[room]}, room=room)
    return {"view": {"version": versions[room]}}


if __name__ == "__main__":
    eventlet.wsgi.server(eventlet.listen(("127.0.0.1", int(sys.argv[1]))), socketio.WSGIApp(server), log_output=False)
