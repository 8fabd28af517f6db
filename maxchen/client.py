"""A small client of the JSON API and the Socket.IO protocol, for bots and scripts.

seat = join_room("http://127.0.0.1:5000", "K7WQP", "Bot")
with Player("http://127.0.0.1:5000", seat["token"]) as me:
    me.wait_for(lambda view: view["allowed"])
    me.act("shake")
"""

import secrets
import threading
import time

import requests
import socketio

from .errors import IllegalMove
from .fair import agrees, cups, verify_reveal
from .rules.two_dice import rank, value_of

PATIENCE = 3  # times a refused request is sent again after the wait the server asked for (429)
LONGEST_WAIT = 30.0  # seconds: a longer wait is not waited out, the refusal is raised


def _wait(seconds) -> bool:
    """Wait `seconds` (a server's Retry-After) if it is a short enough wait; whether it waited."""
    try:
        seconds = float(seconds)
    except (TypeError, ValueError):
        return False
    if not 0 <= seconds <= LONGEST_WAIT:
        return False
    time.sleep(seconds)
    return True


def _answer(send) -> dict:
    """Send a request by `send()`; a 429 is waited out (its Retry-After) and sent again, up to `PATIENCE` times."""
    for attempt in range(PATIENCE + 1):
        response = send()
        if response.status_code == 429 and attempt < PATIENCE and _wait(response.headers.get("Retry-After")):
            continue
        data = response.json()
        if response.status_code >= 400:
            raise IllegalMove.from_dict(data["error"])
        return data
    raise AssertionError("unreachable")


def _post(url, body, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return _answer(lambda: requests.post(url, json=body, headers=headers, timeout=10))


def create_room(base_url, name, rules="maexchen") -> dict:
    """POST /api/rooms: {"code", "player", "token", "url"}."""
    return _post(f"{base_url}/api/rooms", {"name": name, "rules": rules})


def join_room(base_url, code, name) -> dict:
    """POST /api/rooms/<code>/players: {"player", "token"}."""
    return _post(f"{base_url}/api/rooms/{code}/players", {"name": name})


def fetch(base_url, code, token, http=requests) -> dict:
    """GET /api/rooms/<code>: the seat's view as the server holds it now (`http`: a requests.Session)."""
    headers = {"Authorization": f"Bearer {token}"}
    return _answer(lambda: http.get(f"{base_url}/api/rooms/{code}", headers=headers, timeout=10))


def act(base_url, code, token, action, **body) -> dict:
    """POST /api/rooms/<code>/actions: one action over HTTP alone; the new view, or IllegalMove."""
    return _post(f"{base_url}/api/rooms/{code}/actions", {"action": action, **body}, token)


class Player:
    """One seat over Socket.IO; `view` is always the latest view received."""

    def __init__(self, base_url, token, transports=("websocket",), **client_options):
        self.base_url = base_url
        self.token = token
        self.transports = list(transports)
        self.view = None
        self.removed = False
        # (round, cup: "" or a Lügen or Perudo player) -> what the views showed of it before the reveal: its
        # record without the server seed (or, before the seeds, {"commit": its seal}).
        self.seals: dict[tuple, dict] = {}
        self.seeds: dict[str, str] = {}  # commit -> the seed this client sent with that cup's shake
        self._changed = threading.Condition()
        self.sio = socketio.Client(reconnection=True, **client_options)
        self.http = requests.Session()  # one connection kept open for `fetch`
        self.sio.on("view", self._on_view)
        self.sio.on("removed", self._on_removed)

    def _on_view(self, view):
        with self._changed:
            # Pushes of one room arrive in order; connection changes keep the version.
            if self.view is None or view["version"] >= self.view["version"]:
                self.view = view
                self._note_seals(view)
            self._changed.notify_all()

    def _note_seals(self, view):
        """Remember each closed cup's commit, to hold its reveal to it later (docs/API.md, "Fair dice")."""
        round_ = view.get("round") or 0
        if any(seen > round_ for seen, _ in self.seals):
            self.seals.clear()  # a new game counts its rounds from 1 again
        for cup, record in cups(view).items():
            old = self.seals.get((round_, cup))
            if "client_seed" in record and old and "client_seed" not in old and old["commit"] != record["commit"]:
                old["swapped"] = True  # a shake keeps its cup's commit
                continue
            if "client_seed" in record and (not old or (old.get("late") and old["commit"] == record["commit"])):
                record = {**record, "late": True}  # first seen shaken: its commit before the shake unseen
            self.seals[round_, cup] = record  # Mäxchen: a believed cup's successor in the same round replaces it

    def fair(self, reveal=None) -> bool | None:
        """Whether the latest view's reveal (or `reveal`) opens its cups as they were committed.

        Each cup's dice must come from its seeds (`maxchen.fair.verify_reveal`),
        its commit must be the one this client's views carried before the
        shake, and a cup this client shook must hold the seed it sent. None
        when it opens no cup, or when this client saw no commit of a cup before
        the reveal (it came later): a reveal's own commit proves nothing.
        """
        reveal = (self.view or {}).get("reveal") if reveal is None else reveal
        checked = verify_reveal(reveal, (self.view or {}).get("loaded"))
        if not checked:
            return checked
        opened = cups(reveal)
        seen = [self.seals.get((reveal["round"], cup)) for cup in opened]
        agreed = [
            None if was is None else agrees(record, was) for was, record in zip(seen, opened.values(), strict=True)
        ]
        if False in agreed:
            return False
        records = reveal.get("fair") or {}
        for record in [records] if "commit" in records else records.values():
            sent = self.seeds.get((record or {}).get("commit"))
            if sent is not None and record.get("client_seed") != sent:  # our own cup, without our seed
                return False
        return None if None in agreed else True

    def _on_removed(self, _data):
        with self._changed:
            self.removed = True
            self._changed.notify_all()

    def connect(self):
        """Open the socket; the first view arrives right after."""
        self.sio.connect(
            self.base_url, auth={"token": self.token}, transports=self.transports, wait=True, wait_timeout=10
        )
        self.wait_for(lambda view: True)
        return self

    def disconnect(self):
        """Close the socket; the seat stays."""
        self.sio.disconnect()

    def __enter__(self):
        return self.connect()

    def __exit__(self, *_):
        self.disconnect()

    def wait_for(self, predicate, timeout=10.0):
        """Block until the latest view satisfies `predicate`; return it."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.view is None or not predicate(self.view):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"view never matched; last: {self.view}")
                self._changed.wait(left)
            return self.view

    def fetch(self) -> dict:
        """The current view over HTTP: what the server holds now."""
        return fetch(self.base_url, self.view["room"], self.token, self.http)

    def act(self, action, **body) -> dict:
        """Send one action; returns the new view or raises IllegalMove. Too many too fast (the seat's
        event budget, `rate_limited`): waited out as the answer says, and sent again."""
        if action == "shake":  # the dice are read from our seed too: nobody chose them
            body.setdefault("seed", secrets.token_hex(16))
            shown = cups(self.view or {})
            mine = shown.get("") or shown.get((self.view or {}).get("you"))
            if mine:
                self.seeds[mine["commit"]] = body["seed"]
        for attempt in range(PATIENCE + 1):
            answer = self.sio.call("action", {"action": action, **body}, timeout=10)
            error = answer.get("error") or {}
            limited = error.get("reason") == "rate_limited" and attempt < PATIENCE
            if not (limited and _wait(error.get("params", {}).get("seconds"))):
                break
        if "error" in answer:
            raise IllegalMove.from_dict(answer["error"])
        if answer.get("view"):
            self._on_view(answer["view"])
        return answer["view"]


def simple_move(view) -> dict | None:
    """A plain strategy for Mäxchen bots: truthful when it can, checks high claims."""
    allowed = view["allowed"]
    if not allowed or allowed == ["start"]:
        return None
    if "shake" in allowed:
        return {"action": "shake"}
    if "announce" in allowed:
        mine = value_of(view["dice"])
        choices = view["choices"]
        honest = mine in choices
        return {"action": "announce", "value": mine if honest else choices[0]}
    # Half of all rolls reach 61 (docs/rules.md §1): below that, believing is cheap.
    if "believe" in allowed and rank(view["announcement"]["value"]) < rank(61):
        return {"action": "believe"}
    return {"action": "check"}
