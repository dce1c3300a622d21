"""Live tables: the ladder's games in flight, followed move by move over server-sent events.

**What leaves the server.** The table tells its :class:`LiveGame` the public news of each action
(``arena.engine.news.redact``: bids, the turned card, the cards played, tricks, scores; never a seat's
own cards nor the dealer's discard) and, separately, every seat's cards. Each game keeps two snapshots,
encoded here: the public one, sent to spectators and entrants alike (an entrant's page is a web user, not
its bot), and the one with the hands, sent only to the organiser or, when ``[ladder] live_open_hands`` says
so, to everybody. So no hidden card is in anything a spectator's browser receives before the game is
stored; after that the game's page (and the replay the live page switches to) shows it whole.

**Bounds.** One producer per game: the table calls :meth:`LiveGame.seen`, which encodes each snapshot once
and offers it to every watcher's queue without waiting (``put_nowait``). A watcher's queue holds
``QUEUE`` frames; a watcher that falls behind (a slow phone, a client that never reads) has its queue
emptied and gets one ``resync`` frame, the latest whole snapshot, so its memory stays bounded and the
table never awaits it. Every frame is a whole snapshot, so a ``resync`` is nothing special to the page.
A watcher that wakes to several frames is sent only the newest (and the end, if it came): they are whole
snapshots, so it misses nothing it could still have seen. ``[ladder] live_watchers`` caps the watchers of
the whole server: one more is answered 503.

**Why server-sent events (a plain ``StreamingResponse``).** The stream goes one way, server to page; SSE
is plain HTTP (through any proxy that does not buffer: see docs/server.md), the browser's ``EventSource``
reconnects by itself, and a ``StreamingResponse`` of ``text/event-stream`` frames needs no library: the
frame format is three lines. WebSockets would add a second protocol for no message the page sends.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine.actions import ActionKind
from arena.engine.cards import Card
from arena.engine.news import (
    ActionTaken,
    HandEnded,
    HandStarted,
    News,
    PartnerRevealed,
    TrickCompleted,
)
from arena.server.errors import Refused, not_found

QUEUE = 16  # frames a watcher may be behind before it is resynced (a hand is ~40 frames)
RECENT = 32  # games just ended that a late watcher (who read the list before) is still sent the end of
KEEPALIVE_S = 15.0  # a comment line this often, so that proxies and browsers keep an idle stream open
HANG_UP = ""  # no frame is empty: the stream ends here, without an ``end`` (the game goes on)
NAMED = {ActionKind.NAME, ActionKind.JOKER_NAME, ActionKind.EXPOSE_NAME}
ORDERED = {ActionKind.ORDER_UP, ActionKind.TAKE_UP}


@dataclass(eq=False)  # compared by identity: a game keeps its watchers in a set
class Watcher:
    """One page's stream: a bounded queue of encoded frames (see the module's docstring)."""

    hands: bool
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE))
    resyncs: int = 0
    counted: bool = False  # in LiveTables.watching (until its stream ends)
    hung_up: bool = False  # the server is stopping: nothing more is queued (``hang_up``)

    def offer(self, frame: str, resync: str, last: bool = False) -> None:
        """Queue ``frame`` without waiting; when full, drop what waits and queue ``resync`` instead."""
        if self.hung_up:
            return
        try:
            self.queue.put_nowait(frame)
            return
        except asyncio.QueueFull:
            pass
        while not self.queue.empty():
            self.queue.get_nowait()
        self.resyncs += 1
        self.queue.put_nowait(frame if last else resync)

    def hang_up(self) -> None:
        """End this stream at its next frame, whatever waits before it (``HANG_UP``)."""
        self.hung_up = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(HANG_UP)


def _is_end(frame: str) -> bool:
    return frame.startswith("id: ") and "\nevent: end\n" in frame[:40]


def _sse(kind: str, seq: int, data: str) -> str:
    return f"id: {seq}\nevent: {kind}\ndata: {data}\n\n"


class LiveGame:
    """One game in flight: its public state, built from the table's redacted news, and its watchers."""

    def __init__(self, game_id: str, seats: Sequence[str], open_hands: bool = False) -> None:
        self.id = game_id
        self.open_hands = open_hands  # everybody may see the hands: a Dask worker may send them in play
        self.seats = list(seats)
        self.n = len(seats)
        self.seq = 0
        self.t = time.time()
        self.ended: dict[str, Any] | None = None
        self.watchers: set[Watcher] = set()
        self._hands: Sequence[Sequence[Card | str]] = [[] for _ in range(self.n)]
        self._hands_known = True  # false once a Dask worker's news came without them (``seen_many``)
        self._scores = [0] * self.n
        self._done: list[dict[str, Any]] = []
        self._new_hand(0, 0, None, [0] * self.n)

    def _new_hand(self, index: int, dealer: int, up: str | None, scores: Sequence[int]) -> None:
        self.hand: dict[str, Any] = {
            "index": index, "dealer": dealer, "up": up, "scores_before": list(scores), "actions": [],
            "trick": [], "last_trick": None, "tricks_won": [0] * self.n, "trump": None, "maker": None,
            "called": None, "partner": None, "exposed": None, "alone": False,
        }  # fmt: skip

    # --- the producer (called by the table: arena.event.table.TableWatch) ---------------------------

    def seen(self, events: Sequence[News], hands: Sequence[Sequence[Card]]) -> None:
        """The public news of one action (already redacted by the engine) and every seat's cards now."""
        for event in events:
            self._apply(event)
        self._hands = hands  # the table's fresh lists: made text only for a snapshot that shows them
        self.seq += 1
        self.t = time.time()  # when the card was played: the bench's latency runs from here
        self._push("move")

    @property
    def watched(self) -> bool:
        """Whether anybody follows it: a Dask executor asks its worker for the news only then."""
        return bool(self.watchers)

    def seen_many(self, groups: Sequence[Sequence[News]], hands: Sequence[Sequence[str]] | None) -> None:
        """The public news of several actions at once (a Dask worker's, since the last time it was asked),
        and the seats' cards now if the worker may send them (``open_hands``): one frame for them all,
        since every frame is a whole snapshot."""
        for events in groups:
            for event in events:
                self._apply(event)
        if hands is not None:
            self._hands, self._hands_known = hands, True
        else:  # the cards stayed on the worker: a snapshot with hands says nothing of them, not "none"
            self._hands_known = False
        self.seq += 1
        self.t = time.time()
        self._push("move")

    def _apply(self, event: News) -> None:
        h = self.hand
        if isinstance(event, HandStarted):
            if event.hand_index != h["index"] or h["up"] is None:
                self._new_hand(event.hand_index, event.dealer, str(event.up_card), event.scores)
            self._scores = list(event.scores)
        elif isinstance(event, ActionTaken):
            action = event.action
            text = "DISCARD (a card, face down)" if action is None else str(action)
            h["actions"].append({"seat": event.seat, "text": text})
            if event.exposed_card is not None:
                h["exposed"] = str(event.exposed_card)
            if action is None:
                return
            if action.kind is ActionKind.PLAY:
                h["trick"].append({"seat": event.seat, "card": str(action.card)})
            elif action.kind is ActionKind.CALL:
                h["called"] = str(action.card)
            elif action.kind is ActionKind.ALONE:
                h["alone"] = True
            elif action.kind in NAMED:
                h["trump"], h["maker"] = str(action.trump), event.seat
            elif action.kind in ORDERED:
                up = h["up"] or ""
                h["trump"], h["maker"] = (up[1] if len(up) == 2 else None), event.seat
        elif isinstance(event, PartnerRevealed):
            h["partner"] = event.seat
        elif isinstance(event, TrickCompleted):
            h["last_trick"] = {"plays": h["trick"], "winner": event.trick.winner}
            h["trick"] = []
            h["tricks_won"][event.trick.winner] += 1
        elif isinstance(event, HandEnded):
            self._scores = list(event.scores)
            self._done.append(
                {"index": event.hand_index, "outcome": event.outcome.value,
                 "trump": str(event.trump) if event.trump is not None else None, "maker": event.maker,
                 "partner": event.partner, "points": list(event.points), "scores": list(event.scores)}
            )  # fmt: skip

    # --- what the watchers get ----------------------------------------------------------------------

    def snapshot(self, hands: bool) -> dict[str, Any]:
        """The whole state a page draws; ``hands`` only for who may see them (the module's docstring)."""
        out: dict[str, Any] = {
            "game": self.id, "seq": self.seq, "t": self.t, "seats": self.seats, "scores": self._scores,
            "hand": self.hand, "hands_done": self._done, "ended": self.ended,
        }  # fmt: skip
        if hands and self._hands_known:
            out["hands"] = [[str(c) for c in h] for h in self._hands]
        return out

    def frames(self, hands: bool, kind: str) -> tuple[str, str]:
        data = json.dumps(self.snapshot(hands), separators=(",", ":"))
        return _sse(kind, self.seq, data), _sse("resync", self.seq, data)

    def _push(self, kind: str) -> None:
        """Encode each audience's snapshot once (only if it has a watcher) and offer it to every one."""
        if not self.watchers:
            return
        encoded: dict[bool, tuple[str, str]] = {}
        for watcher in list(self.watchers):
            if watcher.hands not in encoded:
                encoded[watcher.hands] = self.frames(watcher.hands, kind)
            frame, resync = encoded[watcher.hands]
            watcher.offer(frame, resync, last=kind == "end")

    def finish(self, stored: str | None) -> None:
        """The game is stored as ``stored`` (or lost: None): tell the watchers where its replay is."""
        self.ended = {"stored": stored, "url": f"/games/{stored}" if stored else None}
        self.seq += 1
        self.t = time.time()
        self._push("end")


@dataclass(frozen=True, slots=True)
class TableLine:
    """A game in flight as the list of live tables shows it."""

    id: str
    seats: tuple[str, ...]
    hand: int
    scores: tuple[int, ...]
    watchers: int


class LiveTables:
    """The games in flight, and every watcher of the server (capped: ``[ladder] live_watchers``)."""

    def __init__(self, max_watchers: int, open_hands: bool) -> None:
        self.max_watchers = max_watchers
        self.open_hands = open_hands
        self.games: dict[str, LiveGame] = {}
        self.ended: OrderedDict[str, LiveGame] = OrderedDict()  # the last RECENT games ended
        self.watching = 0
        self.refused = 0

    def open(self, game_id: str, seats: Sequence[str]) -> LiveGame:
        game = LiveGame(game_id, seats, self.open_hands)
        self.games[game_id] = game
        return game

    def end_streams(self) -> None:
        """The server is stopping: every stream finishes now (its page's ``EventSource`` reconnects by
        itself, to this server once it is back), so that no watcher holds the stop up: a stream never ends
        on its own while its game is in flight."""
        for game in [*self.games.values(), *self.ended.values()]:
            for watcher in game.watchers:
                watcher.hang_up()

    def close(self, game_id: str, stored: str | None) -> None:
        """The game left the table: its watchers get the ``end`` frame and finish their streams."""
        game = self.games.pop(game_id, None)
        if game is not None:
            game.finish(stored)
            game.watchers.clear()  # each has its end frame; the streams finish and leave
            self.ended[game_id] = game
            while len(self.ended) > RECENT:
                self.ended.popitem(last=False)

    def lines(self) -> list[TableLine]:
        return [
            TableLine(g.id, tuple(g.seats), g.hand["index"] + 1, tuple(g._scores), len(g.watchers))
            for g in sorted(self.games.values(), key=lambda g: g.id)
        ]

    def shows_hands(self, organiser: bool) -> bool:
        return organiser or self.open_hands

    def join(self, game_id: str, organiser: bool) -> tuple[LiveGame, Watcher]:
        """A new watcher of ``game_id``, its first frame (the snapshot now) already queued.

        :raises Refused: 404 no such game in flight (it may have ended: its page then has it), 503 when
            the server has ``live_watchers`` watchers already.
        """
        game = self.games.get(game_id) or self.ended.get(game_id)
        if game is None:
            raise not_found("game in flight (it may have ended: see the recent games)")
        if game.ended is not None:  # just ended (the list was read before): its end, then its replay
            watcher = Watcher(self.shows_hands(organiser))
            watcher.offer(*game.frames(watcher.hands, "snapshot"))
            watcher.offer(*game.frames(watcher.hands, "end"), last=True)
            return game, watcher
        if self.watching >= self.max_watchers:
            self.refused += 1
            raise Refused(
                503,
                f"this server lets {self.max_watchers} people watch live tables at once, and that many are "
                "watching now: try again in a minute, or open the game's replay once it ends",
                retry_after_s=30,
            )
        watcher = Watcher(self.shows_hands(organiser))
        watcher.offer(*game.frames(watcher.hands, "snapshot"))
        game.watchers.add(watcher)
        watcher.counted = True
        self.watching += 1
        return game, watcher

    def leave(self, game: LiveGame, watcher: Watcher) -> None:
        game.watchers.discard(watcher)
        if watcher.counted:
            watcher.counted = False
            self.watching -= 1

    async def stream(self, game: LiveGame, watcher: Watcher) -> AsyncGenerator[str, None]:
        """The frames of one watcher until the game ends or the page goes; then it is no longer counted."""
        try:
            yield "retry: 3000\n\n"
            while True:
                try:
                    frame = await asyncio.wait_for(watcher.queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": keepalive\n\n"
                    continue
                if frame == HANG_UP or watcher.hung_up:
                    return
                frames = [frame]
                while not watcher.queue.empty():
                    frames.append(watcher.queue.get_nowait())
                # Behind: every frame is a whole snapshot, so the newest says it all (and the end after it).
                frames = frames[-2:] if _is_end(frames[-1]) else frames[-1:]
                yield "".join(frames)
                if any(_is_end(f) for f in frames):
                    return
        finally:
            self.leave(game, watcher)
