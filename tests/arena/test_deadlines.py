"""A seat's deadline timer outlives its decisions (``RemotePlayer._arm``): it is moved earlier when a decision
has less time than the armed one, and re-armed, not fired, when it was armed for an earlier decision.

A bot served in this process sleeps as told before each answer. Only the outcome is asserted (a timeout or a
reply), never a duration: every sleep is far from the deadline it is tested against.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import pytest

from arena.bot import Bot, create_server
from arena.engine import Action, GameConfig, GameState, View, build_view
from arena.errors import BotTimeout
from arena.gameinfo import GameInfo
from arena.players.base import DecisionTiming, Reply
from arena.players.remote import BotConnection, RemotePlayer


class Sleepy(Bot):
    """Sleeps ``delays[k]`` seconds before its k-th answer, then plays the first legal action."""

    name = "sleepy"
    delays: ClassVar[list[float]] = []

    async def act(self, view: View) -> Action:
        await asyncio.sleep(self.delays.pop(0) if self.delays else 0.0)
        return view.legal_actions[0]


async def _decide(player: RemotePlayer, view: View, decision_id: int, time_ms: int) -> Reply | BotTimeout:
    try:
        return await player.decide(view, decision_id, DecisionTiming(time_ms, 0))
    except BotTimeout as exc:
        return exc


def test_the_seat_timer_moves_earlier_and_rearms_for_later_deadlines() -> None:
    config = GameConfig.create("five-handed")
    state = GameState(config, seed=3)
    seat = state.current_player()
    view = build_view(state, seat)
    Sleepy.delays[:] = [0.0, 3.0, 0.0, 0.0, 1.0]

    async def main() -> list[Reply | BotTimeout]:
        server, port, _ = await create_server(Sleepy, "127.0.0.1:0")
        connection = BotConnection(f"127.0.0.1:{port}")
        player = RemotePlayer(connection, "sleepy")
        try:
            names = tuple(f"s{i}" for i in range(config.num_players))
            await player.start(GameInfo("g", config, seat, names, 1000, 0), [])
            return [
                await _decide(player, view, 1, 20_000),  # answered: the timer stays armed for +20 s
                await _decide(player, view, 2, 300),  # 3 s sleep: the timer must move to +0.3 s
                await _decide(player, view, 3, 20_000),  # answered (the late reply to 2 is dropped)
                await _decide(player, view, 4, 400),  # answered at once: the timer stays at +0.4 s
                await _decide(player, view, 5, 20_000),  # 1 s sleep: the +0.4 s timer re-arms, no timeout
            ]
        finally:
            await player.close()
            await connection.close()
            await server.stop(None)

    outcomes = asyncio.run(main())
    kinds = [type(o).__name__ for o in outcomes]
    assert kinds == ["Reply", "BotTimeout", "Reply", "Reply", "Reply"], outcomes


@pytest.mark.parametrize("first_ms", [300, 20_000])
def test_a_silent_bot_times_out_whatever_the_timer_was_armed_for(first_ms: int) -> None:
    config = GameConfig.create("five-handed")
    state = GameState(config, seed=4)
    seat = state.current_player()
    view = build_view(state, seat)
    Sleepy.delays[:] = [0.0, 30.0]

    async def main() -> list[Reply | BotTimeout]:
        server, port, _ = await create_server(Sleepy, "127.0.0.1:0")
        connection = BotConnection(f"127.0.0.1:{port}")
        player = RemotePlayer(connection, "sleepy")
        try:
            names = tuple(f"s{i}" for i in range(config.num_players))
            await player.start(GameInfo("g", config, seat, names, 1000, 0), [])
            return [await _decide(player, view, 1, first_ms), await _decide(player, view, 2, 1500)]
        finally:
            await player.close()
            await connection.close()
            await server.stop(None)

    outcomes = asyncio.run(main())
    assert [type(o).__name__ for o in outcomes] == ["Reply", "BotTimeout"], outcomes
