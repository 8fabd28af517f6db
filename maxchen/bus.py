"""What processes on one Redis tell each other (not their clients): "class CODE changed".

Socket.IO's message queue carries messages for clients only. A class board
is drawn by each process for its own boards, so every process must hear of
a change of a class made in another one: `RedisBus` publishes it on the
channel `PREFIXbus`, and each process's listener hands it to `heard`.

`socketio_queue` is Socket.IO's queue itself, made to catch up after Redis
was away: what was published meanwhile is lost to this process's sockets,
so once it listens again each of them gets its room afresh.
"""

import json
import logging
import secrets

log = logging.getLogger(__name__)


class LocalBus:
    """One process: nobody else to tell."""

    def publish(self, message: dict) -> None:
        """Tell the other processes (none)."""

    def listen(self, heard) -> None:
        """Nothing will come."""


class RedisBus:
    """Messages between the processes on one Redis (a pub/sub channel)."""

    def __init__(self, client, prefix: str, sleep):
        self.redis = client
        self.channel = prefix + "bus"
        self.sleep = sleep
        self.process = secrets.token_hex(8)
        self.closed = False

    def close(self) -> None:
        """Stop listening (within a second)."""
        self.closed = True

    def publish(self, message: dict) -> None:
        """Tell every other process."""
        self.redis.publish(self.channel, json.dumps({**message, "from": self.process}))

    def listen(self, heard) -> None:
        """Hand every other process's message to `heard` (runs as a background task until `close`). Redis
        away is one line in the log when it goes and one when it is back, however long it stays away."""
        failing = False
        while not self.closed:
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                if failing:
                    log.warning("the processes' bus listens again")
                    failing = False
                while not self.closed:
                    raw = pubsub.get_message(timeout=1)
                    if raw is None:
                        continue
                    message = json.loads(raw["data"])
                    if message.pop("from", None) != self.process:
                        heard(message)
                pubsub.close()
            except Exception as error:  # Redis away for a moment, or a handler failed: listen again
                if not failing:
                    log.warning("the processes' bus stopped (%s); listening again", error)
                failing = True
                self.sleep(1)


def socketio_queue(url: str, channel: str, resubscribed):
    """Socket.IO's Redis queue that listens again every second while Redis is away (python-socketio waits up
    to a minute), and calls `resubscribed` (in a background task) each time it listens again."""
    import redis
    import socketio

    from .store import redis_client

    class PubSub(redis.client.PubSub):
        def on_connect(self, connection):  # redis-py connects again by itself when Redis is back soon enough
            subscribed = bool(self.channels)
            super().on_connect(connection)
            if subscribed:  # what was published meanwhile is lost, as when it gives up (below)
                _again()

    class Queue(socketio.RedisManager):
        def _redis_connect(self):
            self.redis = redis_client(self.redis_url)  # its publishers wait for a connection, as the store's do
            self.pubsub = PubSub(self.redis.connection_pool, ignore_subscribe_messages=True)
            self.connected = True

        def _redis_listen_with_retries(self):
            failed = False
            while True:
                try:
                    self._redis_connect()
                    self.pubsub.subscribe(self.channel)
                    if failed:
                        _again()
                    failed = False
                    yield from self.pubsub.listen()
                except Exception as error:
                    if not failed:
                        log.warning("the Socket.IO queue stopped (%s); listening again", error)
                    failed = True
                    self.server.sleep(1)

    queue = Queue(url, channel=channel)

    def _again():
        log.warning("the Socket.IO queue listens again: this process's sockets get their rooms afresh")
        queue.server.start_background_task(resubscribed)

    return queue
