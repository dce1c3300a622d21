"""Where the ladder's time goes, in the server's own process: ``python bench/server_parts.py BOTS SECONDS``.

Starts `arena serve` as bench/server.py does, with timing wrappers around the ladder's parts (the game
itself, ``LocalExecutor.play``; the database write, ``Ladder.store``; the board's look, ``Board.refresh``;
the matchmaker, ``Ladder.pick``), has BOTS entrants upload the sample random bot, lets the ladder play
SECONDS, and prints each part's calls and time (the wrappers print them when the server is stopped).
"""

import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, ".")
import tests.server.conftest as cf
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml

bots, seconds = int(sys.argv[1]), float(sys.argv[2])
INSTR = r"""
import os, signal, sys, time, functools
from arena.cli import main
import arena.server.ladder.service as L, arena.server.ladder.ratings as B, arena.executor.local as X
acc = {}
def wrap(cls, name, is_async=False):
    f = getattr(cls, name)
    if is_async:
        async def g(*a, **k):
            t = time.perf_counter()
            try: return await f(*a, **k)
            finally: v = acc.setdefault(name, [0, 0.0]); v[0] += 1; v[1] += time.perf_counter() - t
    else:
        def g(*a, **k):
            t = time.perf_counter()
            try: return f(*a, **k)
            finally: v = acc.setdefault(name, [0, 0.0]); v[0] += 1; v[1] += time.perf_counter() - t
    setattr(cls, name, g)
wrap(L.Ladder, "store"); wrap(B.Board, "refresh"); wrap(X.LocalExecutor, "play", True)
wrap(L.Ladder, "pick")
def done(*_):
    for k, (n, t) in sorted(acc.items()):
        print(f"TIMING {k}: {n} calls, {t:.2f} s, {1000 * t / max(n, 1):.2f} ms each", flush=True)
    os._exit(0)
signal.signal(signal.SIGTERM, done)
main()
"""
real_popen = subprocess.Popen


def popen(args, **kw):
    if args[1:4] == ["-m", "arena", "serve"]:
        args = [args[0], "-c", f"import sys; sys.argv = ['arena'] + {args[3:]!r}\n" + INSTR]
    return real_popen(args, **kw)


cf.subprocess.Popen = popen
with tempfile.TemporaryDirectory() as tmp:
    toml = competition_toml("bench", submissions={"per_hour": 1000}, checks={"queue": 1000})
    server = ServerProcess(Path(tmp), toml)
    server.start()

    def up(i):
        c = Client(server.url)
        c.sign_up(f"b{i:02d}")
        c.verdict(c.upload("random.py", SAMPLE_BOT.read_bytes()).headers["location"], timeout_s=900)

    ts = [threading.Thread(target=up, args=(i,)) for i in range(bots)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    g0 = Client(server.url).http.get("/api/leaderboard").json()["games"]
    t0 = time.monotonic()
    time.sleep(seconds)
    g1 = Client(server.url).http.get("/api/leaderboard").json()["games"]
    print(f"{(g1 - g0) * 60 / (time.monotonic() - t0):.0f} games/min, {g1} games", flush=True)
    server.stop()
    print("\n".join(line for line in server.log.read_text().splitlines() if "TIMING" in line))
