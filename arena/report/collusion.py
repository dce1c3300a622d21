"""The report's section on pairs at the same table (``templates/collusion.html``): the collusion check of
``arena.stats.collusion`` in the words the leaderboard prints, and every tested pair for the curious."""

from __future__ import annotations

from typing import Any

from arena.results.queries import Queries
from arena.stats.collusion import Collusion, collusion, describe


def section(store: Queries) -> dict[str, Any]:
    """What ``collusion.html`` shows of the event in ``store``."""
    return view(collusion(store.rated_games(), [e.name for e in store.entrants()], hands=store.hand_sides))


def view(result: Collusion) -> dict[str, Any]:
    tested = sorted((p for p in result.pairs if p.testable), key=lambda p: (p.p, p.a, p.b))
    reasons = sorted({p.why for p in result.pairs if not p.testable})
    return {
        "alpha": result.alpha,
        "tests": result.tests,
        "tested": len(tested),
        "pairs": result.pairs,
        "why": "; ".join(reasons) if reasons else "fewer than two entrants",
        "flagged": [describe(p, result) for p in result.flagged],
        "rows": [
            {
                "a": p.a,
                "b": p.b,
                "together": p.together,
                "a_apart": p.a_apart,
                "b_apart": p.b_apart,
                "a_gain": p.a_gain,
                "a_se": p.a_se,
                "b_gain": p.b_gain,
                "b_se": p.b_se,
                "p_text": f"{p.p:.4f}" if p.p is not None and p.p >= 1e-4 else "< 0.0001",
                "flagged": p.flagged,
            }
            for p in tested
        ],
    }
