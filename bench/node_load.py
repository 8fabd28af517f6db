"""Bots of a stock Node socket.io-client (bench/node/driver.mjs) against app.py: memory at its peak.

    (cd bench/node && npm install)   # once: socket.io-client into bench/node/node_modules
    .venv/bin/python bench/node_load.py [--players 1002 2004] [--seconds 20] [--checkout DIR]

The same rooms of 6 and moves as bench/load.py's bots, from another client
library, so that what the server keeps per player is not our client's doing.
Prints per step the latency the driver saw and the server's RSS per player:
in the steady state (`KB/player`) and at its high-water mark (`peak KB`),
each minus the RSS after one warm-up room played and left.
"""

import argparse
import asyncio
import json
import subprocess
import tempfile
import time
from pathlib import Path

import load

DRIVER = Path(__file__).with_name("node") / "driver.mjs"


def step(players: int, seconds: float, checkout: Path = load.ROOT) -> dict:
    with tempfile.TemporaryDirectory(prefix="maxchen-node-") as instance:
        server, base = load.start_server(instance, checkout)
        try:
            asyncio.run(load.warm_up("bot", [base]))
            time.sleep(0.5)
            _, before = load._procs([server.pid])
            driver = subprocess.Popen(
                ["node", str(DRIVER), base, str(players), str(seconds)], stdout=subprocess.PIPE, text=True
            )
            assert driver.stdout.readline().strip() == "seated", "the driver failed to seat its rooms"
            time.sleep(seconds / 2)
            _, steady = load._procs([server.pid])
            figures = json.loads(driver.stdout.readline())
            driver.wait()
            _, peak = load._procs([server.pid], "VmHWM")
        finally:
            server.terminate()
            server.wait()
    seated = figures["players"]
    return {
        **figures,
        "KB/player": (steady - before) / 1024 / seated,
        "peak KB/player": (peak - before) / 1024 / seated,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[1002, 2004])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--checkout", type=Path, default=load.ROOT, help="run app.py of another checkout")
    args = parser.parse_args(argv)
    print(f"{'players':>7} {'p50 ms':>7} {'p95 ms':>7} {'actions':>7} {'errors':>6} {'KB/player':>9} {'peak KB':>7}")
    for players in args.players:
        row = step(players, args.seconds, args.checkout)
        print(
            f"{row['players']:>7} {row['p50']:>7.1f} {row['p95']:>7.1f} {row['actions']:>7} {row['errors']:>6} "
            f"{row['KB/player']:>9.0f} {row['peak KB/player']:>7.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
