"""A deterministic bot that says where it runs: ``python tests/bots/where.py --address ADDR``.

At start it writes the CPUs it may run on to its log (stderr), so that a test can see that the bots of a
local cluster's worker are pinned with their worker; it then plays the first legal action at once.
"""

from __future__ import annotations

import os
import sys

from arena.bot import Bot, run
from arena.engine.views import View


class Where(Bot):
    name = "where"

    def act(self, view: View) -> object:
        return view.legal_actions[0]


if __name__ == "__main__":
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    print(f"cpus: {','.join(map(str, cpus))}", file=sys.stderr, flush=True)
    run(Where)
