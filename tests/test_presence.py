"""Presence: who is connected, in one process (`Presence`) and across processes on Redis (`RedisPresence`)."""

import pytest

from maxchen.presence import SOCKETS_PER_SEAT, Presence, RedisPresence, Socket, held_key
from maxchen.rooms import Rooms
from maxchen.store import RedisStore


@pytest.fixture
def redis_client(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture(params=["memory", "redis"])
def presence(request):
    if request.param == "memory":
        return Presence()
    return RedisPresence(request.getfixturevalue("redis_client"))


def test_a_player_counts_as_connected_while_a_socket_is_open(presence):
    before = presence.seq("ROOMA")
    assert presence.add(Socket("s1", "ROOMA", "p1")) == []
    assert presence.add(Socket("s1", "ROOMA", "p1")) is None  # counted once
    presence.add(Socket("s2", "ROOMA", "p1", "de"))
    presence.add(Socket("w1", "ROOMA", None))
    assert presence.connected("ROOMA") == {"p1": None}
    assert {s.sid for s in presence.sockets("ROOMA")} == {"s1", "s2", "w1"}
    assert presence.get("s2") == Socket("s2", "ROOMA", "p1", "de")
    assert presence.offline_for("ROOMA", "p1") is None
    assert presence.remove("s1").sid == "s1"
    assert presence.remove("s1") is None
    assert presence.connected("ROOMA") == {"p1": None}  # one socket still open
    presence.remove("s2")
    assert presence.connected("ROOMA") == {}
    assert 0 <= presence.offline_for("ROOMA", "p1") < 5
    assert presence.seq("ROOMA") > before


def test_a_seat_keeps_its_newest_sockets(presence):
    for n in range(SOCKETS_PER_SEAT):
        assert presence.add(Socket(f"s{n}", "ROOMA", "p1")) == []
    replaced = presence.add(Socket("new", "ROOMA", "p1"))
    assert [s.sid for s in replaced] == ["s0"]
    assert presence.get("s0") is None and presence.remove("s0") is None
    assert len(presence.sockets("ROOMA")) == SOCKETS_PER_SEAT


def test_activity_starts_stops_and_ends_with_the_last_socket(presence):
    presence.add(Socket("s1", "ROOMA", "p1"))
    assert presence.set_activity("ROOMA", "p1", "shaking") is True
    assert presence.set_activity("ROOMA", "p1", "shaking") is False
    assert presence.connected("ROOMA") == {"p1": "shaking"}
    presence.end_activity("ROOMA")
    assert presence.connected("ROOMA") == {"p1": None}
    presence.set_activity("ROOMA", "p1", "peeking")
    assert presence.set_activity("ROOMA", "p1", None) is True
    presence.set_activity("ROOMA", "p1", "peeking")
    presence.remove("s1")
    presence.add(Socket("s2", "ROOMA", "p1"))
    assert presence.connected("ROOMA") == {"p1": None}  # a new socket does not peek


def test_what_pages_hold_is_kept_while_they_are_there(presence):
    presence.add(Socket("s1", "ROOMA", "p1"))
    presence.add(Socket("s2", "ROOMA", "p2"))
    presence.hold("ROOMA", {"table": "k1", held_key("s1"): "v1", held_key("s2"): "v2"})
    assert presence.held("ROOMA") == {"table": "k1", held_key("s1"): "v1", held_key("s2"): "v2"}
    presence.remove("s1")
    assert presence.held("ROOMA") == {"table": "k1", held_key("s2"): "v2"}
    assert [s.sid for s in presence.drop_player("ROOMA", "p2")] == ["s2"]
    assert presence.held("ROOMA") == {} and presence.connected("ROOMA") == {}


def test_a_forgotten_room_leaves_nothing(presence):
    presence.add(Socket("s1", "ROOMA", "p1"))
    presence.set_activity("ROOMA", "p1", "peeking")
    presence.forget("ROOMA")
    assert presence.sockets("ROOMA") == [] and presence.seq("ROOMA") == 0 and presence.get("s1") is None


# --- several processes on one Redis -------------------------------------------------


def test_processes_see_and_replace_each_others_sockets(redis_client):
    one, two = RedisPresence(redis_client), RedisPresence(redis_client)
    one.add(Socket("a1", "ROOMA", "p1"))
    two.add(Socket("b1", "ROOMA", "p2", "ru"))
    assert one.connected("ROOMA") == two.connected("ROOMA") == {"p1": None, "p2": None}
    assert two.get("a1") is None  # a socket's events come to its own process
    for n in range(SOCKETS_PER_SEAT - 1):
        two.add(Socket(f"b-p1-{n}", "ROOMA", "p1"))
    replaced = two.add(Socket("b-p1-new", "ROOMA", "p1"))
    assert [s.sid for s in replaced] == ["a1"]  # the oldest, in the other process
    assert one.remove("a1") is None  # its disconnect comes later and changes nothing
    two.set_activity("ROOMA", "p2", "shaking")
    assert one.connected("ROOMA")["p2"] == "shaking"


def test_a_gone_process_sockets_stop_counting_once(redis_client):
    gone, one, two = (RedisPresence(redis_client) for _ in range(3))
    gone.add(Socket("g1", "ROOMA", "p1"))
    gone.add(Socket("g2", "ROOMB", None))
    one.add(Socket("o1", "ROOMA", "p2"))
    gone.set_activity("ROOMA", "p1", "peeking")
    assert one.beat() == two.beat() == []  # all alive
    before = one.seq("ROOMA")
    redis_client.delete(f"maxchen:proc:{gone.process}")  # what its expiry does after EXPIRY seconds
    reaped = one.beat() + two.beat()
    assert sorted(reaped) == ["ROOMA", "ROOMB"]  # taken out by one of the two, once
    assert one.connected("ROOMA") == {"p2": None}
    assert one.sockets("ROOMB") == []
    assert 0 <= one.offline_for("ROOMA", "p1") < 5
    assert one.seq("ROOMA") > before


def test_a_stalled_process_puts_its_sockets_back(redis_client):
    slow, one = RedisPresence(redis_client), RedisPresence(redis_client)
    slow.add(Socket("s1", "ROOMA", "p1"))
    redis_client.delete(f"maxchen:proc:{slow.process}")
    assert one.beat() == ["ROOMA"]
    assert one.connected("ROOMA") == {}
    assert slow.beat() == ["ROOMA"]  # it lives after all: its open socket counts again
    assert one.connected("ROOMA") == {"p1": None}


class Pushes:
    """A transport's emit, recorded: (event, data, to)."""

    def __init__(self):
        self.sent = []

    def __call__(self, event, data, to, skip=None, local=False):
        self.sent.append((event, data, to))

    def to(self, target):
        return [data for event, data, to in self.sent if to == target]


def test_a_change_in_one_process_reaches_the_others_sockets(app, redis_url, redis_client, dice):
    dice.add([5, 3])
    """Public parts once per language channel, private parts per socket, wherever it is connected."""
    from maxchen.live import Live, channel

    store = RedisStore(redis_url)
    a = Rooms(store=store, dice=dice, presence=RedisPresence(redis_client))
    b = Rooms(store=store, dice=dice, presence=RedisPresence(redis_client))
    pushes_a, pushes_b = Pushes(), Pushes()
    for rooms, pushes in ((a, pushes_a), (b, pushes_b)):
        live = Live(app, pushes, rooms.presence)
        rooms.outlets.push, rooms.outlets.welcome = live.push, live.welcome
    ann = a.create("Ann")
    code = ann["code"]
    ben = b.join(code, "Ben")
    a.connect(Socket("a-ann", code, ann["player"], "en"))
    b.connect(Socket("b-ben", code, ben["player"], "de"))
    assert pushes_b.to("b-ben")[0]["reset"] is True  # welcomed by its own process
    pushes_a.sent.clear()
    a.act(code, ann["player"], {"action": "start"})
    assert {to for event, _, to in pushes_a.sent if event == "parts"} == {
        channel(code, "en"),
        channel(code, "de"),
        "a-ann",
        "b-ben",
    }
    assert pushes_a.to(channel(code, "de")) != pushes_a.to(channel(code, "en"))  # each in its own language
    # What B's socket holds is known to both: B's next push sends it nothing unchanged.
    pushes_b.sent.clear()
    b.act(code, ann["player"], {"action": "shake"})
    assert pushes_b.to("b-ben") == []  # what Ben may do did not change
    assert "[5, 3]" in pushes_b.to("a-ann")[0]["html"]  # Ann's own cup, sent by the other process
    assert "Würfel versiegelt" in pushes_b.to(channel(code, "de"))[0]["html"]


def test_watchers_racing_in_through_two_processes_stop_at_the_limit(redis_url, redis_client, dice):
    """The watcher count and the new watcher are one step under the room's lock, whichever process."""
    import threading

    from maxchen.errors import IllegalMove
    from maxchen.presence import WATCHERS_PER_ROOM

    store = RedisStore(redis_url)
    processes = [Rooms(store=store, dice=dice, presence=RedisPresence(redis_client)) for _ in range(2)]
    code = processes[0].create("Ann")["code"]
    start, refused = threading.Barrier(2 * WATCHERS_PER_ROOM), []

    def watch(n):
        start.wait()
        try:
            processes[n % 2].connect(Socket(f"w{n}", code, None))
        except IllegalMove as error:
            refused.append(error.reason)

    threads = [threading.Thread(target=watch, args=(n,)) for n in range(2 * WATCHERS_PER_ROOM)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(processes[0].presence.sockets(code)) == WATCHERS_PER_ROOM
    assert refused == ["watchers_full"] * WATCHERS_PER_ROOM


def test_a_room_gone_while_its_process_stalled_leaves_no_presence_behind(redis_url, redis_client, dice):
    """A process that comes back (after a stall, or a Redis that lost its data) does not bring back the
    presence of a room that no longer exists."""
    store = RedisStore(redis_url)
    rooms = Rooms(store=store, dice=dice, presence=RedisPresence(redis_client))
    ann = rooms.create("Ann")
    rooms.connect(Socket("s1", ann["code"], ann["player"]))
    redis_client.delete(f"maxchen:proc:{rooms.presence.process}", f"maxchen:room:{ann['code']}")
    assert RedisPresence(redis_client).beat() == [ann["code"]]  # another process takes the silent one's socket out
    rooms.heartbeat()  # it lives: it would put its socket back, finds the room gone, and forgets it
    assert rooms.presence.sockets(ann["code"]) == []
    assert not list(redis_client.scan_iter(f"maxchen:p:{ann['code']}:*"))


def test_the_bus_tells_every_other_process_and_not_itself(redis_client):
    """`class changed` in one process reaches the others' class boards (each draws its own)."""
    import threading
    import time

    from maxchen.bus import RedisBus

    one, two = RedisBus(redis_client, "maxchen:", time.sleep), RedisBus(redis_client, "maxchen:", time.sleep)
    heard = {"one": [], "two": []}
    threads = [
        threading.Thread(target=bus.listen, args=(heard[name].append,), daemon=True)
        for name, bus in (("one", one), ("two", two))
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while redis_client.pubsub_numsub("maxchen:bus")[0][1] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # both listening
    try:
        one.publish({"class": "ABCDEF"})
        while not heard["two"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert heard == {"one": [], "two": [{"class": "ABCDEF"}]}
    finally:
        one.close(), two.close()
        for thread in threads:  # gone before the fixture closes the client (else they log its closed socket)
            thread.join(timeout=5)


def test_redis_away_is_one_line_in_the_log_when_it_goes_and_one_when_it_is_back(caplog):
    """The processes' bus tries again every second while Redis is away: not a line (or a traceback) each time."""
    import threading

    from maxchen.bus import RedisBus

    class PubSub:
        def __init__(self, fails):
            self.fails = fails

        def subscribe(self, channel):
            if self.fails:
                raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

        def get_message(self, timeout):
            bus.close()  # listened again: enough for this test

        def close(self):
            pass

    attempts = iter([True] * 5 + [False])

    class Client:
        def pubsub(self, ignore_subscribe_messages):
            return PubSub(next(attempts))

    bus = RedisBus(Client(), "maxchen:", sleep=lambda seconds: None)
    bus.listen(lambda message: None)
    own = threading.get_ident()  # another test's listener may still be winding down in this process
    lines = [r.getMessage() for r in caplog.records if r.name == "maxchen.bus" and r.thread == own]
    assert len(lines) == 2 and "stopped" in lines[0] and "listens again" in lines[1], lines
    assert not any(r.exc_info for r in caplog.records)
