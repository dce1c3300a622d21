"""The old name of ``arena.engine.news``, kept so that a bot author's imports never break.

A seat's news was called its "events" until the word was needed for a tournament (``arena.event``), so
the module became ``arena.engine.news`` and its union ``News``. Every name is re-exported here, under its
new name and under its old one (``Event``, ``opening_events``, ``events_since``, ``events_for_seats``),
and the objects are the very same: ``arena.engine.events.Event is arena.engine.news.News``. New code
imports ``arena.engine.news``.
"""

from __future__ import annotations

from arena.engine.news import (
    ActionTaken,
    HandEnded,
    HandShown,
    HandStarted,
    Mark,
    News,
    PartnerRevealed,
    TrickCompleted,
    mark,
    news_for_seats,
    news_since,
    opening_news,
    redact,
)

Event = News
opening_events = opening_news
events_since = news_since
events_for_seats = news_for_seats

__all__ = [
    "ActionTaken",
    "Event",
    "HandEnded",
    "HandShown",
    "HandStarted",
    "Mark",
    "News",
    "PartnerRevealed",
    "TrickCompleted",
    "events_for_seats",
    "events_since",
    "mark",
    "news_for_seats",
    "news_since",
    "opening_events",
    "opening_news",
    "redact",
]
