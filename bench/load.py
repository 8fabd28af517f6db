"""The live table under load: real clients against the real server process.

    .venv/bin/python bench/load.py [--kind browser|browser-http|bot|both|class] [--players 60 300 1000 2000]
                                   [--seconds 20] [--url URL] [--processes N --redis URL]

Rooms of 6 play Mäxchen; each room makes one action per second. Two kinds of
client, over real connections:

- `browser` does what the room page (static/live.js) does: a session cookie
  from the home page's forms, the page's Socket.IO connection (auth
  {"room": CODE}, the cookie), every pushed `parts` message applied by
  version, its forms sent over that socket (the `form` event), as the page
  sends them while its socket is open. `browser-http` posts them instead as
  htmx does without a socket (`/r/CODE/act`), the page's only way before.
- `bot` uses the JSON protocol (docs/API.md): token auth, `view` pushes,
  actions as Socket.IO `action` events.

It starts `app.py` with its defaults (eventlet, SQLite) on a free loopback
port unless --url is given, and prints for each step: p50/p95/p99/max of
"action sent -> every other player's screen holds the new version",
actions/s, errors, the server's CPU and its RSS per connected player.

With `--processes N --redis URL` it starts N server processes on that Redis
(scaled out, as docs/deploy.md runs them) and sends the players of every
room to the processes in turn (player i of a room to process i mod N, as a
balancer that knows nothing of rooms would), so every push crosses
processes. CPU is then the sum of the server processes, plus Redis's own
(from its INFO).
"""

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import aiohttp
import socketio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from maxchen import fastjson  # noqa: E402
from maxchen.connections import KEEPALIVE_IDLE  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ROOM_SIZE = 6
DEFLATE = True  # --no-deflate: the sockets send their messages as they are

# The room page's protocol (static/live.js); tests/test_bench.py keeps both in step.
PAGE_AUTH_KEY = "room"  # io({ auth: { room: ROOM } })
PARTS_EVENT = "parts"  # socket.on("parts", ...)
FORM_EVENT = "form"  # socket.timeout(FORM_WAIT).emit("form", fields, ...): a form over the page's socket
ACT_PATH = "/r/{code}/act"  # ACT_URL = "/r/" + ROOM + "/act": where htmx posts it without a socket
ACT_HEADERS = {"HX-Request": "true"}  # htmx sends it with every form
TOAST_HEADER = "X-Maxchen-Toast"  # a refusal: the page shows it as a toast
AREA = re.compile(r'<(?:div|section) id="(\w+)" class="[^"]*" data-version="(\d+)"(?: data-seq="(\d+)")?>')
CUP = re.compile(r'id="cup-view">(.*?)</script>', re.S)


class Client:
    """One player: what its screen shows now, and when it first showed a version."""

    def __init__(self, base):
        self.base = base
        self.version = -1  # the room version the screen holds
        self.mine = None  # what this player may do now
        self.waiting: tuple[int, asyncio.Future] | None = None
        # Phones' browsers ask for permessage-deflate, and the server's CPU pays for it: so do these.
        deflate = {"compress": 15} if DEFLATE else {}
        self.sio = socketio.AsyncClient(reconnection=False, json=fastjson, websocket_extra_options=deflate)

    def shows(self, version: int):
        """The screen holds `version` (or newer) now."""
        if version > self.version:
            self.version = version
        if self.waiting and self.version >= self.waiting[0] and not self.waiting[1].done():
            self.waiting[1].set_result(time.perf_counter())

    def expect(self, version: int) -> asyncio.Future:
        """A future that resolves when the screen holds `version`."""
        future = asyncio.get_running_loop().create_future()
        self.waiting = (version, future)
        self.shows(self.version)
        return future

    async def dial(self, **options):
        """Connect the socket; like the page's Socket.IO client, try again after a failure."""
        refusals = []
        self.sio.on("connect_error", refusals.append)
        for attempt in range(3):
            try:  # a copy each time: the client takes the Cookie header out of the dict it is given
                fresh = {**options, "headers": dict(options.get("headers", {}))}
                return await self.sio.connect(self.base, transports=["websocket"], **fresh)
            except socketio.exceptions.ConnectionError as error:
                if attempt == 2:
                    raise socketio.exceptions.ConnectionError(f"{error}: {refusals}") from None
                await asyncio.sleep(0.5 + random.random())

    async def close(self):
        await self.sio.disconnect()


class BrowserClient(Client):
    """The room page, without the pixels."""

    kind = "browser"

    def __init__(self, base):
        super().__init__(base)
        # A browser lets go of an idle connection before the server does: reusing one just as the
        # server closes it fails the request ("Server disconnected"), which no page would see.
        connector = aiohttp.TCPConnector(keepalive_timeout=KEEPALIVE_IDLE - 1)
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), connector=connector)
        self.held: dict[str, tuple[int, int]] = {}
        self.code = None

    async def create(self, name):
        async with self.http.post(self.base + "/rooms", data={"name": name, "rules": "maexchen"}) as response:
            assert response.status == 200, (response.status, await response.text())
            self.code = str(response.url).rsplit("/", 1)[1]
            self.apply(await response.text(), reset=True)

    async def join(self, code, name):
        async with self.http.post(self.base + "/join", data={"code": code, "name": name}) as response:
            assert response.status == 200, (response.status, await response.text())
            self.code = code
            self.apply(await response.text(), reset=True)

    async def connect(self):
        cookies = "; ".join(f"{c.key}={c.value}" for c in self.http.cookie_jar)
        self.sio.on(PARTS_EVENT, lambda message: self.apply(message["html"], message.get("reset", False)))
        await self.dial(auth={PAGE_AUTH_KEY: self.code}, headers={"Cookie": cookies})

    def apply(self, html: str, reset=False):
        """What the page's applyParts does: keep each area only if newer."""
        for match in AREA.finditer(html):
            area, mark = match[1], (int(match[2]), int(match[3] or 0))
            held = self.held.get(area, (-1, -1))
            if mark > held or (reset and mark != held):
                self.held[area] = mark
                if area == "controls":
                    self.mine = json.loads(CUP.search(html, match.end())[1])
                if area == "table":
                    self.shows(mark[0])

    async def act(self, fields) -> bool:
        """Send a form as the page does: over its socket; the pushes bring what changed."""
        answer = await self.sio.call(FORM_EVENT, {k: str(v) for k, v in fields.items()}, timeout=10)
        return answer == {"ok": True} or f"refused: {answer}"

    async def close(self):
        await super().close()
        await self.http.close()


class PostingClient(BrowserClient):
    """The room page posting its forms (htmx), as it does without a socket: the older, dearer path."""

    kind = "browser-http"

    async def act(self, fields) -> bool:
        """Post a form as htmx does; apply the answer as the page does."""
        data = {k: str(v) for k, v in fields.items()}
        async with self.http.post(
            self.base + ACT_PATH.format(code=self.code), data=data, headers=ACT_HEADERS
        ) as response:
            text = await response.text()
            if response.status == 204:
                return True  # the socket brings what changed
            if response.status != 200 or response.headers.get(TOAST_HEADER):
                return f"refused: {response.status} {response.headers.get(TOAST_HEADER, '')}"
            self.apply(text)
            return True


class BotClient(Client):
    """A bot on the JSON protocol."""

    kind = "bot"

    async def create(self, name):
        async with aiohttp.ClientSession() as http, http.post(self.base + "/api/rooms", json={"name": name}) as answer:
            seat = await answer.json()
        assert answer.status == 201, seat
        self.code, self.token = seat["code"], seat["token"]

    async def join(self, code, name):
        url = f"{self.base}/api/rooms/{code}/players"
        async with aiohttp.ClientSession() as http, http.post(url, json={"name": name}) as answer:
            seat = await answer.json()
        assert answer.status == 201, seat
        self.code, self.token = code, seat["token"]

    async def connect(self):
        self.sio.on("view", self.on_view)
        await self.dial(auth={"token": self.token})

    def on_view(self, view):
        self.mine = view
        self.shows(view["version"])

    async def act(self, fields) -> bool:
        answer = await self.sio.call("action", fields, timeout=10)
        if "error" in answer:
            return f"refused: {answer['error']['code']}/{answer['error'].get('reason')}"
        self.on_view(answer["view"])
        return True


def next_move(mine) -> dict | None:
    """What this player does now, if anything (a quick, plausible game)."""
    if not mine:
        return None
    allowed = mine["allowed"]
    move = None
    if "start" in allowed:
        move = {"action": "start"}
    elif "shake" in allowed:
        move = {"action": "shake"}
    elif "announce" in allowed:
        move = {"action": "announce", "value": random.choice(mine["choices"][:3])}
    elif "check" in allowed:
        options = [a for a in ("believe", "accept") if a in allowed]
        move = {"action": random.choice(options) if options and random.random() < 0.6 else "check"}
    if move:
        move["version"] = mine["version"]
    return move


async def watch_lag(until: float, lags: list[float]):
    """How late this process's event loop wakes up: its own share of the latency."""
    while time.perf_counter() < until:
        planned = time.perf_counter() + 0.02
        await asyncio.sleep(0.02)
        lags.append(time.perf_counter() - planned)


class Stats:
    def __init__(self):
        self.lags: list[float] = []
        self.latencies: list[float] = []
        self.actions = 0
        self.errors = 0
        self.late = 0
        self.why: collections.Counter = collections.Counter()  # each error's kind


async def drive(room: list[Client], until: float, stats: Stats):
    """One action per second in this room; time until every other screen holds it."""
    await asyncio.sleep(random.random())
    while time.perf_counter() < until:
        tick = time.perf_counter()
        actor = next((c for c in room if next_move(c.mine)), None)
        if actor is not None:
            move = next_move(actor.mine)
            target = max(c.version for c in room) + 1
            others = [c for c in room if c is not actor]
            futures = [c.expect(target) for c in others]
            sent = time.perf_counter()
            try:
                ok = await actor.act(move)
            except Exception as error:  # noqa: BLE001 - a benchmark counts, it does not stop
                ok = f"{type(error).__name__}: {error}"[:80]
            if ok is not True:
                stats.errors += 1
                stats.why[ok] += 1
            else:
                stats.actions += 1
                try:
                    arrivals = await asyncio.wait_for(asyncio.gather(*futures), 5)
                    stats.latencies.append(max(arrivals) - sent)
                except TimeoutError:
                    stats.late += 1
                    stats.why["late: a view took over 5 s"] += 1
        await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))


async def seat_class(bases, players: int) -> tuple[list[list[Client]], socketio.AsyncClient, list]:
    """One class (kind `class`): its students join on the class page, the teacher seats them at
    tables of 5, each student's page follows the class page to its table; a class board watches."""
    base = bases[0]
    teacher = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    async with teacher.post(base + "/classes", data={"rules": "maexchen", "size": "5"}) as response:
        code = str(response.url).rsplit("/", 1)[1]
    students = [BrowserClient(bases[i % len(bases)]) for i in range(players)]
    for i, student in enumerate(students):
        async with student.http.post(f"{student.base}/c/{code}/join", data={"name": f"S{i}"}) as response:
            assert response.status == 200, await response.text()
    async with teacher.post(f"{base}/c/{code}/act", data={"action": "seat"}, headers=ACT_HEADERS) as response:
        assert response.status == 200 and not response.headers.get(TOAST_HEADER), await response.text()
    await teacher.close()
    tables: dict[str, list[Client]] = {}
    for student in students:
        async with student.http.get(f"{student.base}/c/{code}") as response:  # the waiting page goes to the table
            student.code = str(response.url).rsplit("/", 1)[1]
            student.apply(await response.text(), reset=True)
        tables.setdefault(student.code, []).append(student)
    for student in students:
        await student.connect()
    board, pushes = socketio.AsyncClient(reconnection=False, json=fastjson), []
    board.on(PARTS_EVENT, lambda message: pushes.append(len(message["html"])))
    await board.connect(base, transports=["websocket"], auth={"class": code, "watch": True})
    return list(tables.values()), board, pushes


async def seat_rooms(kind, bases, players: int) -> list[list[Client]]:
    """Rooms of 6, created and joined the way this kind of client does it (player i on server i mod N)."""
    make = {"browser": BrowserClient, "browser-http": PostingClient}.get(kind, BotClient)
    rooms = []
    limit = asyncio.Semaphore(40)

    async def one_room():
        async with limit:
            host = make(bases[0])
            await host.create("P0")
            room = [host]
            for i in range(1, ROOM_SIZE):
                guest = make(bases[i % len(bases)])
                await guest.join(host.code, f"P{i}")
                room.append(guest)
            for client in room:
                await client.connect()
            rooms.append(room)

    await asyncio.gather(*(one_room() for _ in range(players // ROOM_SIZE)))
    return rooms


def _procs(pids, field="VmRSS") -> tuple[float, int]:
    """(CPU seconds, RSS bytes) of the server processes together (`field` VmHWM: their RSS at its peak)."""
    cpu = rss = 0
    for pid in pids:
        one_cpu, one_rss = _proc(pid, field)
        cpu, rss = cpu + one_cpu, rss + one_rss
    return cpu, rss


def _redis_cpu(redis_url) -> float:
    """Redis's own CPU seconds so far (its INFO), or 0 without Redis."""
    if not redis_url:
        return 0.0
    import redis

    with redis.Redis.from_url(redis_url) as client:
        info = client.info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


def _proc(pid, field="VmRSS") -> tuple[float, int]:
    """(CPU seconds, RSS bytes) of a process (`field`: VmRSS now, VmHWM at its peak so far)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) * 1024 for line in status if line.startswith(field + ":"))
    return cpu, rss


def _pct(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _share(kind, bases, players, seconds, ready, go) -> dict:
    """One client process's rooms: seat them, wait for the others, play, count."""
    board, pushes = None, []
    if kind == "class":
        rooms, board, pushes = await seat_class(bases, players)
    else:
        rooms = await seat_rooms(kind, bases, players)
    await asyncio.to_thread(ready.wait)
    await asyncio.to_thread(go.wait)
    own0 = time.process_time()
    for room in rooms:  # the host starts every room
        await room[0].act({"action": "start"})
    stats = Stats()
    started = time.perf_counter()
    await asyncio.gather(
        watch_lag(started + seconds, stats.lags), *(drive(room, started + seconds, stats) for room in rooms)
    )
    wall = time.perf_counter() - started
    own = time.process_time() - own0
    await asyncio.gather(*(client.close() for room in rooms for client in room))
    if board is not None:
        await board.disconnect()
    return {
        "players": sum(len(room) for room in rooms),
        "board": (len(pushes), sum(pushes)),
        "latencies": stats.latencies,
        "lags": stats.lags,
        "actions": stats.actions,
        "errors": stats.errors + stats.late,
        "why": stats.why,
        "wall": wall,
        "cpu": own,
    }


def _client(kind, bases, players, seconds, ready, go, results):
    try:
        results.put(asyncio.run(_share(kind, bases, players, seconds, ready, go)))
    except Exception as error:  # noqa: BLE001 - reported by the parent, never a hang
        ready.abort()
        results.put({"failed": repr(error)})


async def warm_up(kind, bases, actions=12):
    """One room plays a few moves and leaves: the servers' one-time costs are paid before RSS is read."""
    room = (await seat_rooms("browser" if kind == "class" else kind, bases, ROOM_SIZE))[0]
    await room[0].act({"action": "start"})
    for _ in range(actions):
        actor = next((c for c in room if next_move(c.mine)), None)
        if actor is not None:
            await actor.act(next_move(actor.mine))
        await asyncio.sleep(0.05)
    await asyncio.gather(*(client.close() for client in room))


def step(kind, bases, players, seconds, pids, processes, redis_url=None, idle=()) -> dict:
    """One load step, its clients spread over `processes` processes (one event loop is not enough)."""
    asyncio.run(warm_up(kind, bases))
    time.sleep(0.5)
    _, rss_before = _procs(pids)
    if kind == "class":  # one class: one teacher seats it, so one client process
        processes, counts = 1, [players]
    else:
        rooms = players // ROOM_SIZE
        counts = [(rooms // processes + (i < rooms % processes)) * ROOM_SIZE for i in range(processes)]
    ready, go = multiprocessing.Barrier(processes + 1), multiprocessing.Barrier(processes + 1)
    results = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=_client, args=(kind, bases, n, seconds, ready, go, results)) for n in counts
    ]
    for worker in workers:
        worker.start()
    try:
        ready.wait(timeout=600)
    except threading.BrokenBarrierError:
        go.abort()
        failed = [part for part in (results.get(timeout=30) for _ in workers) if "failed" in part]
        raise RuntimeError(f"a client process failed while seating: {failed}") from None
    time.sleep(1)
    cpu0, _ = _procs(pids)
    redis0, idle0 = _redis_cpu(redis_url), _procs(idle)[0]
    started = time.perf_counter()
    go.wait()
    time.sleep(seconds * 0.9)
    _, rss = _procs(pids)  # in the steady state, every client still connected
    done = [results.get() for _ in workers]
    failed = [part["failed"] for part in done if "failed" in part]
    if failed:
        raise RuntimeError(f"a client process failed while playing: {failed}")
    wall = time.perf_counter() - started
    cpu1, _ = _procs(pids)
    _, peak = _procs(pids, "VmHWM")  # the high-water mark: joining, playing and leaving
    redis1, idle1 = _redis_cpu(redis_url), _procs(idle)[0]
    for worker in workers:
        worker.join()
    ms = [x * 1000 for part in done for x in part["latencies"]]
    lags = [x for part in done for x in part["lags"]]
    seated = sum(part["players"] for part in done)
    return {
        "kind": kind,
        "players": seated,
        "p50": statistics.median(ms) if ms else float("nan"),
        "p95": _pct(ms, 0.95),
        "p99": _pct(ms, 0.99),
        "max": max(ms) if ms else float("nan"),
        "actions/s": sum(part["actions"] / part["wall"] for part in done),
        "errors": sum(part["errors"] for part in done),
        "why": sum((part["why"] for part in done), collections.Counter()),
        "cpu %": 100 * (cpu1 - cpu0) / wall,
        "redis cpu %": 100 * (redis1 - redis0) / wall,
        "idle cpu %": 100 * (idle1 - idle0) / wall / max(1, len(idle)),
        "client cpu %": sum(100 * part["cpu"] / part["wall"] for part in done),
        "client lag p95": 1000 * _pct(lags, 0.95),
        "KB/player": (rss - rss_before) / 1024 / max(1, seated),
        "peak KB/player": (peak - rss_before) / 1024 / max(1, seated),
        "board/s": sum(part["board"][0] for part in done) / wall,
        "board KB/s": sum(part["board"][1] for part in done) / wall / 1024,
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(instance, checkout=ROOT, redis_url=None) -> tuple[subprocess.Popen, str]:
    """`python app.py` of a checkout with its defaults (or on `redis_url`), on a free loopback port."""
    port = _free_port()
    # Every client comes from this one address here: the per-address limits are for a school's many.
    # The processes of one Redis share their session key (docs/deploy.md).
    env = {
        **os.environ,
        "MAXCHEN_LIMIT_CLASS_JOINS": os.environ.get("MAXCHEN_LIMIT_CLASS_JOINS", "1000 per minute"),
        # Joins in flight count as tries until they succeed: 80 at once from one address pass 60 a minute.
        "MAXCHEN_LIMIT_FAILURES": os.environ.get("MAXCHEN_LIMIT_FAILURES", "100000 per minute"),
        # 4,000 players are 667 rooms made in a minute; a school's router makes 600 at most.
        "MAXCHEN_LIMIT_ROOMS": os.environ.get("MAXCHEN_LIMIT_ROOMS", "100000 per minute"),
        # A slowloris guard: a busy server reads the headers of hundreds of connections from this one address late.
        "MAXCHEN_WAITING_PER_ADDRESS": os.environ.get("MAXCHEN_WAITING_PER_ADDRESS", "100000"),
        "MAXCHEN_IDLE_PER_ADDRESS": os.environ.get("MAXCHEN_IDLE_PER_ADDRESS", "100000"),
        "MAXCHEN_SECRET_KEY": os.environ.get("MAXCHEN_SECRET_KEY", "bench-" + str(os.getpid())),
    }
    scaled = ["--redis", redis_url] if redis_url else []
    log = open(Path(instance) / f"server-{port}.log", "w")  # noqa: SIM115 - read when a step fails
    server = subprocess.Popen(
        [sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(port), "--instance", instance, *scaled],
        cwd=checkout,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(port)
    except RuntimeError:
        server.kill()
        raise
    return server, f"http://127.0.0.1:{port}"


def wait_for_port(port: int, seconds: float = 60) -> None:
    """Until a server listens on `port` (a busy machine starts one slowly); RuntimeError after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"no server came up on port {port}")


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--kind",
        choices=("browser", "browser-http", "bot", "both", "class"),
        default="both",
        help="class: one class of --players students (up to 60) at tables of 5, a class board watching",
    )
    parser.add_argument("--players", type=int, nargs="+", default=[60, 300, 1000, 2000])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--url", help="an already running server (CPU and RSS are then not measured)")
    parser.add_argument("--client-processes", type=int, default=2, help="client processes (default 2)")
    parser.add_argument("--processes", type=int, default=1, help="server processes (default 1; more need --redis)")
    parser.add_argument("--redis", metavar="URL", help="run the server processes on this Redis (scaled out)")
    parser.add_argument(
        "--idle-processes",
        type=int,
        default=0,
        metavar="K",
        help="K more server processes on the Redis that no client uses: what following the others costs each",
    )
    parser.add_argument(
        "--checkout",
        type=Path,
        default=ROOT,
        help="run app.py of another checkout (e.g. an older commit: `git worktree`)",
    )
    parser.add_argument("--no-deflate", action="store_true", help="sockets without permessage-deflate")
    args = parser.parse_args(argv)
    global DEFLATE
    DEFLATE = not args.no_deflate
    if args.processes > 1 and not args.redis:
        parser.error("--processes N needs --redis URL: processes share rooms only through Redis")
    if args.idle_processes and not args.redis:
        parser.error("--idle-processes needs --redis URL")
    if args.url and args.processes > 1:
        parser.error("--url is one running server: --processes starts its own")
    kinds = ("browser", "bot") if args.kind == "both" else (args.kind,)
    results = []
    print(
        f"{'kind':8} {'players':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} "
        f"{'act/s':>7} {'errors':>6} {'CPU %':>6} {'KB/player':>9} {'peak KB':>7} {'client CPU %':>12} "
        f"{'client lag p95 ms':>17}",
        flush=True,
    )
    for kind in kinds:
        for players in args.players:
            with tempfile.TemporaryDirectory(prefix="maxchen-load-") as instance:
                started = (
                    []
                    if args.url
                    else [
                        start_server(instance, args.checkout, args.redis)
                        for _ in range(args.processes + args.idle_processes)
                    ]
                )
                started, idle = (
                    started[: len(started) - args.idle_processes],
                    started[len(started) - args.idle_processes :],
                )
                bases = [args.url] if args.url else [base for _, base in started]
                try:
                    pids = [server.pid for server, _ in started]
                    row = step(
                        kind,
                        bases,
                        players,
                        args.seconds,
                        pids,
                        args.client_processes,
                        args.redis,
                        [s.pid for s, _ in idle],
                    )
                except RuntimeError:
                    for log in Path(instance).glob("server-*.log"):  # what the servers said of it
                        print(f"--- {log.name}:", log.read_text()[-3000:], sep="\n", file=sys.stderr)
                    raise
                finally:
                    for server, _ in started + idle:
                        server.terminate()
                        server.wait()
            results.append(row)
            print(
                f"{row['kind']:8} {row['players']:>7} {row['p50']:>8.1f} {row['p95']:>8.1f} {row['p99']:>8.1f} "
                f"{row['max']:>8.1f} {row['actions/s']:>7.1f} {row['errors']:>6} {row['cpu %']:>6.0f} "
                f"{row['KB/player']:>9.0f} {row['peak KB/player']:>7.0f} {row['client cpu %']:>12.0f} "
                f"{row['client lag p95']:>17.1f}"
                + (
                    f"  class board: {row['board/s']:.1f} pushes/s, {row['board KB/s']:.1f} KB/s"
                    if kind == "class"
                    else ""
                )
                + (f"  Redis CPU {row['redis cpu %']:.0f} %" if args.redis else "")
                + (f", an idle process {row['idle cpu %']:.0f} %" if args.idle_processes else ""),
                flush=True,
            )
            for why, count in row["why"].most_common():
                print(f"{'':8} {count:>7} × {why}", flush=True)
    return results


if __name__ == "__main__":
    main()
