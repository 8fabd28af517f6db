"""The one error every layer raises for anything not allowed now. No English here.

An `IllegalMove` names a `reason` (a key of `maxchen.messages`, where each
transport finds its text in the reader's language) with parameters; its
`code` is the stable, coarser code of the API, and the HTTP status goes
with the code.
"""

STATUS = {
    "bad_request": 400,
    "bad_value": 400,
    "not_higher": 400,
    "bad_token": 401,
    "not_host": 403,
    "room_not_found": 404,
    "not_your_turn": 409,
    "not_allowed": 409,
    "stale": 409,
    "game_running": 409,
    "room_full": 409,
    "name_taken": 409,
    "one_phone": 409,
    "rate_limited": 429,
    "room_broken": 500,
    "unavailable": 503,
}

# reason -> the API code it answers with (unless the raiser says otherwise)
REASONS = {
    "not_json": "bad_request",
    "unreadable": "bad_request",
    "unknown_event": "bad_request",
    "no_bearer": "bad_token",
    "connect_first": "bad_token",
    "option_choice": "bad_value",
    "option_range": "bad_value",
    "player_count": "not_allowed",
    "options_object": "bad_request",
    "option_outside": "bad_request",
    "no_such_option": "bad_value",
    "game_over": "not_allowed",
    "not_playing": "not_allowed",
    "you_are_out": "not_allowed",
    "not_your_turn": "not_your_turn",
    "cannot_now": "not_allowed",
    "bad_announcement": "bad_value",
    "bad_seed": "bad_value",
    "not_higher": "not_higher",
    "you_are_safe": "not_allowed",
    "not_your_bid": "not_your_turn",
    "faster": "not_allowed",
    "own_bid": "not_allowed",
    "cups_unshaken": "not_allowed",
    "bad_bid": "bad_value",
    "bad_count": "bad_value",
    "raise_bid": "not_higher",
    "room_not_found": "room_not_found",
    "names_list": "bad_request",
    "needs_phones": "bad_value",
    "names_count": "bad_value",
    "bad_token": "bad_token",
    "token_needed": "bad_token",
    "not_member": "bad_token",
    "whole_number": "bad_request",
    "stale": "stale",
    "bad_activity": "bad_request",
    "bad_reaction": "bad_request",
    "not_your_shake": "not_allowed",
    "empty_cup": "not_allowed",
    "bad_name": "bad_value",
    "name_control": "bad_value",
    "name_invisible": "bad_value",
    "name_blank": "bad_value",
    "name_ellipsis": "bad_value",
    "name_marks": "bad_value",
    "name_scripts": "bad_value",
    "unknown_rules": "bad_value",
    "one_phone": "one_phone",
    "room_full": "room_full",
    "watchers_full": "room_full",
    "name_taken": "name_taken",
    "action_object": "bad_request",
    "no_game": "not_allowed",
    "pass_first": "not_allowed",
    "next_game": "not_allowed",
    "unknown_action": "bad_request",
    "not_host": "not_host",
    "game_running": "game_running",
    "too_few": "not_allowed",
    "no_such_player": "bad_value",
    "bad_seat": "bad_value",
    "leave_instead": "not_allowed",
    "still_connected": "not_allowed",
    "offline_grace": "not_allowed",
    "no_such_strategy": "bad_value",
    "not_shared": "bad_request",
    "not_their_turn": "not_allowed",
    "rate_limited": "rate_limited",
    "simulator_busy": "rate_limited",
    "room_broken": "room_broken",
    "class_broken": "room_broken",
    "class_not_found": "room_not_found",
    "not_teacher": "not_host",
    "class_full": "room_full",
    "no_such_table": "bad_value",
    "no_such_student": "bad_value",
    "table_size": "bad_value",
    "nobody_waiting": "not_allowed",
    "nothing_to_start": "not_allowed",
    "tables_full": "room_full",
    "class_table": "not_allowed",
    "room_busy": "stale",
    "store_down": "unavailable",
    "class_closed": "not_allowed",
    "closed_flag": "bad_request",
    "class_decides": "not_allowed",
    "paused": "not_allowed",
    "already_paused": "not_allowed",
    "not_paused": "not_allowed",
    "nothing_to_stop": "not_allowed",
    "resume_first": "not_allowed",
    "no_countdown": "not_allowed",
    "countdown_seconds": "bad_value",
    "loading": "bad_value",
    "already_loaded": "not_allowed",
    "nothing_loaded": "not_allowed",
    "already_revealed": "not_allowed",
}


class IllegalMove(Exception):
    """A refused action: a `reason` with `params`, a stable API `code`."""

    def __init__(self, reason: str, code: str | None = None, **params):
        if reason not in REASONS:
            raise ValueError(f"unknown reason {reason!r}")
        code = code or REASONS[reason]
        if code not in STATUS:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.params = params

    @property
    def status(self) -> int:
        """The HTTP status that goes with the code."""
        return STATUS[self.code]

    def to_dict(self, message: str) -> dict:
        """The body of an error answer, with its message in the reader's language."""
        return {"error": {"code": self.code, "reason": self.reason, "params": self.params, "message": message}}

    @classmethod
    def from_dict(cls, data: dict) -> "IllegalMove":
        """The error a server answered (for clients)."""
        error = cls(data["reason"], data["code"], **data.get("params", {}))
        error.message = data.get("message", data["reason"])
        return error
