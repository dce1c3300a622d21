"""How many games the class fields' copies need before ``settle = "order"`` can show them tied: the copies'
gaps and standard errors at the events' last look, extrapolated as 1/sqrt(games) (an estimate, not a run).

Usage (the games come from ``bench/ranking.py --fields class12 --save F --play-only``)::

    python bench/ranking_settle.py --load F [--budgets 1000,2000,3000,4000]

A pair of copies is shown tied when |gap| + b·se < the tie margin (0.08), b the boundary of the last
planned look of an event whose ``max_games`` is the budget. Printed per mode and budget: the boundary, the
median standard error there, and the share of copy pairs (at the gaps and standard errors they had at the
last look, both scaled to the budget as 1/sqrt(games)) that would be shown tied, and of events in which all
copy pairs would be (what ``order`` needs, besides every pair of neighbouring tiers shown ordered).
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))

from ranking_fields import FIELDS, names

from arena.stats.confidence import TIE_MARGIN, resolve_method
from arena.stats.leaderboard import PLANNED_RHO
from arena.stats.sequential import LookPlan
from arena.stats.tally import Tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=Path, action="append", required=True)
    parser.add_argument("--budgets", default="1000,2000,3000,4000")
    args = parser.parse_args()
    pairs: dict[tuple[str, str], list[list[tuple[float, float, int]]]] = defaultdict(list)
    for path in args.load:
        saved = pickle.loads(path.read_bytes())
        for event in saved["played"] if isinstance(saved, dict) else saved:
            tally = Tally(names(event.field))
            tally.add(event.games).close()
            totals = tally.totals[resolve_method("auto", tally.duplicate)]
            s, cov = totals.scores(), totals.covariance()
            eps = dict(FIELDS[event.field])
            copies = []
            for i, a in enumerate(tally.names):
                for j in range(i + 1, len(tally.names)):
                    if eps[a] == eps[tally.names[j]]:
                        se = math.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0))
                        copies.append((abs(float(s[i] - s[j])), se, len(event.games)))
            pairs[event.field, event.mode].append(copies)
    for (fld, mode), events in sorted(pairs.items()):
        for budget in (int(b) for b in args.budgets.split(",")):
            b = LookPlan(100, 1.5, budget, PLANNED_RHO).boundary(budget, 0.95)
            tied = []
            for copies in events:
                tied.append([(g + b * se) * math.sqrt(n / budget) < TIE_MARGIN for g, se, n in copies])
            ses = sorted(se * math.sqrt(n / budget) for copies in events for _, se, n in copies)
            each = sum(sum(t) for t in tied) / max(sum(len(t) for t in tied), 1)
            every = sum(all(t) for t in tied) / len(tied)
            print(
                f"{fld}, {mode}, budget {budget}: boundary {b:.2f}, median se {ses[len(ses) // 2]:.3f}; "
                f"copy pairs shown tied {each:.2f}, events with every copy pair tied {every:.2f} "
                f"({len(events)} events)"
            )


if __name__ == "__main__":
    main()
