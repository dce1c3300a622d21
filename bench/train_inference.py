"""Train the learned inference (``sample_bots/learned/inference.py``): where the hidden cards really were.

    python bench/train_inference.py [--variants five-handed,call-ace,classic] [--deals 3000] [--seed 1]
                                    [--out ~/.cache/euchre-arena/train-inference] [--chunk 100]
                                    [--epochs 6] [--l2 1e-4] [--compare 300] [--ship] [--quiet]

Data. Each deal (``GameState(config, seed=s, single_hand=True)``, s = seed, seed + 1, ...) is played by
rules players. At every decision with a choice, the deciding seat's view (``build_view``) gives one row
per hidden card (``inference.table``: the card's class, the features of every place it may be, the places'
room) and the place the card really was. Rows are written in chunks of ``--chunk`` deals under ``--out``
(outside the repository); a run stopped and started again with the same arguments skips the chunks it
has (resumable), and the data are a function of the seed and the deal count only.

Fit. Softmax regression per variant (``W``, one row per card class), by Adam on minibatches with a seeded
order, an L2 penalty ``--l2``, from zero weights (the uniform guess); the last tenth of the deals is held
out. It prints the held-out log-loss (nats per hidden card) of the uniform guess (room only) and of the
model, and with ``--compare N`` also on the first N held-out decisions the log-loss of the guesses'
marginals (``compare``) of: the uniform draw (``sample_hidden``), the hand-written fit (``montecarlo.
Sampler`` with its defaults), the learned draw (``inference.draw``) and the learned draw with the
hand-written check on top. The model goes to ``OUT/inference.npz`` (and, with ``--ship``, to
``sample_bots/learned/inference.npz``). The shipped weights' command and figures: ``inference.md``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.engine import GameConfig, GameState
from arena.engine.determinize import Guess, hidden_facts, sample_hidden
from arena.engine.state import P_OVER
from arena.engine.views import View, build_view
from bench.strength import VARIANTS
from sample_bots.learned import config_key
from sample_bots.learned.inference import (
    DISCARD,
    MAX_PLACES,
    NUM_CLASSES,
    NUM_FEATURES,
    REST,
    WEIGHTS,
    Inference,
    InferenceSet,
    Table,
    draw,
    log_loss,
    table,
)
from sample_bots.policy import choose, seen_from_state

TRAIN_VARIANTS = ("five-handed", "call-ace", "classic")
DEFAULT_OUT = Path.home() / ".cache" / "euchre-arena" / "train-inference"


def truth(state: GameState, places: list[int], cards: list[int]) -> list[int]:
    """The index in ``places`` of where each card really is in ``state``."""
    out = []
    for c in cards:
        found = places.index(REST)
        for j, place in enumerate(places):
            if (place == DISCARD and state.discard == c) or (place >= 0 and c in state.hands[place]):
                found = j
                break
        out.append(found)
    return out


def deal_rows(config: GameConfig, deal: int) -> dict[str, np.ndarray]:
    """The rows of one deal played by rules players (see the module's docstring)."""
    xs, allowed, room, classes, where, decision = [], [], [], [], [], []
    state = GameState(config, seed=deal, single_hand=True)
    step = 0
    while state.phase != P_OVER:
        legal = state.legal_actions()
        seat = state.to_act
        if len(legal) > 1:
            view = build_view(state, seat)
            t = table(view, hidden_facts(view))
            k, m = len(t.cards), len(t.places)
            if k:
                x = np.zeros((k, MAX_PLACES, NUM_FEATURES), dtype=np.uint8)
                x[:, :m] = t.x
                a = np.zeros((k, MAX_PLACES), dtype=bool)
                a[:, :m] = t.allowed
                r = np.zeros((k, MAX_PLACES), dtype=np.uint8)
                r[:, :m] = t.room
                true = truth(state, t.places, t.cards)
                xs.append(x)
                allowed.append(a)
                room.append(np.broadcast_to(r, (k, MAX_PLACES)))
                classes.append(t.classes)
                where.append(true)
                decision.append(np.full(k, step))
            step += 1
        action = legal[0] if len(legal) == 1 else choose(seen_from_state(state, seat))
        state.apply_unchecked(action)
    if not xs:
        empty = np.zeros(0, dtype=np.int64)
        return {
            "x": np.zeros((0, MAX_PLACES, NUM_FEATURES), np.uint8),
            "allowed": np.zeros((0, MAX_PLACES), bool),
            "room": np.zeros((0, MAX_PLACES), np.uint8),
            "cls": empty,
            "truth": empty,
            "step": empty,
        }
    return {
        "x": np.concatenate(xs),
        "allowed": np.concatenate(allowed),
        "room": np.concatenate(room),
        "cls": np.concatenate(classes).astype(np.int64),
        "truth": np.concatenate([np.asarray(w, dtype=np.int64) for w in where]),
        "step": np.concatenate(decision).astype(np.int64),
    }


def chunk_path(out: Path, variant: str, seed: int, start: int, size: int) -> Path:
    return out / "data" / variant / f"seed{seed}-{start:07d}-{size}.npz"


def make_chunk(config: GameConfig, first: int, size: int, path: Path) -> None:
    """Rows of deals ``first .. first + size - 1``, written atomically to ``path``."""
    parts = []
    for deal in range(first, first + size):
        rows = deal_rows(config, deal)
        rows["deal"] = np.full(len(rows["cls"]), deal, dtype=np.int64)
        parts.append(rows)
    arrays = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def load(paths: list[Path]) -> dict[str, np.ndarray]:
    parts = []
    for p in paths:
        with np.load(p) as d:
            parts.append({key: d[key] for key in d.files})
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def batch_logits(
    w: np.ndarray, x: np.ndarray, allowed: np.ndarray, room: np.ndarray, cls: np.ndarray
) -> np.ndarray:
    """The model's logits per (row, place): ``W[class] . x + log(room)``, -inf where a card may not be."""
    s = np.einsum("kmf,kf->km", x.astype(np.float64), w[cls]) + np.log(np.maximum(room, 1e-300))
    return np.where(allowed & (room > 0), s, -np.inf)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def fit(
    data: dict[str, np.ndarray],
    rows: np.ndarray,
    epochs: int,
    l2: float,
    seed: int,
    progress: Callable[[], object] | None = None,
) -> np.ndarray:
    """Softmax regression by Adam (see the module's docstring); ``rows``: the training rows' indices."""
    rng = np.random.default_rng(seed)
    w = np.zeros((NUM_CLASSES, NUM_FEATURES))
    m1, m2 = np.zeros_like(w), np.zeros_like(w)
    lr, b1, b2, batch = 0.02, 0.9, 0.999, 4096
    t = 0
    room = data["room"].astype(np.float64)
    for _ in range(epochs):
        order = rng.permutation(rows)
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            x = data["x"][idx].astype(np.float64)
            cls = data["cls"][idx]
            p = softmax(batch_logits(w, x, data["allowed"][idx], room[idx], cls))
            p[np.arange(len(idx)), data["truth"][idx]] -= 1.0
            g_rows = np.einsum("km,kmf->kf", p, x)
            grad = np.zeros_like(w)
            np.add.at(grad, cls, g_rows)
            grad = grad / len(idx) + l2 * w
            t += 1
            m1 = b1 * m1 + (1 - b1) * grad
            m2 = b2 * m2 + (1 - b2) * grad**2
            w -= lr * (m1 / (1 - b1**t)) / (np.sqrt(m2 / (1 - b2**t)) + 1e-8)
        if progress is not None:
            progress()
    return w


def held_out_loss(w: np.ndarray, data: dict[str, np.ndarray], rows: np.ndarray) -> float:
    """Log-loss of weights ``w`` on ``rows``."""
    room = data["room"][rows].astype(np.float64)
    p = softmax(batch_logits(w, data["x"][rows], data["allowed"][rows], room, data["cls"][rows]))
    return log_loss(p, data["truth"][rows])


METHODS = ("uniform", "hand-written", "learned", "learned+check")
"""``compare``'s ways of drawing guesses, each scored by its marginals' log-loss (and ``model``: the
model's own marginals, no draw)."""


def compare(
    config: GameConfig, model: Inference, deals: range, decisions: int, samples: int
) -> dict[str, float]:
    """Log-loss (nats per hidden card) of the guesses' marginals on held-out decisions: each method draws
    ``samples`` guesses per decision, a card's chance at a place is the share of guesses that put it there
    (smoothed by half a guess, spread by room), and the true place's chance is scored."""
    totals = dict.fromkeys((*METHODS, "model"), 0.0)
    cards = seen = 0
    for deal in deals:
        state = GameState(config, seed=deal, single_hand=True)
        while state.phase != P_OVER and seen < decisions:
            legal = state.legal_actions()
            seat = state.to_act
            if len(legal) > 1:
                view = build_view(state, seat)
                t = table(view, hidden_facts(view))
                if t.cards:
                    seen += 1
                    true = np.asarray(truth(state, t.places, t.cards))
                    rng = random.Random(f"compare/{deal}/{seen}")
                    for method in METHODS:
                        counts = guess_counts(view, t, model, method, samples, rng)
                        prior = np.asarray(t.room, dtype=np.float64) * t.allowed
                        prior = prior / prior.sum(axis=1, keepdims=True)
                        p = (counts + 0.5 * prior) / (counts.sum(axis=1, keepdims=True) + 0.5)
                        totals[method] += log_loss(p, true) * len(true)
                    totals["model"] += log_loss(model.marginals(t), true) * len(true)
                    cards += len(true)
            state.apply_unchecked(legal[0] if len(legal) == 1 else choose(seen_from_state(state, seat)))
        if seen >= decisions:
            break
    return {name: total / max(cards, 1) for name, total in totals.items()}


def guess_counts(
    view: View, t: Table, model: Inference, method: str, samples: int, rng: random.Random
) -> np.ndarray:
    """How often each of ``samples`` guesses drawn by ``method`` put each card of ``t`` at each place."""
    from sample_bots.montecarlo import Sampler
    from sample_bots.policy import DEFAULT_STYLE

    facts = hidden_facts(view)
    sampler = Sampler(view, DEFAULT_STYLE, 0.1, 12, model if method == "learned+check" else None)
    weights = model.weights(t)
    counts = np.zeros((len(t.cards), len(t.places)))
    index = {place: j for j, place in enumerate(t.places)}
    for _ in range(samples):
        guess: Guess | None = None
        if method == "uniform":
            guess = sample_hidden(view, rng, facts=facts)
        elif method == "learned":
            for _ in range(20):
                guess = draw(view, facts, t, weights, rng)
                if guess is not None:
                    break
        elif sampler.sample(rng) is not None:
            guess = sampler.last_guess
        if guess is None:
            continue
        where = {c: seat for seat, held in guess.holdings.items() for c in held}
        if guess.discard is not None:
            where[guess.discard] = DISCARD
        for i, c in enumerate(t.cards):
            counts[i, index.get(where.get(c, REST), index[REST])] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(TRAIN_VARIANTS))
    parser.add_argument("--deals", default="3000", help="deals per variant: one, or one per --variants")
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed (also the fit's)")
    parser.add_argument("--chunk", type=int, default=100, help="deals per data file (the resume unit)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="data and model (outside the repo)")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--compare", type=int, default=0, metavar="N", help="held-out decisions to compare")
    parser.add_argument("--samples", type=int, default=100, help="guesses per decision in compare()")
    parser.add_argument("--ship", action="store_true", help=f"also write the model to {WEIGHTS}")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    bad = [v for v in variants if v not in VARIANTS]
    try:
        counts = [int(n) for n in args.deals.split(",")]
    except ValueError:
        counts = [0]
    if len(counts) == 1:
        counts *= len(variants)
    if bad or len(counts) != len(variants) or min(counts) < 2 or args.chunk < 1 or args.epochs < 1:
        known = ", ".join(VARIANTS)
        print(
            f"bad arguments: variants {bad} (known: {known}); deals (one, or one per variant) >= 2, chunk "
            "and epochs >= 1",
            file=sys.stderr,
        )
        return 2
    from rich.progress import Progress

    started = time.process_time()
    deals = dict(zip(variants, counts, strict=True))
    plan = []
    for variant in variants:
        for start in range(0, deals[variant], args.chunk):
            size = min(args.chunk, deals[variant] - start)
            plan.append((variant, start, size, chunk_path(args.out, variant, args.seed, start, size)))
    todo = [p for p in plan if not p[3].exists()]
    models: dict[str, Inference] = {}
    with Progress(disable=args.quiet) as progress:
        done = sum(p[2] for p in plan if p[3].exists())
        task = progress.add_task("deals", total=sum(p[2] for p in plan), completed=done)
        for variant, start, size, path in todo:
            make_chunk(GameConfig.from_dict(VARIANTS[variant]), args.seed + start, size, path)
            progress.advance(task, size)
        spent = time.process_time() - started
        print(f"data: {len(plan) - len(todo)} chunks found, {len(todo)} made, {spent:.0f} s CPU")
        for variant in variants:
            config = GameConfig.from_dict(VARIANTS[variant])
            data = load([p[3] for p in plan if p[0] == variant])
            cut = args.seed + deals[variant] - max(1, deals[variant] // 10)
            train, test = np.flatnonzero(data["deal"] < cut), np.flatnonzero(data["deal"] >= cut)
            fitting = progress.add_task(f"fit {variant}", total=2 * args.epochs)
            step = partial(progress.advance, fitting)
            held = fit(data, train, args.epochs, args.l2, args.seed, step)
            uniform = held_out_loss(np.zeros_like(held), data, test)
            learned = held_out_loss(held, data, test)
            print(
                f"  {variant}: {len(train)} rows, held out {len(test)}: log-loss uniform {uniform:.4f}, "
                f"model {learned:.4f} nats per hidden card",
                flush=True,
            )
            every = np.arange(len(data["cls"]))
            models[config_key(config)] = Inference(fit(data, every, args.epochs, args.l2, args.seed, step))
            if args.compare:
                held_deals = range(cut, args.seed + deals[variant])
                found = compare(config, Inference(held), held_deals, args.compare, args.samples)
                print(
                    f"  {variant} guesses' marginals ({args.compare} held-out decisions, {args.samples} "
                    "guesses each): " + ", ".join(f"{k} {v:.4f}" for k, v in found.items()),
                    flush=True,
                )
    result = InferenceSet(models)
    args.out.mkdir(parents=True, exist_ok=True)
    result.save(args.out / "inference.npz")
    if args.ship:
        result.save(WEIGHTS)
    shipped = f" and {WEIGHTS}" if args.ship else ""
    spent = time.process_time() - started
    print(f"model: {args.out / 'inference.npz'}{shipped}; {spent:.0f} s CPU in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
