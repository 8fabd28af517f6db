"""The name policy: what a player's name may hold, how it is shown, and which names look alike.

Unicode text from strangers' phones: no control, invisible or direction-changing
characters, at least one visible sign, at most `NAME_LENGTH` characters; two
names that look alike (homoglyphs, case, small capitals) cannot sit at one table.
"""

import functools
import unicodedata

from confusable_homoglyphs.categories import alias
from confusable_homoglyphs.utils import load

from .errors import IllegalMove

NAME_LENGTH = 20


# Unicode's Default_Ignorable_Code_Point outside category Cf (fillers, variation
# selectors, the grapheme joiner, reserved tags) and the blank Braille cell: all
# draw nothing, so a name could hide them or be made of them.
_HIDDEN = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2065, 0x2065),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0x16FE4, 0x16FE4),  # Khitan filler: drawn blank
    (0x1D159, 0x1D159),  # musical null notehead: drawn blank
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xFFFC, 0xFFFC),  # object replacement: drawn blank where no object is
    (0xE0000, 0xE0FFF),
)
# Variation selectors pick a glyph of the character before them (❤️, 葛󠄀).
_SELECTORS = ((0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
_SKIN_TONES = ((0x1F3FB, 0x1F3FF),)
ZWNJ, ZWJ = "\u200c", "\u200d"

# Latin small capitals, drawn as small letters at a glance, which TS #39 leaves apart.
_SMALL_CAPITALS = str.maketrans(dict(zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnopqrstuvwyz", strict=True)))


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character that looks like another, mapped to one string of its look-alike set.

    From the confusables of Unicode TS #39 as `confusable_homoglyphs` ships
    them: each set is the prototype and the characters drawn like it; its
    key is the member listing the most look-alikes (the prototype, which may
    be two letters: m is drawn like rn), ties to the plainest.
    """
    listed = load("confusables.json")
    group: dict[str, str] = {}

    def root(ch):
        while group.setdefault(ch, ch) != ch:
            group[ch] = ch = group[group[ch]]
        return ch

    def plain(text):
        return text.replace("\u200e", "").replace("\u200f", "")

    for ch, alikes in listed.items():
        for alike in alikes:
            group[root(plain(ch))] = root(plain(alike["c"]))
    members: dict[str, list[str]] = {}
    for ch in list(group):
        members.setdefault(root(ch), []).append(ch)
    prototypes = {}
    for chars in members.values():
        key = max(chars, key=lambda c: (len(listed.get(c, ())), c.isascii(), -ord(c[0])))
        prototypes.update((ch, key) for ch in chars if len(ch) == 1 and ch != key)
    return prototypes


@functools.cache
def _small_capitals() -> dict[str, str]:
    """Each Latin small capital, and its TS #39 prototype (ᴍ is drawn as ʍ there), as its small letter."""
    prototypes = _prototypes()
    capitals = {chr(code): letter for code, letter in _SMALL_CAPITALS.items()}
    return {**capitals, **{prototypes.get(capital, capital): small for capital, small in capitals.items()}}


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of `text`: two strings that look alike share it."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(ch, ch) for ch in decomposed))


def _within(ch: str, ranges) -> bool:
    return any(low <= ord(ch) <= high for low, high in ranges)


def _hidden(ch: str) -> bool:
    """Draws nothing: a format or bidi control (Cf) or another default-ignorable code point."""
    return unicodedata.category(ch) == "Cf" or _within(ch, _HIDDEN)


def _visible(ch: str) -> bool:
    """A letter, digit, sign or emoji: not a space, a mark, a control or a hidden code point.

    Unassigned code points count: Python's Unicode may be older than the
    player's emoji.
    """
    category = unicodedata.category(ch)
    return not _hidden(ch) and (category[0] not in "ZMC" or category in ("Co", "Cn"))


def _pictographic(ch: str) -> bool:
    return unicodedata.category(ch) == "So" or 0x1F000 <= ord(ch) <= 0x1FFFD


def _arabic_letter(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("ARABIC LETTER")


def _last(text: str, skip) -> str:
    """The last character of `text` that `skip` does not pass over, or ''."""
    return next((ch for ch in reversed(text) if not skip(ch)), "")


def _allowed_hidden(name: str, i: int) -> bool:
    """A hidden code point that belongs where it is, and so may stay in the name.

    A variation selector right after what it varies (❤️); a joiner or
    non-joiner after a virama (Indic conjuncts, RFC 5892 A.1 and A.2); a
    non-joiner between two Arabic letters (Persian); a zero-width joiner
    between two emoji (👩‍💻, 🏳️‍🌈).
    """
    ch, before, after = name[i], name[:i], name[i + 1 : i + 2]
    if _within(ch, _SELECTORS):
        return bool(before) and _visible(before[-1])
    if ch not in (ZWJ, ZWNJ) or not before or not after:
        return False
    if unicodedata.combining(before[-1]) == 9:
        return True
    if ch == ZWNJ:
        letter = _last(before, lambda c: unicodedata.category(c) == "Mn")
        return bool(letter) and _arabic_letter(letter) and _arabic_letter(after)
    emoji = _last(before, lambda c: c == "\ufe0f" or _within(c, _SKIN_TONES))
    return bool(emoji) and _pictographic(emoji) and _pictographic(after)


def clean_name(text) -> str:
    """A player name: 1–20 code points, spaces collapsed, every one of them drawn.

    No control characters, no format or bidi controls (category Cf) and no
    other code point that draws nothing, except joiners and variation
    selectors where they belong (see `_allowed_hidden`); at least one
    letter, digit or sign; no "…", which a shortened name shows.
    """
    if not isinstance(text, str):
        raise IllegalMove("bad_name", limit=NAME_LENGTH)
    if not text:
        raise IllegalMove("bad_name", limit=NAME_LENGTH)
    name = unicodedata.normalize("NFC", text).strip()
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") for ch in name):
        raise IllegalMove("name_control")
    if any(_hidden(ch) and not _allowed_hidden(name, i) for i, ch in enumerate(name)):
        raise IllegalMove("name_invisible")
    name = " ".join(name.split())
    if len(name) > NAME_LENGTH:
        raise IllegalMove("bad_name", limit=NAME_LENGTH)
    if not any(_visible(ch) for ch in name):
        raise IllegalMove("name_blank")
    if _marks_on_a_letter(name) > MARKS_PER_LETTER:
        raise IllegalMove("name_marks", limit=MARKS_PER_LETTER)
    if not all(_one_script(word) for word in _words(name)):
        raise IllegalMove("name_scripts")
    if "..." in skeleton(name):  # "…", "...": what the table puts in a long name's middle (static/live.js)
        raise IllegalMove("name_ellipsis")
    return name


# Scripts a word may mix (UTS #39's "highly restrictive" level: Japanese, Chinese with Bopomofo, Korean,
# each with Latin); signs, digits and marks (Common, Inherited) go with any.
_WRITING = ({"HAN", "HIRAGANA", "KATAKANA", "LATIN"}, {"HAN", "BOPOMOFO", "LATIN"}, {"HAN", "HANGUL", "LATIN"})


def _joiner(ch: str) -> bool:
    return ch.isspace() or ch == "/" or unicodedata.category(ch) == "Pd"


def _words(name: str) -> list[str]:
    """The words of a name: between spaces, dashes and slashes ("Анна Smith", "Ангелина-Maria", "Иван/Ivan")."""
    return "".join(" " if _joiner(ch) else ch for ch in name).split()


def _one_script(word: str) -> bool:
    """The word's letters are of one script (or one of the `_WRITING` mixes): "Ⲁnn" (a Coptic Ⲁ, a Latin
    nn) or "Aпп" is not, and so cannot pass for "Ann" where a look-alike table lacks the letter."""
    scripts = {alias(ch) for ch in word} - {"COMMON", "INHERITED", "Unknown"}  # Unknown: newer than the data
    return len(scripts) <= 1 or any(scripts <= allowed for allowed in _WRITING)


def _marks_on_a_letter(name: str) -> int:
    """The most combining marks one letter of `name` carries."""
    most = run = 0
    for ch in unicodedata.normalize("NFD", name):
        run = run + 1 if unicodedata.category(ch).startswith("M") else 0
        most = max(most, run)
    return most


def shown_name(text) -> str:
    """A refused name as the form offers it again: without what could not be seen."""
    return "".join(ch for ch in text if not _hidden(ch)) if isinstance(text, str) else ""


def name_keys(name: str) -> tuple[str, ...]:
    """How a clean name looks, as keys; names sharing any one key look alike.

    A case-blind key (Ann, ANN, ꓮnn) and the case-kept skeleton, which
    merges I, l and 1 (Ian, lan) where a case-blind key would merge ALI and
    ALL; each of the name as typed and with compatibility forms folded (ﬁ,
    Ａ), since folding also turns some look-alikes into other letters (ϲ
    into ς); a key of each with its letters of other scripts drawn as Latin
    (ΑΝΝ, Ann); and all of them again without combining marks and specks
    (Anṇ, Ann., Jörg and Jorg). What draws nothing is left out.
    """
    # Unassigned code points (Cn) are drawn as nothing or a box: a name is not told apart by them.
    drawn = "".join(ch for ch in name if not _hidden(ch) and unicodedata.category(ch) != "Cn")
    drawn = drawn.translate(_SMALL_CAPITALS)
    folded = unicodedata.normalize("NFKC", drawn)
    return tuple(
        key
        for text in (drawn, folded, _bare(drawn), _bare(folded))
        for key in (
            skeleton(skeleton(text.casefold()).casefold()),
            skeleton(text),
            skeleton(_latin(text).casefold()),
            _bare(skeleton(_bare(_latin(text)).casefold())),
        )
    )


# Dots a glance passes over beside a letter ("Ann." and "Ann˙" read as Ann), and the apostrophe a
# skeleton puts before a hooked letter (Ƭ is "'T").
_SPECKS = frozenset(".˙·‧⋅ˑ'’`´ʼ")
MARKS_PER_LETTER = 4  # combining marks on one letter: Vietnamese takes two, Indic scripts three; "zalgo" twenty


def _bare(text: str) -> str:
    """`text` without its combining marks, punctuation, modifier signs and spaces ("Anṇ", "Ann.", "A .nn", "ˌAnn"
    are Ann); a name of nothing else stays as it is ("!!!" and "???" are two names)."""
    decomposed = unicodedata.normalize("NFD", text)
    bare = "".join(
        ch
        for ch in decomposed
        if unicodedata.category(ch)[0] not in "MPZ"
        and unicodedata.category(ch) not in ("Sk", "Lm")
        and ch not in _SPECKS
    )
    return bare or text


def _latin(text: str) -> str:
    """Letters of other scripts drawn as Latin ones turned into those (Greek ΑΝΝ is ANN, Cyrillic Том is Tom
    by way of a small capital м); Latin kept as it is, so that a case-blind key does not merge ALI and ALL."""
    prototypes, small = _prototypes(), _small_capitals()

    def drawn(ch):
        if ch.isascii() or unicodedata.name(ch, "").startswith("LATIN"):
            return ch
        alike = prototypes.get(ch, ch)
        alike = small.get(alike, alike)
        # TS #39 draws the upright stroke as l: a capital one (Greek Ι, Cyrillic І) is the capital I.
        return "I" if alike == "l" and ch.isupper() else alike

    return "".join(drawn(ch) for ch in unicodedata.normalize("NFD", text))


def looks_like(name: str, other: str) -> bool:
    """Whether two clean names would be mistaken for each other."""
    return any(mine == theirs for mine, theirs in zip(name_keys(name), name_keys(other), strict=True))
