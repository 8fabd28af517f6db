"""The one error every layer raises for anything not allowed now."""

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
}


class IllegalMove(Exception):
    """A refused action: a stable `code` and a `message` fit for a player."""

    def __init__(self, code: str, message: str):
        if code not in STATUS:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        """The HTTP status that goes with the code."""
        return STATUS[self.code]

    def to_dict(self) -> dict:
        """The body of an error answer."""
        return {"error": {"code": self.code, "message": self.message}}
