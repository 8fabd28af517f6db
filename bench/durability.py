"""What durability costs: the same load on the memory store and the SQLite store.

    .venv/bin/python bench/durability.py [--rooms 20] [--actions 6000] [--threads 1] [--repeat 3]

Each worker plays whole Mäxchen games through `Rooms.act` (the path every
HTTP and Socket.IO action takes): shake, announce 31, check. It prints actions
per second and the p50/p95/p99 latency of one action for each store, runs the
two stores in turns (memory, SQLite, memory, …) so both see the same machine
load, and prints the SQLite/memory throughput ratio of each turn. One OS
thread by default, as the eventlet server runs; with more threads CPython's
GIL hand-over around each SQLite call adds a cost the server does not have.
"""

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from maxchen.rooms import Rooms  # noqa: E402
from maxchen.store import MemoryStore, SqliteStore  # noqa: E402


def _table(rooms: Rooms) -> tuple[str, dict]:
    host = rooms.create("P0")
    players = {host["player"]: host}
    for name in ("P1", "P2"):
        seat = rooms.join(host["code"], name)
        players[seat["player"]] = seat
    rooms.act(host["code"], host["player"], {"action": "start"})
    return host["code"], host["player"]


def _move(view) -> dict:
    step = view["turn"]["step"]
    if step == "shake":
        return {"action": "shake"}
    if step == "announce":
        return {"action": "announce", "value": 31}
    return {"action": "check"}


def run(store, rooms_count: int, actions: int, threads: int) -> dict:
    """Play `actions` actions over `rooms_count` rooms; latencies in seconds."""
    rooms = Rooms(store=store)
    tables = [_table(rooms) for _ in range(rooms_count)]
    latencies: list[float] = []
    lock = threading.Lock()
    per_thread = actions // threads

    def worker(index):
        mine = [t for i, t in enumerate(tables) if i % threads == index] or [tables[index % len(tables)]]
        done, local = 0, []
        while done < per_thread:
            for slot, (code, host) in enumerate(mine):
                view = rooms.view(code, host)
                if view["phase"] == "over":
                    code, host = mine[slot] = _table(rooms)
                    view = rooms.view(code, host)
                player = view["turn"]["player"]
                move = _move(rooms.view(code, player))
                started = time.perf_counter()
                rooms.act(code, player, move)
                local.append(time.perf_counter() - started)
                done += 1
                if done >= per_thread:
                    break
        with lock:
            latencies.extend(local)

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    started = time.perf_counter()
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000

    return {
        "actions": len(latencies),
        "per_s": len(latencies) / elapsed,
        "p50": pct(50),
        "p95": pct(95),
        "p99": pct(99),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--actions", type=int, default=6000)
    parser.add_argument("--threads", type=int, default=1, help="OS threads (the eventlet server runs on one)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.actions} actions, {args.rooms} rooms, {args.threads} threads, {args.repeat} turns per store")
    print(f"{'store':8} {'actions/s':>10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    ratios, results = [], {"memory": [], "sqlite": []}
    with tempfile.TemporaryDirectory() as folder:
        for turn in range(args.repeat):
            memory = run(MemoryStore(), args.rooms, args.actions, args.threads)
            sqlite = run(SqliteStore(Path(folder) / f"bench-{turn}.db"), args.rooms, args.actions, args.threads)
            for name, result in (("memory", memory), ("sqlite", sqlite)):
                results[name].append(result)
                print(
                    f"{name:8} {result['per_s']:10.0f} {result['p50']:8.2f} {result['p95']:8.2f} {result['p99']:8.2f}"
                )
            ratios.append(sqlite["per_s"] / memory["per_s"])
    print("SQLite/memory throughput per turn: " + ", ".join(f"{r:.2f}" for r in ratios))
    print(f"median: SQLite keeps {statistics.median(ratios):.0%} of the memory store's throughput")


if __name__ == "__main__":
    main()
