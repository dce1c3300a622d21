"""Learned inference: where the hidden cards are, given everything public, for PIMC's guesses.

The model scores each hidden card ``c`` at each place ``l`` it may be (another seat's hand, the dealer's
hidden discard, the rest: kitty and stock) as ``W[class(c)] . f(l, suit(c)) + log(room(l))``, a softmax
over the places the view allows (``hidden_facts``: voids, the called card, known cards). ``class(c)`` is
the card's rank within its effective suit relative to the reference suit (trump once made, else the suit
bid on), its colour against that suit, whether trump is made yet, and whether it is the called card;
``f(l, suit)`` is what the table saw that seat do this hand (its bids, whether it made trump, went alone,
is the known partner, picked the up-card up, and how often it led, followed or trumped in the card's
suit); ``room(l)`` is how many unknown cards the place holds, so a model of all-zero weights is the
uniform guess. It was fitted (softmax regression) to where the cards really were in games of rules
players (``bench/train_inference.py``; the weights' card is ``inference.md``).

``draw`` makes one guess from it: the pinned cards as ``sample_hidden`` places them, then every other
hidden card, in random order, goes to a place with chance proportional to its weight there times the
room left (with all weights equal and no card barred from a place, exactly the uniform draw; a random
order that reaches a dead end is drawn again). Play needs numpy only to load the
weights: scoring a view is a few hundred multiplications, done once per decision.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from arena.engine.actions import ActionKind
from arena.engine.cards import EFFECTIVE_SUIT, NO_TRUMP, TRICK_KEY, CardId, printed_suit
from arena.engine.determinize import Guess, _Facts
from arena.engine.views import UpCardFate, View
from sample_bots.learned import config_key
from sample_bots.policy.knowledge import ranks

WEIGHTS = Path(__file__).with_name("inference.npz")
"""The shipped weights (made as ``inference.md`` says)."""

TRUMP_RANKS = 10
"""Ranks kept apart within the reference suit (the Five-handed trump suit has ten cards); lower ones share
the last class."""
OFF_RANKS = 7
"""Ranks kept apart within another suit."""
PER_STATE = TRUMP_RANKS + 2 * OFF_RANKS
NUM_CLASSES = 2 * PER_STATE + 1
"""Card classes: (reference-suit rank, or other-suit rank by colour) x (trump made or not), and the
called card."""

MAX_SEATS = 7
FEATURES = (
    "seat",  # 1 for a seat, 0 for the rest and the discard
    "rest",
    "discard",
    *(f"after_dealer_{i}" for i in range(MAX_SEATS)),
    "passed_1",
    "accepted_1",  # ordered up or took up
    "passed_2",
    "named",  # named trump in round 2 (or blind / exposed, Five-handed)
    "maker",
    "alone",
    "partner",  # the maker's partner, known to the viewer
    "picked_up",  # the dealer, who took the up-card
    "led_suit",  # times it led the card's effective suit
    "followed_suit",  # times it followed the card's effective suit to another's lead
    "trumped_in",  # times it played trump to a non-trump lead
    "played",  # cards it has played
    "sluffed_suit",  # times it threw the card's suit to another suit's lead (it may hold more of it)
    "sluffed",  # times it threw off (neither followed nor trumped in): it had no trump then
    "ducked_suit",  # times it followed the card's suit below the suit's card winning the trick then
    "won_suit",  # times it followed the card's suit and took the lead of the trick
)
NUM_FEATURES = len(FEATURES)
MAX_PLACES = MAX_SEATS + 2
"""Places per view: at most seven seats (the viewer's own in a blind decision), the rest and the discard."""
REST, DISCARD = -1, -2
"""``Table.places`` entries that are not seats."""


def reference_suit(view: View) -> tuple[int, bool]:
    """The suit the card classes are relative to, and whether trump is made: trump once made, else the
    suit bid on in round 1 (the proposed one), else the up-card's printed suit."""
    if view.trump is not None:
        return int(view.trump), True
    if view.proposed_trump is not None:
        return int(view.proposed_trump), False
    suit = printed_suit(view.up_card.id)
    return (int(suit) if suit is not None else 0), False


def card_class(card: CardId, view: View, ref: int, made: bool) -> int:
    """The card's class (see ``NUM_CLASSES``)."""
    if made and view.called_card is not None and card == view.called_card.id:
        return 2 * PER_STATE
    r = ranks(view.config, ref)
    eff = r.eff[card]
    pos = r.pos[card]
    if eff == ref:
        index = min(pos, TRUMP_RANKS - 1)
    else:
        same_colour = ref != NO_TRUMP and eff == 3 - ref
        index = TRUMP_RANKS + (OFF_RANKS if same_colour else 0) + min(pos, OFF_RANKS - 1)
    return index + (PER_STATE if made else 0)


def seat_features(view: View, ref: int) -> np.ndarray:
    """``f(seat, suit)`` for every seat and effective suit (under ``ref``): shape (n, 4, NUM_FEATURES)."""
    n = view.num_players
    f = np.zeros((n, 4, NUM_FEATURES))
    col = {name: i for i, name in enumerate(FEATURES)}
    f[:, :, col["seat"]] = 1.0
    for s in range(n):
        f[s, :, col[f"after_dealer_{(s - view.dealer - 1) % n}"]] = 1.0
    round_2 = view.up_card_fate is UpCardFate.TURNED_DOWN
    for seat, action in view.history:
        if action is None:
            continue
        kind = action.kind
        if kind is ActionKind.PASS:
            passed_2 = round_2 and (view.trump is None or seat != view.maker)
            f[seat, :, col["passed_2" if passed_2 else "passed_1"]] += 1.0
        elif kind in (ActionKind.ORDER_UP, ActionKind.TAKE_UP):
            f[seat, :, col["accepted_1"]] = 1.0
        elif kind in (ActionKind.NAME, ActionKind.BLIND_NAME, ActionKind.EXPOSE_NAME, ActionKind.JOKER_NAME):
            f[seat, :, col["named"]] = 1.0
    if view.maker is not None:
        f[view.maker, :, col["maker"]] = 1.0
        if view.alone:
            f[view.maker, :, col["alone"]] = 1.0
    if view.partner is not None and view.partner != view.seat:
        f[view.partner, :, col["partner"]] = 1.0
    if view.up_card_fate is UpCardFate.TAKEN:
        f[view.dealer, :, col["picked_up"]] = 1.0
    eff = EFFECTIVE_SUIT[ref]
    tricks = [*view.tricks, view.current_trick] if view.current_trick is not None else list(view.tricks)
    for trick in tricks:
        if trick is None or not trick.plays:
            continue
        first = trick.plays[0].card.id
        led = eff[first]
        key = TRICK_KEY[ref][led] if led >= 0 else None
        best = key[first] if key is not None else 0
        trumped = False
        for i, p in enumerate(trick.plays):
            card = p.card.id
            suit = eff[card]
            f[p.seat, :, col["played"]] += 1.0
            if suit < 0 or key is None:
                continue
            if i == 0:
                f[p.seat, suit, col["led_suit"]] += 1.0
            elif suit == led:
                f[p.seat, suit, col["followed_suit"]] += 1.0
                if key[card] > best:
                    f[p.seat, suit, col["won_suit"]] += 1.0
                elif not trumped:  # it could have won with a higher card of the suit
                    f[p.seat, suit, col["ducked_suit"]] += 1.0
            elif suit == ref:
                f[p.seat, :, col["trumped_in"]] += 1.0
            else:
                f[p.seat, suit, col["sluffed_suit"]] += 1.0
                f[p.seat, :, col["sluffed"]] += 1.0
            trumped = trumped or (suit == ref and led != ref)
            best = max(best, key[card])
    return f


@dataclass(slots=True)
class Table:
    """One view's hidden cards and the places they may be, with the model's inputs.

    ``cards``: the unpinned hidden cards (``facts.pool``); ``places``: seats, ``REST`` and (when the
    dealer's discard is hidden) ``DISCARD``; ``room``: unknown cards each place holds before the pinned
    cards are placed; ``allowed[i, j]``: card i may be at place j; ``x[i, j]``: the features of card i's
    suit at place j; ``classes[i]``: card i's class.
    """

    cards: list[CardId]
    places: list[int]
    room: list[int]
    allowed: np.ndarray
    x: np.ndarray
    classes: np.ndarray


def table(view: View, facts: _Facts) -> Table:
    """The ``Table`` of ``view`` (``facts = hidden_facts(view)``)."""
    ref, made = reference_suit(view)
    per_seat = seat_features(view, ref)
    eff = EFFECTIVE_SUIT[ref]
    seats = sorted(s for s, k in facts.need.items() if k > 0)
    places = [*seats, REST]
    room = [facts.need[s] for s in seats]
    slot = 1 if facts.discard_hidden else 0
    room.append(max(len(facts.pool) + len(facts.pinned) - sum(room) - slot, 0))
    if slot:
        places.append(DISCARD)
        room.append(1)
    cards = list(facts.pool)
    k, m = len(cards), len(places)
    x = np.zeros((k, m, NUM_FEATURES))
    allowed = np.zeros((k, m), dtype=bool)
    classes = np.zeros(k, dtype=np.int64)
    col_rest, col_discard = FEATURES.index("rest"), FEATURES.index("discard")
    for i, c in enumerate(cards):
        classes[i] = card_class(c, view, ref, made)
        suit = max(eff[c], 0)
        for j, place in enumerate(places):
            if place == REST:
                x[i, j, col_rest] = 1.0
                allowed[i, j] = room[j] > 0
            elif place == DISCARD:
                x[i, j, col_discard] = 1.0
                allowed[i, j] = True
            else:
                x[i, j] = per_seat[place, suit]
                allowed[i, j] = c not in facts.barred[place]
    return Table(cards, places, room, allowed, x, classes)


class Inference:
    """The weights of one configuration: ``W`` of shape (NUM_CLASSES, NUM_FEATURES)."""

    def __init__(self, w: np.ndarray) -> None:
        if w.shape != (NUM_CLASSES, NUM_FEATURES):
            raise ValueError(f"weights of shape {w.shape}, expected ({NUM_CLASSES}, {NUM_FEATURES})")
        self.w = w

    def scores(self, t: Table) -> np.ndarray:
        """``W[class] . f`` per (card, place), -inf where the card may not be."""
        s = np.einsum("kmf,kf->km", t.x, self.w[t.classes])
        return np.where(t.allowed, s, -np.inf)

    def marginals(self, t: Table) -> np.ndarray:
        """The model's chance of each card at each place (the softmax with the places' room)."""
        logits = self.scores(t) + np.log(np.maximum(np.asarray(t.room, dtype=np.float64), 1e-300))
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def weights(self, t: Table) -> list[list[float]]:
        """``exp(score)`` per (card, place) as plain lists (the draw runs in Python), 0 where not allowed."""
        s = self.scores(t)
        s -= np.where(np.isfinite(s), s, -np.inf).max(axis=1, keepdims=True)
        return np.exp(s).tolist()


def draw(view: View, facts: _Facts, t: Table, weights: list[list[float]], rng: random.Random) -> Guess | None:
    """One guess of the hidden cards with the model's weights (see the module's docstring); ``None`` when
    the random order led to a dead end (a card with no room left where it may be: draw again)."""
    dealer = view.dealer
    room = list(t.room)
    holdings: dict[int, list[CardId]] = {s: list(facts.known[s]) for s in facts.need}
    discard: CardId | None = None
    where = {place: j for j, place in enumerate(t.places)}
    for card in facts.pinned:  # in the dealer's hand or his discard, as sample_hidden places them
        j_hand, j_discard = where.get(dealer), where.get(DISCARD)
        options = []
        if j_hand is not None and room[j_hand] > 0 and card not in facts.barred[dealer]:
            options.extend(["hand"] * room[j_hand])
        if j_discard is not None and room[j_discard] > 0:
            options.append("discard")
        if not options:
            return None
        if rng.choice(options) == "hand":
            holdings[dealer].append(card)
            room[j_hand] -= 1  # type: ignore[index]
        else:
            discard = card
            room[j_discard] -= 1  # type: ignore[index]
    order = list(range(len(t.cards)))
    rng.shuffle(order)
    places = t.places
    m = len(places)
    for i in order:
        row = weights[i]
        total = 0.0
        for j in range(m):
            total += row[j] * room[j]
        if total <= 0.0:
            return None
        u = rng.random() * total
        j = 0
        for j in range(m):
            u -= row[j] * room[j]
            if u < 0 and row[j] * room[j] > 0:
                break
        if room[j] <= 0 or row[j] <= 0:
            return None
        room[j] -= 1
        place = places[j]
        if place == DISCARD:
            discard = t.cards[i]
        elif place != REST:
            holdings[place].append(t.cards[i])
    if facts.discard_hidden and discard is None:
        return None
    return Guess({s: tuple(h) for s, h in holdings.items()}, discard)


class InferenceSet:
    """The models of one weights file, by ``config_key``."""

    def __init__(self, models: dict[str, Inference]) -> None:
        self.models = models

    @classmethod
    def load(cls, path: Path | str) -> InferenceSet:
        import json

        with np.load(path) as data:
            keys = json.loads(str(data["keys"]))
            return cls({key: Inference(data[f"w{i}"]) for i, key in enumerate(keys)})

    def save(self, path: Path | str) -> None:
        import json

        keys = sorted(self.models)
        arrays = {f"w{i}": self.models[k].w for i, k in enumerate(keys)}
        np.savez_compressed(path, keys=np.array(json.dumps(keys)), **arrays)  # type: ignore[arg-type]

    def get(self, view: View) -> Inference | None:
        return self.models.get(config_key(view.config))


@lru_cache(maxsize=4)
def shipped(path: str = str(WEIGHTS)) -> InferenceSet:
    """The weights at ``path`` (default: the shipped ones), loaded once per process."""
    return InferenceSet.load(path)


def log_loss(p: np.ndarray, truth: np.ndarray) -> float:
    """Mean negative log chance given to the true place (``truth[i]``: card i's place index)."""
    chosen = p[np.arange(len(truth)), truth]
    return float(-np.mean(np.log(np.maximum(chosen, 1e-12))))


__all__ = ["WEIGHTS", "Inference", "InferenceSet", "Table", "draw", "log_loss", "shipped", "table"]
