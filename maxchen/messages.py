"""Every refusal's text: a reason and its params -> words in the reader's language.

The one catalogue of player-facing refusals. Transports call `text(error)`
under the reader's locale (the page's language; for the API and sockets,
`Accept-Language` or the `lang` the client sends; English by default).
"""

from flask_babel import force_locale, gettext
from flask_babel import lazy_gettext as _l

from .errors import REASONS, IllegalMove
from .rulesets import REGISTRY

TEXTS = {
    "not_json": _l("Send a JSON object (Content-Type: application/json)."),
    "unreadable": _l("This message could not be read: send JSON, an event's name first."),
    "unknown_event": _l("There is no such event: send action, signal or react."),
    "no_bearer": _l("Send your token: Authorization: Bearer <token>."),
    "connect_first": _l("Connect with your token first."),
    "option_choice": _l("%(option)s must be one of %(choices)s."),
    "option_range": _l("%(option)s must be a whole number from %(low)s to %(high)s."),
    "player_count": _l("%(game)s needs %(low)s to %(high)s players."),
    "options_object": _l("Options must be an object."),
    "option_outside": _l('Put %(key)s inside "options": {"action": "configure", "options": {"%(key)s": …}}.'),
    "no_such_option": _l("The rule set %(game)s has no option %(option)s."),
    "game_over": _l("The game is over."),
    "not_playing": _l("You are not playing in this game."),
    "you_are_out": _l("You are out of this game."),
    "not_your_turn": _l("It is not your turn."),
    "cannot_now": _l("You cannot %(action)s now."),
    "bad_announcement": _l("Announce one of the 21 values, e.g. 65 or 21."),
    "bad_seed": _l("A shake's seed is 32 to 64 hex digits (0-9, a-f), or none."),
    "not_higher": _l("Announce a value higher than the last one."),
    "you_are_safe": _l("You are safe: watch the others play it out."),
    "not_your_bid": _l("It is not your turn to bid."),
    "faster": _l("%(name)s was faster."),
    "own_bid": _l("You cannot doubt your own bid."),
    "cups_unshaken": _l("Wait until every cup is shaken."),
    "bad_bid": _l("Bid a count and a face from 2 to 6 (ones are jokers)."),
    "bad_count": _l("The count is 1 to %(dice)s, the dice on the table."),
    "raise_bid": _l("Raise: the same count with a higher face, or a higher count."),
    "room_not_found": _l("There is no room with that code."),
    "names_list": _l("names must be a list of names."),
    "needs_phones": _l("%(game)s needs a phone for each player."),
    "names_count": _l("Enter %(low)s to %(high)s names, one per line."),
    "bad_token": _l("No seat with that token here (unknown room, or unknown or revoked token)."),
    "token_needed": _l("A token is needed."),
    "not_member": _l("You are not in this room."),
    "whole_number": _l("%(field)s must be a whole number."),
    "stale": _l("The table has moved on; look again."),
    "bad_activity": _l("activity is one of shaking, peeking or null."),
    "bad_reaction": _l("emoji is one of 👍 😂 😮 🙈 🎉."),
    "not_your_shake": _l("It is not your turn to shake."),
    "empty_cup": _l("There is nothing under your cup."),
    "bad_name": _l("Enter a name of 1 to %(limit)s characters."),
    "name_control": _l("A name cannot contain control characters."),
    "name_invisible": _l("Names cannot contain invisible or direction-changing characters."),
    "name_blank": _l("A name needs at least one visible letter, digit or sign."),
    "name_ellipsis": _l("Names cannot contain “…”: the table shortens a long name with it."),
    "name_marks": _l("A letter may carry at most %(limit)s marks."),
    "name_scripts": _l(
        "Write each word of a name in one alphabet: this one mixes letters of two (such as Latin and Cyrillic)."
    ),
    "unknown_rules": _l("Unknown rule set %(rules)s; choose one of %(choices)s."),
    "one_phone": _l("This table plays on one phone."),
    "room_full": _l("The room is full (%(limit)s players)."),
    "name_taken": _l("Someone here is already called %(name)s."),
    "action_object": _l("An action is a JSON object."),
    "no_game": _l("No game is running."),
    "pass_first": _l("Pass the phone on first."),
    "next_game": _l("You play from the next game on."),
    "unknown_action": _l("Unknown action %(action)s."),
    "not_host": _l("Only the host can do that."),
    "game_running": _l("Not while a game is running."),
    "too_few": _l("%(game)s needs at least %(low)s players."),
    "no_such_player": _l("There is no such player in this room."),
    "bad_seat": _l("seat must be a whole number from 0 to %(high)s."),
    "leave_instead": _l("To go yourself, leave the room."),
    "still_connected": _l("%(name)s is still connected."),
    "no_such_strategy": _l("There is no bot strategy %(strategy)s. Choose one of %(choices)s."),
    "offline_grace": _l("%(name)s went offline only a moment ago. You may remove them in %(seconds)s s."),
    "not_shared": _l("Only a one-phone table passes the phone."),
    "not_their_turn": _l("It is not that player's turn."),
    "rate_limited": _l("Too many tries. Try again in %(seconds)s s."),
    "simulator_busy": _l("The simulator is busy with another run. Try again in %(seconds)s s."),
    "watchers_full": _l("This table has all the watchers it takes (%(limit)s)."),
    "room_broken": _l("This room's saved game cannot be read. Please start a new room."),
    "class_broken": _l("This class's saved state cannot be read. Please start a new class."),
    "class_not_found": _l("There is no class with that code."),
    "not_teacher": _l("Only the teacher can do that."),
    "class_full": _l("The class is full (%(limit)s students)."),
    "no_such_table": _l("There is no such table in this class."),
    "no_such_student": _l("There is no such student in this class."),
    "table_size": _l("A table seats %(low)s to %(high)s students."),
    "nobody_waiting": _l("Nobody is waiting for a table."),
    "room_busy": _l("The table is busy. Try again in a moment."),
    "store_down": _l("The server cannot reach its storage. Nothing was changed; try again in a moment."),
    "class_closed": _l("The teacher has closed this class to newcomers."),
    "closed_flag": _l("closed must be true or false."),
    "class_table": _l("This table belongs to a class: join the class with its code."),
    "class_decides": _l("At a class's table the teacher decides that."),
    "tables_full": _l("This class has opened %(limit)s tables: move students to the ones there are."),
    "nothing_to_start": _l("No table can start now: each needs %(low)s players and no game running."),
    "paused": _l("Paused by your teacher."),
    "already_paused": _l("The tables are paused already."),
    "not_paused": _l("The tables are not paused."),
    "nothing_to_stop": _l("No table is playing a game."),
    "resume_first": _l("Every table is paused: resume first."),
    "no_countdown": _l("No countdown is running."),
    "countdown_seconds": _l("A countdown runs from %(low)s to %(high)s seconds."),
    "loading": _l("Choose how often a loaded die shows a six: %(choices)s."),
    "already_loaded": _l("One table's dice are loaded already: one hunt per lesson."),
    "nothing_loaded": _l("No table's dice are loaded."),
    "already_revealed": _l("The loaded table is revealed already."),
}

TEXTS.update(
    {reason: _l(text) for rule_set in REGISTRY.values() for reason, (_code, text) in rule_set.refusals.items()}
)
assert set(TEXTS) == set(REASONS), "every reason has its text"  # noqa: S101 - a import-time invariant
# An option named in a refusal (`option`) as the host's settings name it ("Points to go out", not out_at).
OPTION_LABELS = {
    name: label
    for rule_set in REGISTRY.values()
    for name, label in rule_set.labels.items()
    if name in rule_set.game.OPTIONS
}


class _Params(dict):
    def __missing__(self, key):
        return "?"


def isolate(name: str) -> str:
    """A player's name set apart from the sentence around it (FSI ... PDI): a right-to-left name
    cannot carry the sentence's words or full stop along with it (the page uses <bdi>)."""
    return f"\u2068{name}\u2069"


def text(error: IllegalMove, lang: str | None = None) -> str:
    """The refusal in the current language (or `lang`)."""
    if lang is not None:
        with force_locale(lang):
            return text(error)
    params = _Params({k: isolate(v) if k == "name" else v for k, v in error.params.items()})
    if params.get("option") in OPTION_LABELS:
        params["option"] = gettext(OPTION_LABELS[params["option"]])
    return str(TEXTS[error.reason]) % params


def answer(error: IllegalMove, lang: str | None = None) -> dict:
    """The body of an error answer for the API and socket acks."""
    return error.to_dict(text(error, lang))
