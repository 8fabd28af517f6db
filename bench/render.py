"""Drawing a room's areas: µs per render of each, one Mäxchen (or other) room of 6 in the middle of a game.

    .venv/bin/python bench/render.py [RULES] [--renders 300] [--checkout DIR]

What a push costs in Jinja (maxchen.live): the public areas once per change
and language, a seat's controls when they changed. `--checkout` draws with
another checkout's code (e.g. `git worktree add /tmp/before COMMIT`).
"""

import argparse
import random
import sys
import time
from pathlib import Path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rules", nargs="?", default="maexchen")
    parser.add_argument("--renders", type=int, default=300)
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.checkout))
    from maxchen import live
    from maxchen.dice import SeededDice
    from maxchen.rooms import Rooms
    from maxchen.server import create_app

    rooms = Rooms(dice=SeededDice(7))
    app = create_app({"TESTING": True, "ROOMS": rooms, "SECRET_KEY": "bench"})
    seats = [rooms.create("Ann", args.rules)]
    code = seats[0]["code"]
    seats += [rooms.join(code, name) for name in ("Ben", "Cem", "Dan", "Eva", "Fay")]
    rooms.act(code, seats[0]["player"], {"action": "start"})
    rng = random.Random(1)
    for _ in range(12):  # a few moves in
        for seat in seats:
            view = rooms.view(code, seat["player"])
            allowed = [a for a in view["allowed"] if a != "leave"]
            if allowed:
                move = {"action": allowed[0]}
                if move["action"] in ("announce", "bid"):
                    choice = rng.choice(view["choices"])
                    move.update(choice if isinstance(choice, dict) else {"value": choice})
                rooms.act(code, seat["player"], move)
                break
    room = rooms.load(code)
    connected = dict.fromkeys(s["player"] for s in seats)
    timings = {}
    with app.app_context():
        public = room.public_view(connected)
        jobs = {area: (lambda area=area: live.render_public(public, "en", (area,))) for area in live.PUBLIC_AREAS}
        jobs[live.PRIVATE_AREA] = lambda: live.render_private(room, seats[1]["player"], "en")
        for area, job in jobs.items():
            job()  # compiled, catalogues loaded
            started = time.perf_counter()
            for _ in range(args.renders):
                job()
            timings[area] = 1e6 * (time.perf_counter() - started) / args.renders
            print(f"{area:10} {timings[area]:8.0f} µs", flush=True)
    return timings


if __name__ == "__main__":
    main()
