"""Three scripted players play one whole game against a running server.

    python scripts/play_bots.py --url http://127.0.0.1:5000 [--players 3]

Prints the room link (open it to watch) and each move, then the winner.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from maxchen.client import Player, create_room, join_room, simple_move  # noqa: E402

NAMES = ["Ann", "Ben", "Cem", "Dana", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jule"]


def play(url: str, count: int = 3, rules: str = "maexchen", say=print) -> dict:
    """Create a room, seat `count` bots, play to the end; the final view."""
    host = create_room(url, NAMES[0], rules)
    say(f"room {host['code']}: {host['url']}")
    seats = [host] + [join_room(url, host["code"], name) for name in NAMES[1:count]]
    players = [Player(url, seat["token"]).connect() for seat in seats]
    names = {seat["player"]: name for seat, name in zip(seats, NAMES, strict=False)}
    try:
        players[0].act("start")
        while True:
            view = players[0].wait_for(lambda v: v["phase"] == "over" or v["turn"] is not None)
            if view["phase"] == "over":
                break
            mover = next(p for p in players if p.view["you"] == view["turn"]["player"])
            mine = mover.wait_for(lambda v, version=view["version"]: v["version"] >= version)
            move = simple_move(mine)
            if move is None:
                continue
            after = mover.act(**move, version=mine["version"])
            detail = f" {move['value']}" if "value" in move else ""
            say(f"{names[mine['you']]}: {move['action']}{detail}")
            if move["action"] in ("check", "accept") and after["reveal"]:
                reveal = after["reveal"]
                say(f"  -> {names[reveal['loser']]} +{reveal['penalty']} (dice {reveal['dice']})")
        final = players[0].view
        unit = "lives" if "lives" in final["players"][0] else "points"
        say(f"{unit}: " + ", ".join(f"{p['name']} {p[unit]}" for p in final["players"]))
        say(f"winner: {names[final['winner']]}")
        return final
    finally:
        for player in players:
            player.disconnect()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:5000")
    parser.add_argument("--players", type=int, default=3, choices=range(2, 11))
    parser.add_argument("--rules", default="maexchen", choices=["maexchen", "poschen"])
    args = parser.parse_args()
    started = time.monotonic()
    play(args.url.rstrip("/"), args.players, args.rules)
    print(f"({time.monotonic() - started:.1f} s)")


if __name__ == "__main__":
    main()
