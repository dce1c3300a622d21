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
from arena.players.connection import BotConnection
from arena.players.remote import RemotePlayer


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


def _session(seed: int, delays: list[float], limits_ms: list[int]) -> list[str]:
    """One seat's stream to a ``Sleepy`` bot: decision k+1 gets ``limits_ms[k]``; the outcome of each."""
    config = GameConfig.create("five-handed")
    state = GameState(config, seed=seed)
    seat = state.current_player()
    view = build_view(state, seat)
    Sleepy.delays[:] = delays

    async def main() -> list[Reply | BotTimeout]:
        server, port, _ = await create_server(Sleepy, "127.0.0.1:0")
        connection = BotConnection(f"127.0.0.1:{port}")
        player = RemotePlayer(connection, "sleepy")
        try:
            names = tuple(f"s{i}" for i in range(config.num_players))
            await player.start(GameInfo("g", config, seat, names, 1000, 0), [])
            return [await _decide(player, view, k + 1, limit) for k, limit in enumerate(limits_ms)]
        finally:
            await player.close()
            await connection.close()
            await server.stop(None)

    return [type(outcome).__name__ for outcome in asyncio.run(main())]


def test_the_seat_timer_moves_earlier_and_rearms_for_later_deadlines() -> None:
    outcomes = _session(
        3,
        [0.0, 3.0, 0.0, 0.0, 3.0],
        [
            20_000,  # answered: the timer stays armed for +20 s
            300,  # 3 s sleep: the timer must move to +0.3 s
            20_000,  # answered (the late reply to 2 is dropped)
            1500,  # answered at once: the timer stays at +1.5 s
            20_000,  # 3 s sleep: the +1.5 s timer fires early and re-arms, no timeout
        ],
    )
    assert outcomes == ["Reply", "BotTimeout", "Reply", "Reply", "Reply"]


@pytest.mark.parametrize("first_ms", [300, 20_000])
def test_a_silent_bot_times_out_whatever_the_timer_was_armed_for(first_ms: int) -> None:
    assert _session(4, [0.0, 30.0], [first_ms, 1500]) == ["Reply", "BotTimeout"]
