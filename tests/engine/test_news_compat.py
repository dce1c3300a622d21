"""``arena.engine.events`` is a bot author's import path: renamed ``arena.engine.news``, it must still work.

A bot written before the rename imports ``Event`` and the event classes from ``arena.engine.events`` and
matches on them with ``isinstance``: the old names must be the very same objects, not copies, or such a
match would silently never succeed.
"""

from __future__ import annotations

import importlib

from arena.engine import GameConfig, GameState, news

OLD_TO_NEW = {
    "Event": "News",
    "opening_events": "opening_news",
    "events_since": "news_since",
    "events_for_seats": "news_for_seats",
}
SAME_NAME = [
    "ActionTaken",
    "HandEnded",
    "HandShown",
    "HandStarted",
    "Mark",
    "PartnerRevealed",
    "TrickCompleted",
    "mark",
    "redact",
]


def test_every_old_name_is_the_new_object() -> None:
    events = importlib.import_module("arena.engine.events")
    for old, new in OLD_TO_NEW.items():
        assert getattr(events, old) is getattr(news, new), old
        assert getattr(events, new) is getattr(news, new), new
    for name in SAME_NAME:
        assert getattr(events, name) is getattr(news, name), name
    assert set(events.__all__) == set(OLD_TO_NEW) | set(OLD_TO_NEW.values()) | set(SAME_NAME)


def test_a_bot_written_against_the_old_module_still_matches_what_it_is_told() -> None:
    from arena.engine.events import Event, HandStarted, events_for_seats, mark, opening_events

    state = GameState(GameConfig(), seed=3)
    told: list[Event] = opening_events(state, 0)
    assert isinstance(told[0], HandStarted)
    before = mark(state)
    state.apply(state.legal_actions()[0])
    per_seat = events_for_seats(state, before)
    assert len(per_seat) == state.n and all(per_seat)


def test_every_public_name_of_the_news_module_has_an_old_spelling() -> None:
    """A name added to ``arena.engine.news`` later is re-exported by the old module too."""
    events = importlib.import_module("arena.engine.events")
    public = {
        name
        for name, value in vars(news).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == news.__name__
    }
    public |= {"News"}  # a union: its __module__ is typing's
    assert public <= set(events.__all__), public - set(events.__all__)
