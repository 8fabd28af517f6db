"""Check every die of a maxchen game yourself, from its published seeds (docs/API.md, "Fair dice").

    python3 scripts/check_fair.py maxchen-K7WQPX.csv     # the statistics page's CSV, a room's or a class's

Needs nothing but Python 3: it does not use maxchen's code. For each row with
a server seed it checks that the server seed opens the commit the table saw
before the shake (a loaded cup's commit covers its weights too), that the
seeds give the dice in the row, that a cup's weights are its table's told
loading (the `loaded` column of a class's CSV: from the loading's first game
on, the same for every cup of that table, on one table only) and none
elsewhere, that `value`, `outcome`, `lie`, `too_high` and `table_count` say
what the dice say, and that each game's rows name one room and one seat per
player. A row without a server seed fails unless its `unchecked` column says
why: `before_seeds` (rolled before the seeds existed: before any cup of its
table with seeds) or `held` (a lesson's hunt holds its class's seeds back
until the teacher reveals the loaded table); such rows are counted as not
checked, never as holding. A phone checks more as it plays: that each commit
and where its cup is rolled were shown before the shake. Exit status 0 when
every cup holds, 1 when one does not or none could be checked.
"""

import csv
import hashlib
import hmac
import re
import sys

FAIR = (1, 1, 1, 1, 1, 1)
LOADINGS = {"1/4": (3, 3, 3, 3, 3, 5), "1/3": (2, 2, 2, 2, 2, 5), "1/2": (1, 1, 1, 1, 1, 5)}  # a lesson's hunt
# Two dice, lowest first (docs/rules.md §1): plain numbers, doubles, then Mäxchen (21).
LADDER = (31, 32, 41, 42, 43, 51, 52, 53, 54, 61, 62, 63, 64, 65, 11, 22, 33, 44, 55, 66, 21)
TWO_DICE = {"maexchen": ("true", "lie", "believed", "accepted", "void"), "poschen": ("true", "lie", "believed", "void")}
# Liar's dice: whether ones may count as jokers for the bid face (Perudo: not in a palifico round).
BIDDING = {"luegen": (True,), "perudo": (True, False)}
JOKER = 1
WHY_NOT = {"before_seeds": "rolled before the seeds", "held": "held back by a running hunt"}  # `unchecked`


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


def commit(server_seed, weights=FAIR):
    """What the table saw before the shake: sha256 of the server seed, and of a loaded cup's weights with it."""
    text = server_seed if tuple(weights) == FAIR else server_seed + ":" + ",".join(map(str, weights))
    return hashlib.sha256(text.encode()).hexdigest()


def value_of(dice):
    """The value of two dice: the higher die is the tens digit; 2 and 1 are Mäxchen, 21."""
    high, low = sorted(dice, reverse=True)
    return high * 10 + low


def counting(dice, face, wild):
    """How many of `dice` count for a bid's `face` (ones too while they are jokers)."""
    return sum(1 for die in dice if die == face or (wild and face != JOKER and die == JOKER))


def _number(text):
    return int(text) if text.isdigit() else None


WHOLE = re.compile(r"[1-9][0-9]*")
ROOM = re.compile(r"[A-Z0-9]{4,8}")
COLUMNS = ("game", "round", "rules", "player", "dice", "room", "seat", "commit", "server_seed", "client_seed")


def check_row(row):
    """None when the row's dice come from its seeds and its columns say what they do, else what is wrong;
    "skip" when it has no server seed (`unchecked` says why, or it fails: `marked`)."""
    problem = marked(row)
    if problem is not None:
        return problem
    if not row.get("server_seed"):
        return "skip"
    for key in ("game", "round", "seat"):  # in the dice's message as written: one way to write each number
        if not WHOLE.fullmatch(row.get(key) or ""):
            return f"the {key} {row.get(key)!r} is not a whole number written plainly (1, 2, …)"
    if not ROOM.fullmatch(row.get("room") or ""):
        return f"the room {row.get('room')!r} is no room code"
    try:
        dice = [int(die) for die in row["dice"].split()]
        weights = tuple(int(w) for w in row["weights"].split()) if row.get("weights") else FAIR
    except ValueError:
        return "dice or weights that are no numbers"
    if not dice or not all(1 <= die <= 6 for die in dice):
        return f"the dice {row['dice']!r} are none a cup holds"
    told = LOADINGS.get(row.get("loaded") or "")
    if row.get("loaded") and told is None:
        return f"the loading {row['loaded']!r} is none of a hunt's"
    if weights != (told or FAIR):
        if told is None:
            return f"the weights {row['weights']} at a table told of no loading"
        return f"the weights {row.get('weights') or '(none)'} are not the table's told loading {row['loaded']}"
    if commit(row["server_seed"], weights) != row["commit"]:
        return "the server seed does not give the commit" + (" (with its weights)" if told else "")
    seeds = (row["server_seed"], row["client_seed"], row["room"], row["game"], row["round"], row["seat"])
    rolled = roll(*seeds, len(dice), weights)
    if sorted(rolled) != sorted(dice):
        return f"the seeds give {' '.join(map(str, sorted(rolled, reverse=True)))}, not {row['dice']}"
    return said(row, dice)


def marked(row):
    """What is wrong with a row's `unchecked` mark (None: nothing)."""
    mark = row.get("unchecked") or ""
    if mark and mark not in WHY_NOT:
        return f"unchecked says {mark!r}, neither before_seeds nor held"
    if not row.get("server_seed") and not mark:
        return "no server seed, and not marked as rolled before the seeds or held by a hunt"
    if mark == "before_seeds" and any(row.get(key) for key in ("commit", "server_seed", "client_seed", "weights")):
        return "marked as rolled before the seeds, but it has seeds"
    if mark == "held":
        if "table" not in row:
            return "held by a hunt, but a hunt is a class's: this is no class's CSV"
        if row.get("server_seed") or row.get("weights") or row.get("loaded") or not row.get("commit"):
            return "held by a hunt, but it shows what a hunt holds back, or no commit"
    return None


def said(row, dice):
    """What is wrong with what the row says of its dice (`value`, `outcome`, `lie`, `too_high`), else None."""
    rules, outcome = row.get("rules", ""), row.get("outcome", "")
    if rules in TWO_DICE:
        if len(dice) != 2:
            return f"{len(dice)} dice in a cup of two"
        if outcome not in TWO_DICE[rules]:
            return f"the outcome {outcome!r} is none of {rules}"
        value, announced = value_of(dice), _number(row.get("announced", ""))
        if row.get("value") != str(value):
            return f"the value {row.get('value')} beside dice {row['dice']} (they make {value})"
        if row.get("announced") and announced not in LADDER:
            return f"{row['announced']!r} is no value to announce"
        lie = "" if announced is None else str(int(LADDER.index(value) < LADDER.index(announced)))
        if row.get("lie", "") != lie or (outcome, lie) in (("true", "1"), ("lie", "0"), ("true", ""), ("lie", "")):
            return f"lie {row.get('lie')!r} and outcome {outcome} beside {value} announced as {row.get('announced')!r}"
        if any(row.get(key) for key in ("bid_count", "bid_face", "table_count", "too_high")):
            return "a bid in a game of two dice"
        return None
    if rules in BIDDING:
        if outcome not in ("true", "too_high", "shown", "void"):
            return f"the outcome {outcome!r} is none of {rules}"
        if outcome == "void":
            empty = ("value", "bid_count", "bid_face", "table_count", "too_high", "lie")
            return "a void round's cup with a bid or a count" if any(row.get(key) for key in empty) else None
        count, face, table = (_number(row.get(key, "")) for key in ("bid_count", "bid_face", "table_count"))
        if count is None or face not in range(1, 7) or table is None:
            return "a called cup without its bid or the table's count"
        if row.get("value") not in {str(counting(dice, face, wild)) for wild in BIDDING[rules]}:
            return f"the value {row.get('value')} beside dice {row['dice']} for {count} × {face}"
        stood = {"true": "0", "too_high": "1", "shown": ""}[outcome]
        fell = outcome == "true" and table < count or outcome == "too_high" and table >= count
        if row.get("too_high", "") != stood or row.get("lie") or fell:
            return f"too_high {row.get('too_high')!r} and outcome {outcome} beside {table} found for {count} × {face}"
        return None
    return f"the rules {rules!r} are unknown to this script"


def _rounds(rounds):
    """What is wrong with the called rounds of liar's dice: each cup's value counted alike (jokers or none), and
    their sum the table's count. {first line: problem}."""
    wrong = {}
    for rows in rounds.values():
        line, rules = rows[0][0], rows[0][1]["rules"]
        bids = {(r["bid_count"], r["bid_face"], r["table_count"]) for _, r in rows}
        if len(bids) != 1:
            wrong[line] = "the round's cups name other bids or counts"
            continue
        face, table = int(rows[0][1]["bid_face"]), int(rows[0][1]["table_count"])
        alike = any(
            all(r["value"] == str(counting(dice, face, wild)) for (_, r), dice in zip(rows, _dice(rows), strict=True))
            and sum(counting(dice, face, wild) for dice in _dice(rows)) == table
            for wild in BIDDING[rules]
        )
        if not alike:
            wrong[line] = f"the round's cups do not hold the {table} the table counted"
    return wrong


def _dice(rows):
    return [[int(die) for die in row["dice"].split()] for _, row in rows]


class Tables:
    """What the rows of one table must agree on: one loading from its first game on, seeds held all or none,
    no cup rolled before the seeds after one with seeds."""

    def __init__(self):
        self.loaded = {}  # table -> {six: first game}
        self.first_seeded = {}  # table -> the (game, round) of its first cup with seeds
        self.before = {}  # table -> [(line, (game, round))] of rows rolled before the seeds
        self.held = {}  # table -> {held or not: first line}
        self.games = {}  # table -> [(line, game, loaded)]

    def note(self, line, row):
        """Take one row in (whatever else is wrong with it)."""
        table = row.get("table", "")
        game, round_ = _number(row.get("game", "")), _number(row.get("round", ""))
        when = (game or 0, round_ or 0)
        mark = row.get("unchecked") or ""
        self.games.setdefault(table, []).append((line, game or 0, row.get("loaded") or ""))
        if row.get("loaded"):
            self.loaded.setdefault(table, {}).setdefault(row["loaded"], game or 0)
        if mark == "before_seeds":
            self.before.setdefault(table, []).append((line, when))
        elif row.get("commit"):
            first = self.first_seeded.get(table)
            self.first_seeded[table] = when if first is None else min(first, when)
            self.held.setdefault(table, {}).setdefault(mark == "held", line)

    def wrong(self):
        """{line: problem} of what the rows of a table do not agree on."""
        wrong = {}
        if len(self.loaded) > 1:
            for table in list(self.loaded)[1:]:
                wrong[self.games[table][0][0]] = "a second loaded table: a class's hunt loads one"
        for table, sixes in self.loaded.items():
            if len(sixes) > 1:
                wrong[self.games[table][0][0]] = f"the table's loading changes: {', '.join(sixes)}"
            start = min(sixes.values())
            for line, game, loaded in self.games[table]:
                if game >= start and not loaded:
                    wrong.setdefault(line, f"no loading on a cup of a table loaded from game {start} on")
        held = [lines[True] for lines in self.held.values() if True in lines]
        if held and any(False in lines for lines in self.held.values()):  # a hunt holds every table's, or none
            for line in held:
                wrong.setdefault(line, "held back by a hunt, while another table's cups show their seeds")
        for lines in self.held.values():
            if len(lines) > 1:
                wrong[max(lines.values())] = "some cups of the table held back by a hunt and some not"
            if True in lines and self.loaded:
                wrong.setdefault(lines[True], "held back by a hunt, but the hunt's loading is told")
        for table, rows in self.before.items():
            first = self.first_seeded.get(table)
            for line, when in rows:
                if first is not None and when > first:
                    wrong.setdefault(line, "marked as rolled before the seeds, after a cup of its table with seeds")
        return wrong


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
    wrong, skipped, read = {}, {}, {}  # line -> its problem, why it has no server seed, the row
    places = {}  # (table, game) -> its room; (table, game, player) -> their seat, and back
    rounds = {}  # (table, game, round) -> [(line, row)] of a liar's-dice round's called cups
    broken = set()  # the rounds of rows that fail on their own
    tables = Tables()
    seen = {}  # a commit or server seed -> the line that used it first
    with file:
        reader = csv.DictReader(file)
        missing = [column for column in COLUMNS if column not in (reader.fieldnames or ())]
        if missing:
            print(f"{args[0]} is no maxchen CSV: it has no column {', '.join(missing)}", file=sys.stderr)
            return 2
        for line, row in enumerate(reader, 2):
            row = {key: (value or "").strip() for key, value in row.items() if key is not None}
            problem = check_row(row)
            for key in ("commit", "server_seed"):  # each cup has seeds of its own
                if row.get(key) and seen.setdefault((key, row[key]), line) != line:
                    problem = problem or f"the {key} of line {seen[(key, row[key])]} again"
            game = (row.get("table", ""), row.get("game", ""))
            said = {game: row["room"], (*game, row["player"]): row["seat"], (*game, "#", row["seat"]): row["player"]}
            if problem != "skip" and any(places.setdefault(key, value) != value for key, value in said.items()):
                problem = problem or "another room or seat than the game's other rows say"
            tables.note(line, row)
            if problem == "skip":
                skipped[line] = row["unchecked"]
            elif problem:
                wrong[line] = problem
                broken.add((*game, row.get("round")))
            elif row["rules"] in BIDDING and row["outcome"] != "void":
                rounds.setdefault((*game, row["round"]), []).append((line, row))
            read[line] = row
    whole = {key: rows for key, rows in rounds.items() if key not in broken}  # a round with a bad cup fails already
    for line, problem in {**_rounds(whole), **tables.wrong()}.items():
        wrong[line] = f"{wrong[line]}; {problem}" if line in wrong else problem  # a round's count, and its rows
        skipped.pop(line, None)
    checked = len(read) - len(wrong) - len(skipped)
    for line, problem in sorted(wrong.items()):
        row = read[line]
        print(f"line {line} (game {row.get('game')}, round {row.get('round')}): {problem}")
    verdict = f": {checked} hold, {len(wrong)} do not" if wrong else f": all {checked} hold" if checked else ""
    print(f"{checked + len(wrong)} cups checked{verdict}", end="")
    if skipped:
        why = {mark: sum(1 for m in skipped.values() if m == mark) for mark in WHY_NOT}
        reasons = ", ".join(f"{n} {WHY_NOT[mark]}" for mark, n in why.items() if n)
        print(f"; {len(skipped)} not checked: no server seed ({reasons})", end="")
    print()
    return 1 if wrong or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
