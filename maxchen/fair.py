"""Dice nobody can choose, and seals anyone can check (docs/API.md, "Fair dice"; the page /fair).

Every cup since this scheme: before it is rolled the server draws a secret
server seed (32 bytes, 64 hex digits) and everyone sees its commit,
`sha256(server_seed)` in hex; a loaded cup's commit covers its weights too,
`sha256(server_seed + ":" + "3,3,3,3,3,5")`, so its loading is fixed before
the shake (`commit_of`). The shake brings the roller's own client seed
(32 to 64 hex digits; the server draws one when none comes). The dice are
then read from `HMAC-SHA256(key=server_seed, msg=client_seed:room:game:
round:seat:counter)`, counter 0, 1, … as long as dice are missing, byte by
byte: a byte below 252 gives the face `byte % 6 + 1`, a higher one is
skipped. A loaded table of a lesson maps with weights instead (`faces`),
secret until the reveal as the seed is. The reveal publishes the server seed: anyone can check the commit and roll
the dice again. `check` does; scripts/check_fair.py does it without us.

Older cups (saved before) carry a seal: `sha256("6,5:" + salt)`, opened by
the salt at a check (`verify`). Pure: no Flask; seeds come from the system's
generator (what `secrets` reads), whatever the dice source.
"""

import hashlib
import hmac
import math
import os
import re
from fractions import Fraction

from .errors import IllegalMove


def text(dice, salt: str) -> str:
    """The canonical text of a cup: "6,5:" + salt."""
    return ",".join(str(die) for die in dice) + ":" + salt


def commitment(dice, salt: str) -> str:
    """The seal of a cup: sha256 of its canonical text, in hex."""
    return hashlib.sha256(text(dice, salt).encode()).hexdigest()


def verify(dice, salt, sealed) -> bool:
    """Whether shown dice and salt are the ones sealed in `sealed` (a commitment)."""
    if not isinstance(salt, str) or not isinstance(sealed, str) or not isinstance(dice, list | tuple):
        return False
    if not all(type(die) is int and 1 <= die <= 6 for die in dice):
        return False
    return hmac.compare_digest(commitment(dice, salt), sealed)


def verify_reveal(reveal: dict | None, loaded: str | None = None) -> bool | None:
    """Whether every cup a view's `reveal` opens gives its dice; None when it opens none (an accepted 21)
    or a hunt holds its seeds back. `loaded`: the table's told loading (the view's `loaded`).

    Two dice: `dice` and `fair`, the cup's record (`check`). Lügen and Perudo:
    `dice` and `fair` each map a player id to that player's cup. A cup rolled
    before the seeds is opened by its `salt` against its `commitment` instead.
    A careful client also holds each `commit` to the one its views carried
    before the shake (`maxchen.client.Player.fair`).
    """
    if not reveal or not reveal.get("dice"):
        return None
    dice, records = reveal["dice"], reveal.get("fair") or {}
    salts, sealed = reveal.get("salt") or {}, reveal.get("commitment") or {}
    if isinstance(dice, dict):
        if not all(isinstance(part, dict) for part in (records, salts, sealed)):
            return False
        if any((record or {}).get("held") for record in records.values()):
            return None
        return all(
            _opens(cup, records.get(player), salts.get(player), sealed.get(player), loaded)
            for player, cup in dice.items()
        )
    if "commit" in records:
        return None if records.get("held") else len(dice) == 2 and check(records, dice, loaded)
    if not salts:
        return None  # saved before the seals: nothing to check
    return verify(dice, salts, sealed)


def _opens(cup, record, salt, sealed, loaded) -> bool:
    return check(record, cup, loaded) if record else verify(cup, salt, sealed)


# --- dice nobody can choose ------------------------------------------------

# The worked example of docs/API.md and the page /fair (its server seed: sha256("maxchen worked example")):
# its cup of two is 1-1; of five, 6-6-5-1-1 (the third byte, 252, is skipped).
EXAMPLE = {
    "server_seed": "02c633584620bc122a7f0460433eff9ff5d9eceaf78c66497aac3b2b591e2bb7",
    "client_seed": "00112233445566778899aabbccddeeff",
    "room": "K7WQPX",
    "game": 1,
    "round": 1,
    "seat": 1,
}
SEED_BYTES = 32  # a server seed: 64 hex digits
SEEDS_PER_READ = 256  # seeds read from the system's generator at once: a read is a system call
CLIENT_SEED = re.compile(r"[0-9a-f]{32,64}")  # a phone sends 32 (128 bits from crypto.getRandomValues)
FAIR = (1, 1, 1, 1, 1, 1)  # the weights of faces 1..6 on fair dice
_seeds: list[str] = []
os.register_at_fork(after_in_child=_seeds.clear)


def new_seed() -> str:
    """A fresh server seed: 32 bytes of the system's generator, as 64 hex digits, never handed out twice.

    No lock: list.pop and list.extend are atomic, and under eventlet a lock turns green, which a thread of
    its pool (a simulation rolling its cups) must not wait on. Two callers that find the pool empty each
    read seeds of their own.
    """
    try:
        return _seeds.pop()
    except IndexError:
        pool = os.urandom(SEED_BYTES * SEEDS_PER_READ).hex()
        fresh = [pool[i : i + 2 * SEED_BYTES] for i in range(0, len(pool), 2 * SEED_BYTES)]
        seed = fresh.pop()
        _seeds.extend(fresh)
        return seed


def commit_of(server_seed: str, weights=None) -> str:
    """What everyone sees before the roll: sha256 of the server seed's 64 hex digits, in hex; for a loaded cup
    (weights other than FAIR) of the seed, a colon and its weights ("…:3,3,3,3,3,5"): one commit opens for one
    loading only, chosen before the shake. Fair cups' commits are the same as before loadings were bound."""
    text = server_seed
    if weights and tuple(weights) != FAIR:
        text += ":" + ",".join(str(weight) for weight in weights)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


CONTEXT = ("room", "game", "round", "seat")  # where a cup is rolled: the message's fields after the client seed


def pending(room: str = "", game: int = 0, round: int = 0, seat: int = 0, draw=new_seed, weights=None) -> dict:  # noqa: A002
    """A cup about to be rolled: its secret server seed, the commit shown for it and where it is rolled
    (shown with the commit, so that nobody can change the message's fields after the shake). `seat`: the
    roller's place in the game's seating, from 1 (no player id: the CSV names nobody). `draw`: where seeds
    come from (a replayed test's dice draw their own). `weights`: a loaded table's (secret, in the commit)."""
    seed = draw()
    commit = commit_of(seed, weights)
    before = {"seed": seed, "commit": commit, "room": room, "game": game, "round": round, "seat": seat}
    if weights:
        before["weights"] = list(weights)
    return before


def client_seed(value) -> str | None:
    """A shake's own seed: None when none came, else 32 to 64 lower-case hex digits, or IllegalMove."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not CLIENT_SEED.fullmatch(value):
        raise IllegalMove("bad_seed")
    return value


def weights(six) -> tuple[int, ...]:
    """The weights of faces 1..6 when a six comes `six` of the time and the other faces share the rest
    alike, in the smallest whole numbers: 1/6 is FAIR, 1/4 is (3, 3, 3, 3, 3, 5)."""
    six = Fraction(six)
    other = (1 - six) / 5
    scale = six.denominator * other.denominator
    units = [int(other * scale)] * 5 + [int(six * scale)]
    common = math.gcd(*units)
    return tuple(unit // common for unit in units)


def cup(before: dict, seed: str | None, draw=new_seed) -> dict:
    """A cup's record from its pending cup and the roller's seed (drawn here when none came): everything its
    dice are read from; `server_seed` (and a loaded cup's `weights`) are secret until the reveal."""
    record = {
        "commit": before["commit"],
        "server_seed": before["seed"],
        "client_seed": seed or draw()[:32],
        "by": "player" if seed else "server",
        **{field: before[field] for field in CONTEXT},
    }
    if before.get("weights"):
        record["weights"] = list(before["weights"])
    return record


def message(record: dict, counter: int) -> bytes:
    """The HMAC's message: client_seed:room:game:round:seat:counter."""
    parts = (record["client_seed"], record["room"], record["game"], record["round"], record["seat"], counter)
    return ":".join(str(part) for part in parts).encode()


def faces(record: dict, count: int) -> list[int]:
    """The `count` dice a cup's record gives, in the order drawn.

    Each HMAC block gives 32 bytes. With weights w1..w6 (sum n), a byte
    below 256 - 256 % n is used, the rest skipped: r = byte % n, and the
    face is the first f with r < w1 + … + wf. Fair weights: byte % 6 + 1.
    """
    key = record["server_seed"].encode("ascii")
    scale = record.get("weights") or FAIR
    if not usable(scale):
        raise ValueError(f"weights {scale!r} are no loading")
    total = sum(scale)
    limit = 256 - 256 % total
    dice: list[int] = []
    counter = 0
    while len(dice) < count:
        for byte in hmac.new(key, message(record, counter), hashlib.sha256).digest():
            if byte >= limit:
                continue
            rest = byte % total
            face = 1
            while rest >= scale[face - 1]:
                rest -= scale[face - 1]
                face += 1
            dice.append(face)
            if len(dice) == count:
                break
        counter += 1
    return dice


LOADINGS = {weights(six): six for six in ("1/4", "1/3", "1/2")}  # the hunt's loadings (maxchen/table.py)
# What a record keeps back until its reveal: the seeds (a pending cup's "seed") and a hunt's weights.
SECRET = ("seed", "server_seed", "weights")


def usable(scale) -> bool:
    """Fair weights, or a hunt's: six whole numbers no byte would loop on."""
    return tuple(scale) == FAIR or tuple(scale) in LOADINGS


def public(record: dict | None) -> dict | None:
    """A cup's record as the table sees it before its reveal: the seed that made it stays here."""
    if record is None:
        return None
    return {key: value for key, value in record.items() if key not in SECRET}


def cups(view: dict) -> dict:
    """Cup ("" for the one cup of Mäxchen and Poschen, else a player id) -> what a view (or a reveal) shows
    of it: its record, or for a cup rolled before the seeds {"commit": its seal}."""
    seals = view.get("commitment") or view.get("commitments") or {}
    shown = {cup: {"commit": seal} for cup, seal in ({"": seals} if isinstance(seals, str) else seals).items()}
    records = view.get("fair") or {}
    if "commit" in records:
        shown[""] = records
    else:
        shown.update((player, record) for player, record in records.items() if record)
    return shown


# A CSV row without a server seed says why in its `unchecked` column (scripts/check_fair.py fails one that
# does not): rolled before the seeds existed (no commit), or held back while a lesson's hunt runs.
UNCHECKED = ("before_seeds", "held")


def unchecked(commit: str, held: bool) -> str:
    """A CSV row's `unchecked` mark, from its commit cell and whether a hunt holds its table's seeds back."""
    if not commit:
        return UNCHECKED[0]
    return UNCHECKED[1] if held else ""


def agrees(record: dict, seen: dict) -> bool | None:
    """Whether a revealed cup's record is the one a view showed before: its commit, where it is rolled, and
    the roller's seed once it was shown (a server cannot change the message after the shake). None: that
    view's cup may have been another (a believe missed) or was first seen shaken: nothing to vouch for."""
    if "server_seed" not in record:  # an old seal: its server might have chosen the dice; never one seen with seeds
        return None if "room" not in seen and record.get("commit") == seen.get("commit") else False
    if seen.get("swapped") or any(record.get(field) != seen.get(field) for field in CONTEXT):
        return False
    if "client_seed" in seen and record.get("client_seed") != seen["client_seed"]:
        return False
    if record.get("commit") != seen.get("commit"):
        return False if "client_seed" in seen else None
    return None if seen.get("late") else True


def held(records):
    """A reveal's record (or a map of them) while a lesson's hunt keeps its tables' dice secret: all but the
    server seed and the weights, marked `held` (they come once the teacher reveals the loaded table)."""
    if not records:
        return records
    if "commit" in records:
        return {**public(records), "held": True}
    return {player: held(record) for player, record in records.items()}


def check(record, dice, loaded: str | None = None) -> bool:
    """Whether a revealed cup's record opens its commit (which covers its weights: `commit_of`) and gives
    exactly `dice` (in any order); weights only as the table's told loading `loaded` ("1/4", …) has them,
    none on fair dice."""
    try:
        weights_of = record.get("weights")  # none (fair dice) always; else the told loading's
        if weights_of and tuple(weights_of) != (weights(loaded) if loaded else None):
            return False
        seed = record["server_seed"]
        if not isinstance(seed, str) or not re.fullmatch(r"[0-9a-f]{64}", seed):
            return False
        if not hmac.compare_digest(commit_of(seed, weights_of), str(record["commit"])):
            return False
        if not isinstance(dice, list | tuple) or not all(type(die) is int for die in dice):
            return False
        return sorted(faces(record, len(dice))) == sorted(dice)
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
