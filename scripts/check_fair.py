"""Check every die of a maxchen game yourself, from its published seeds (docs/API.md, "Fair dice").

    python3 scripts/check_fair.py maxchen-K7WQPX.csv     # the statistics page's CSV, a room's or a class's

Needs nothing but Python 3: it does not use maxchen's code. For each row with
a server seed it checks that sha256(server seed) is the commit the table saw
before the shake, that the seeds give the dice in the row, that loaded dice
use one of the documented loadings, and that each game's rows name one room
and one seat per player. A phone checks more as it plays: that each commit and
where its cup is rolled were shown before the shake. Exit status 0 when every
cup holds, 1 when one does not or none could be checked.
"""

import csv
import hashlib
import hmac
import sys

FAIR = (1, 1, 1, 1, 1, 1)
LOADINGS = {(3, 3, 3, 3, 3, 5): "1/4", (2, 2, 2, 2, 2, 5): "1/3", (1, 1, 1, 1, 1, 5): "1/2"}  # a lesson's hunt


def roll(server_seed, client_seed, room, game, round_, seat, count, weights=FAIR):
    """The `count` dice the seeds give: HMAC-SHA256 bytes, each below 256 - 256 % sum(weights) a face."""
    total = sum(weights)
    limit = 256 - 256 % total
    dice, counter = [], 0
    while len(dice) < count:
        message = f"{client_seed}:{room}:{game}:{round_}:{seat}:{counter}".encode()
        for byte in hmac.new(server_seed.encode(), message, hashlib.sha256).digest():
            if byte < limit and len(dice) < count:
                rest, face = byte % total, 1
                while rest >= weights[face - 1]:
                    rest -= weights[face - 1]
                    face += 1
                dice.append(face)
        counter += 1
    return dice


def commit(server_seed):
    """What the table saw before the shake."""
    return hashlib.sha256(server_seed.encode()).hexdigest()


def check_row(row):
    """None when the row's dice come from its seeds, else what is wrong; "skip" when it has no server seed."""
    if not row.get("server_seed"):
        return "skip"
    if commit(row["server_seed"]) != row["commit"]:
        return "the server seed does not give the commit"
    dice = [int(die) for die in row["dice"].split()]
    weights = tuple(int(w) for w in row["weights"].split()) if row.get("weights") else FAIR
    if weights != FAIR and weights not in LOADINGS:
        return f"the weights {row['weights']} are none of a hunt's loadings"
    seeds = (row["server_seed"], row["client_seed"], row["room"], row["game"], row["round"], row["seat"])
    rolled = roll(*seeds, len(dice), weights)
    if sorted(rolled) != sorted(dice):
        return f"the seeds give {' '.join(map(str, sorted(rolled, reverse=True)))}, not {row['dice']}"
    return None


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(args) != 1 else sys.stdout)
        return 2 if len(args) != 1 else 0
    try:
        file = open(args[0], newline="", encoding="utf-8-sig")  # noqa: SIM115 - closed below
    except OSError as error:
        print(f"cannot read {args[0]}: {error.strerror}", file=sys.stderr)
        return 2
    checked = skipped = 0
    wrong = []
    places = {}  # (table, game) -> its room; (table, game, player) -> their seat, and back
    with file:
        for line, row in enumerate(csv.DictReader(file), 2):
            problem = check_row(row)
            game = (row.get("table", ""), row["game"])
            said = {game: row["room"], (*game, row["player"]): row["seat"], (*game, "#", row["seat"]): row["player"]}
            if problem != "skip" and any(places.setdefault(key, value) != value for key, value in said.items()):
                problem = "another room or seat than the game's other rows say"
            if problem == "skip":
                skipped += 1
            elif problem:
                wrong.append(f"line {line} (game {row['game']}, round {row['round']}): {problem}")
            else:
                checked += 1
    for problem in wrong:
        print(problem)
    held = f"all {checked} hold" if not wrong else f"{checked} hold, {len(wrong)} do not"
    print(f"{checked + len(wrong)} cups checked: {held}", end="")
    print(f"; {skipped} without a server seed (rolled before the seeds, or held by a hunt)" if skipped else "")
    return 1 if wrong or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
