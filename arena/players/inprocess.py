"""A seat played by an SDK ``Bot`` class inside the arena's own process. TRUSTED CODE ONLY.

No gRPC and no protobuf: the bot gets the engine's ``View`` and events directly, which makes simulation
many times faster than over the wire. The price is that the bot runs with the arena's privileges and can
neither be timed out (a sync ``act`` cannot be interrupted) nor isolated: a bot that hangs hangs the arena,
and a bot could read anything in memory. Use it to compare your own strategies, never for entrants you
do not trust. An exception in the bot is still turned into a recorded fault.
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Sequence

from arena.bot import Bot, to_action
from arena.engine.news import News
from arena.engine.views import View
from arena.errors import BotStatusError, ConfigError, MalformedAction
from arena.gameinfo import GameInfo, GameResult
from arena.players.base import DecisionTiming, Player, Reply


def load_bot_class(spec: str) -> type[Bot]:
    """``"package.module:ClassName"`` → the class, which must subclass ``arena.bot.Bot``.

    :raises ConfigError: naming the spec when the module, the class or the base class is wrong.
    """
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise ConfigError(f"in-process bot {spec!r}: expected 'package.module:ClassName'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"in-process bot {spec!r}: cannot import {module_name!r}: {exc}") from None
    cls = getattr(module, class_name, None)
    if not (inspect.isclass(cls) and issubclass(cls, Bot)):
        raise ConfigError(f"in-process bot {spec!r}: {class_name!r} is not a subclass of arena.bot.Bot")
    return cls


class InProcessPlayer(Player):
    """One seat of one game played by a fresh instance of ``bot_class``."""

    def __init__(self, bot_class: type[Bot], name: str) -> None:
        self.bot_class = bot_class
        self.name = name
        self.bot = bot_class()
        self._async_act = inspect.iscoroutinefunction(self.bot.act)

    async def start(self, info: GameInfo, news: Sequence[News]) -> None:
        self.bot.game = info
        await self._call("on_game_start", info)
        self.queue_news(news)

    def queue_news(self, news: Sequence[News]) -> None:
        for event in news:
            self.bot.on_event(event)

    async def decide(self, view: View, decision_id: int, timing: DecisionTiming) -> Reply:
        started = time.monotonic()
        self.bot._deadline = started + timing.time_ms / 1000 * 0.9
        try:
            value = await self.bot.act(view) if self._async_act else self.bot.act(view)  # type: ignore[misc]
        except Exception as exc:
            raise BotStatusError(f"{self.name} raised {exc!r} in act()") from None
        try:
            action = to_action(value)  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise MalformedAction(f"{self.name} returned {value!r}: {exc}") from None
        return Reply(action, (time.monotonic() - started) * 1000)

    async def finish(self, final: GameResult) -> None:
        await self._call("on_game_over", final)

    async def _call(self, hook: str, arg: object) -> None:
        try:
            value = getattr(self.bot, hook)(arg)
            if inspect.isawaitable(value):
                await value
        except Exception as exc:
            raise BotStatusError(f"{self.name} raised {exc!r} in {hook}()") from None
