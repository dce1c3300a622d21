"""The competition server's speed: ``python bench/server.py [--bots 30] [--minutes 1] [--compare]``.

Starts a real `arena serve` (sandboxed with bubblewrap where it runs), signs up ``--bots`` entrants and has
each upload the sample ``random`` bot at once (30 uploads in one burst: the check queue serves them in
turn), and reports the time from upload to verdict (p50, p90, max). Then it lets the ladder play for
``--minutes`` and reports its games per minute. ``--compare`` also plays `arena run` with the same bots
(launched, sandboxed alike, five-handed to 5 points, one table) for the same time, the issue's reference.

It drives the server as the tests do (``tests/server/conftest.py``: a real process on loopback, clients
over HTTP), so it needs the test extra.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml


def upload_and_wait(server: ServerProcess, name: str, times: list[float]) -> None:
    client = Client(server.url)
    client.sign_up(name)
    started = time.monotonic()
    page = client.upload("random.py", SAMPLE_BOT.read_bytes())
    client.verdict(page.headers["location"], timeout_s=900)
    times.append(time.monotonic() - started)


def ladder_rate(server: ServerProcess, seconds: float) -> float:
    first = Client(server.url).http.get("/api/leaderboard").json()["games"]
    time.sleep(seconds)
    last = Client(server.url).http.get("/api/leaderboard").json()["games"]
    return (last - first) * 60 / seconds


def arena_run_rate(bots: int, seconds: float, sandbox: str) -> float:
    """`arena run` of the same bots for ``seconds``: games stored per minute."""
    with tempfile.TemporaryDirectory() as tmp:
        entrants = "".join(
            # -m: `python sample_bots/random.py` would import itself as the standard library's random
            f'[[entrant]]\nname = "b{i}"\n'
            'command = "{python} -m sample_bots.random --address {address}"\n'
            for i in range(bots)
        )
        toml = Path(tmp) / "run.toml"
        toml.write_text(
            f'name = "bench"\nrounds = 1000\nconcurrency = 1\nsandbox = "{sandbox}"\n'
            f'[game]\nvariant = "five-handed"\ntarget = 5\n{entrants}'
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "run", str(toml)],
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(seconds / 4)  # the bots start; then count
        import sqlite3

        db = Path(tmp) / "results" / "bench" / "event.sqlite"

        def count() -> int:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
                return int(c.execute("SELECT COUNT(*) FROM games").fetchone()[0])

        first = count()
        time.sleep(seconds)
        last = count()
        proc.terminate()
        proc.wait()
    return (last - first) * 60 / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        toml = competition_toml("bench", submissions={"per_hour": 1000}, checks={"queue": 1000})
        server = ServerProcess(Path(tmp), toml)
        server.start()
        sandbox = "bubblewrap" if 'sandbox = "bubblewrap"' in toml else "none"
        try:
            times: list[float] = []
            threads = [
                threading.Thread(target=upload_and_wait, args=(server, f"bot{i:02d}", times))
                for i in range(args.bots)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            times.sort()
            print(
                f"upload to verdict, {args.bots} uploads at once (sandbox {sandbox}): "
                f"p50 {statistics.median(times):.1f} s, p90 {times[int(0.9 * (len(times) - 1))]:.1f} s, "
                f"max {times[-1]:.1f} s"
            )
            rate = ladder_rate(server, args.minutes * 60)
            print(f"ladder: {rate:.1f} games per minute with {args.bots} bots (one table)")
        finally:
            server.stop()
    if args.compare:
        reference = arena_run_rate(args.bots, args.minutes * 60, sandbox)
        print(f"arena run, same bots: {reference:.1f} games per minute; ladder/run = {rate / reference:.2f}")


if __name__ == "__main__":
    main()
