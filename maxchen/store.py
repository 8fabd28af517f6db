"""Where rooms live between actions.

A store keeps each room as JSON text, so what is saved is exactly what a
later load gets back: nothing leaks between actions by shared objects.
The interface: load, save, delete, find_token, untouched_since.
"""

import json
import threading


class MemoryStore:
    """Rooms in this process's memory: for tests and throwaway servers."""

    def __init__(self):
        self._rooms: dict[str, str] = {}
        self._touched: dict[str, float] = {}
        self._tokens: dict[str, str] = {}
        self._room_tokens: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def load(self, code: str) -> dict | None:
        """The room's data, or None."""
        text = self._rooms.get(code)
        return None if text is None else json.loads(text)

    def save(self, code: str, data: dict) -> None:
        """Store the room's data, replacing what was there."""
        text = json.dumps(data)
        with self._lock:
            self._drop_tokens(code)
            self._rooms[code] = text
            self._touched[code] = data["touched"]
            hashes = [seat["token_hash"] for seat in data["seats"] if seat["token_hash"]]
            self._room_tokens[code] = hashes
            self._tokens.update(dict.fromkeys(hashes, code))

    def delete(self, code: str) -> None:
        """Forget the room."""
        with self._lock:
            self._drop_tokens(code)
            self._rooms.pop(code, None)
            self._touched.pop(code, None)

    def find_token(self, token_hash: str) -> str | None:
        """The code of the room where a token's seat is."""
        return self._tokens.get(token_hash)

    def untouched_since(self, moment: float) -> list[str]:
        """Codes of rooms last changed before `moment`."""
        return [code for code, touched in list(self._touched.items()) if touched < moment]

    def _drop_tokens(self, code):
        for token_hash in self._room_tokens.pop(code, ()):
            self._tokens.pop(token_hash, None)
