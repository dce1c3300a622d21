"""A crash costs a game one fault however the game first saw it (arena.players.remote, ``_reconnect``).

Found by the suite beside two CPU burners: a bot killed mid-game ended the game's stream as a closed stream
(``stream_closed``), and the game's next decision, asked while the bot was still down, was charged
``crashed`` for the same crash (tests/e2e/test_faulty_bots.py, one crash, one fault per game)."""

from __future__ import annotations

import asyncio

import pytest

from arena.errors import BotCrashed, StreamClosed
from arena.players.connection import BotConnection
from arena.players.endpoint import Endpoint
from arena.players.remote import RemotePlayer


class DownThenUp(Endpoint):
    """A launched bot's endpoint whose process (start 1) died and is restarted when someone waits for it."""

    def __init__(self) -> None:
        super().__init__(BotConnection("127.0.0.1:9"))
        self.start = 1
        self.is_down = True
        self.revived = 0

    @property
    def generation(self) -> int:
        return self.start

    def down(self) -> bool:
        return self.is_down

    async def revive(self, suspect: bool = False) -> None:
        self.revived += 1
        self.is_down, self.start = False, self.start + 1


@pytest.mark.parametrize("first", [StreamClosed, BotCrashed])
def test_a_crash_seen_first_as_a_closed_stream_is_not_charged_again(first: type[Exception]) -> None:
    async def scenario() -> None:
        endpoint = DownThenUp()
        player = RemotePlayer(endpoint, "bot")
        player._generation = 1  # its stream was on start 1, which died

        async def broken(*_: object) -> object:
            raise first("the stream ended")

        async def opened(resumed: bool) -> None:
            player._failure = None

        player._decide = broken  # type: ignore[method-assign,assignment]
        with pytest.raises(first):
            await player.decide(None, 5, None)  # type: ignore[arg-type]
        player._failure = first("the stream ended")  # type: ignore[assignment]
        player._open = opened  # type: ignore[method-assign]
        await player._reconnect()  # the next decision, the bot still down: waits for it, no second fault
        assert endpoint.revived == 1 and endpoint.generation == 2

    asyncio.run(scenario())
