"""Light load: one room of three, one action at a time; action -> every other player's view (p50).

    .venv/bin/python bench/light.py [--actions 300] [--rounds 3]

Ours (app.py with its defaults, three bots on the JSON protocol playing
Mäxchen) against the floor of the stack (bench/floor.py: a bare
python-socketio relay on eventlet), in turns, in one run, so the machine's
drift hits both alike. Prints each round's p50 and p95 and ours / floor.
"""

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load  # noqa: E402

PLAYERS = 3


async def _timed(room, act, actions) -> list[float]:
    """Each action in turn: ms until every other player holds its version."""
    times = []
    for _ in range(actions):
        actor = act(room)
        if actor is None:
            break
        target = max(c.version for c in room) + 1
        futures = [c.expect(target) for c in room if c is not actor]
        sent = time.perf_counter()
        await actor.move()
        done = await asyncio.wait_for(asyncio.gather(*futures), timeout=10)
        times.append((max(done) - sent) * 1000)
        await asyncio.sleep(0.02)
    return times


class FloorClient(load.Client):
    async def connect(self, room):
        self.sio.on("view", lambda view: self.shows(view["version"]))
        await self.dial(auth={"room": room})

    async def move(self):
        await self.sio.call("action", {"action": "x"}, timeout=10)


class OurClient(load.BotClient):
    async def move(self):
        await self.act(load.next_move(self.mine))


async def floor_round(base, actions) -> list[float]:
    room = [FloorClient(base) for _ in range(PLAYERS)]
    name = f"r{time.monotonic_ns()}"
    for client in room:
        await client.connect(name)
    turn = iter(range(10**9))
    try:
        return await _timed(room, lambda r: r[next(turn) % PLAYERS], actions)
    finally:
        await asyncio.gather(*(c.close() for c in room))


async def our_round(base, actions) -> list[float]:
    host = OurClient(base)
    await host.create("P0")
    room = [host]
    for i in range(1, PLAYERS):
        guest = OurClient(base)
        await guest.join(host.code, f"P{i}")
        room.append(guest)
    for client in room:
        await client.connect()
    try:
        times = []
        while len(times) < actions:  # a game ends: the host starts the next
            await host.act({"action": "start"})
            times += await _timed(room, lambda r: next((c for c in r if load.next_move(c.mine)), None), actions)
        return times[:actions]
    finally:
        await asyncio.gather(*(c.close() for c in room))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="maxchen-light-") as instance:
        ours, ours_base = load.start_server(instance)
        port = load._free_port()
        floor = subprocess.Popen([sys.executable, str(Path(__file__).with_name("floor.py")), str(port)])
        try:
            load.wait_for_port(port)
            asyncio.run(our_round(ours_base, 20))  # warm-ups
            asyncio.run(floor_round(f"http://127.0.0.1:{port}", 20))
            print(f"{'round':>5} {'ours p50':>9} {'floor p50':>9} {'ratio':>6} {'ours p95':>9} {'floor p95':>9}")
            rows = []
            for n in range(1, args.rounds + 1):
                mine = asyncio.run(our_round(ours_base, args.actions))
                base = asyncio.run(floor_round(f"http://127.0.0.1:{port}", args.actions))
                p50, f50 = statistics.median(mine), statistics.median(base)
                rows.append((p50, f50))
                print(
                    f"{n:>5} {p50:>9.2f} {f50:>9.2f} {p50 / f50:>6.2f} "
                    f"{load._pct(mine, 0.95):>9.2f} {load._pct(base, 0.95):>9.2f}",
                    flush=True,
                )
            return rows
        finally:
            for process in (ours, floor):
                process.terminate()
                process.wait()


if __name__ == "__main__":
    main()
