"""Fair dice you can check: each cup is sealed when it is rolled and opened with its key at a check.

The seal of a cup is `sha256(text)` in hex, where `text` is the cup's dice as
the reveal lists them (highest first), joined by commas, then a colon and the
cup's salt: `"6,5:" + salt`, the salt 32 lower-case hex digits (16 random
bytes). Every view carries the seal from the roll on; the salt is as secret as
the dice and goes out only with them (docs/API.md, "Fair dice"; the page
/fair). Pure: no Flask; the salt comes from the system's generator (what `secrets` reads), whatever the
dice source.
"""

import hashlib
import hmac
import os

SALT_BYTES = 16
SALTS_PER_READ = 256  # one read of the system's generator for many cups: a read is a system call
_salts: list[str] = []
# A forked process must never hand out its parent's salts: one told at a check would open the other's cups.
os.register_at_fork(after_in_child=_salts.clear)


def new_salt() -> str:
    """A fresh salt: 16 bytes of the system's generator, as 32 hex digits, never handed out twice.

    No lock: list.pop and list.extend are atomic, and under eventlet a lock turns green, which a thread of
    its pool (a simulation sealing its cups) must not wait on. Two callers that find the pool empty each
    read salts of their own.
    """
    try:
        return _salts.pop()
    except IndexError:
        pool = os.urandom(SALT_BYTES * SALTS_PER_READ).hex()
        fresh = [pool[i : i + 2 * SALT_BYTES] for i in range(0, len(pool), 2 * SALT_BYTES)]
        salt = fresh.pop()
        _salts.extend(fresh)
        return salt


def text(dice, salt: str) -> str:
    """The canonical text of a cup: "6,5:" + salt."""
    return ",".join(str(die) for die in dice) + ":" + salt


def commitment(dice, salt: str) -> str:
    """The seal of a cup: sha256 of its canonical text, in hex."""
    return hashlib.sha256(text(dice, salt).encode()).hexdigest()


def seal(dice) -> dict:
    """A fresh salt for a cup just rolled, and its seal: {"salt", "commitment"}."""
    salt = new_salt()
    return {"salt": salt, "commitment": commitment(dice, salt)}


def verify(dice, salt, sealed) -> bool:
    """Whether shown dice and salt are the ones sealed in `sealed` (a commitment)."""
    if not isinstance(salt, str) or not isinstance(sealed, str) or not isinstance(dice, list | tuple):
        return False
    if not all(type(die) is int and 1 <= die <= 6 for die in dice):
        return False
    return hmac.compare_digest(commitment(dice, salt), sealed)


def verify_reveal(reveal: dict | None) -> bool | None:
    """Whether every cup a view's `reveal` opens matches its seal; None when it opens none (an accepted 21).

    Two dice: `dice`, `salt` and `commitment` of the checked cup. Lügen: the
    same three keys, each a map from player id to that player's cup. A careful
    client also compares `commitment` with the one its views carried before.
    """
    if not reveal or not reveal.get("dice") or not reveal.get("salt"):
        return None
    dice, salt, sealed = reveal["dice"], reveal["salt"], reveal.get("commitment")
    if isinstance(dice, dict):
        if not isinstance(salt, dict) or not isinstance(sealed, dict) or set(salt) != set(dice):
            return False
        return all(verify(cup, salt[player], sealed.get(player)) for player, cup in dice.items())
    return verify(dice, salt, sealed)
