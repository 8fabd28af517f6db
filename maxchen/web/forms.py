"""Form fields (all strings) read as the actions the API takes, and a rule set's options for a form."""

import re

from flask import request
from flask_babel import gettext

from ..errors import IllegalMove
from ..rulesets import REGISTRY, RULESETS

# Form fields that are whole numbers: the room's, then each rule set's own.
NUMBER_FIELDS = tuple(dict.fromkeys(("version", "seat", *(f for r in REGISTRY.values() for f in r.fields))))
WHOLE = re.compile(r"-?[0-9]{1,9}")  # ASCII digits only: "²".isdigit() is true, int("²") fails
ROOM_TEXT_FIELDS = ("value", "player", "strategy", "seed")
CLASS_TEXT_FIELDS = ("student", "table", "six")
MAX_FIELDS = 64  # a room's form has a dozen (the host's settings the most)


def number(text: str) -> int | str:
    """A whole number as a number; anything else as it came, for the room to refuse in words."""
    return int(text) if WHOLE.fullmatch(text) else text


def room_action() -> dict:
    """A player's form, as the request brings it, as the action the API takes."""
    return _room_action(request.form)


def sent_action(fields) -> dict:
    """A form's fields as a room page's socket sends them (never the request's: on a socket, that is the
    connection's opening request), as the action the API takes."""
    return _room_action(_fields(fields))


def _room_action(form) -> dict:
    payload = {"action": form.get("action")}
    for field in NUMBER_FIELDS:
        if form.get(field, "") != "":
            if not WHOLE.fullmatch(form[field]):
                raise IllegalMove("whole_number", field=field)
            payload[field] = int(form[field])
    return payload | _texts(ROOM_TEXT_FIELDS, form) | _rules(form)


def _fields(sent) -> dict:
    """A form's fields as a page's socket sends them: names and values are strings, a few dozen at most."""
    if not isinstance(sent, dict) or len(sent) > MAX_FIELDS:
        raise IllegalMove("not_json")
    if not all(isinstance(key, str) and isinstance(value, str) for key, value in sent.items()):
        raise IllegalMove("not_json")
    return sent


def class_action() -> dict:
    """The teacher's form as a class action."""
    form = request.form
    payload = {"action": form.get("action")} | _texts(CLASS_TEXT_FIELDS, form)
    if "closed" in form:  # anything but 1 or 0 goes on as it came, for the class to refuse in words
        payload["closed"] = {"1": True, "0": False}.get(form["closed"], form["closed"])
    for field in ("size", "seconds"):
        if field in form:
            payload[field] = number(form[field])
    return payload | _rules(form)


def _texts(fields, form) -> dict:
    return {field: form[field] for field in fields if field in form}


def _rules(form) -> dict:
    """A change of rule set and options, when the form makes one."""
    if "rules" not in form:
        return {}
    rules = form["rules"]
    return {"options": {"rules": rules, **options(rules, form)}}


def options(rules: str, form=None, refuse=True) -> dict:
    """The form's options (option.NAME) of rule set `rules`, whole numbers as numbers.

    Fields of another rule set's options (after a switch) are left out; a name no rule set has is refused
    (`refuse`; not where a refused form is shown again with what was typed).
    """
    game = RULESETS.get(rules)
    found = {}
    for key, value in (request.form if form is None else form).items():
        name = key.removeprefix("option.")
        if not key.startswith("option.") or not game:
            continue
        if name in game.OPTIONS:
            found[name] = number(value)
        elif refuse and not any(name in other.OPTIONS for other in RULESETS.values()):
            raise IllegalMove("no_such_option", game=game.TITLE, option=name[:40])
    return found


def option_fields(rules: str, hint: bool = False) -> tuple[dict, dict, dict]:
    """A rule set's options for a form: their specs, labels and defaults."""
    game = RULESETS[rules]
    labels = {key: gettext(label) for key, label in REGISTRY[rules].labels.items()}
    # The teaching hint is set in the room (or the class): on the home page's form each
    # rule set would send a field of that name.
    specs = {name: option.describe() for name, option in game.OPTIONS.items() if hint or name != "hint"}
    return specs, labels, game.default_options()
