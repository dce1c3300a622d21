"""The competition server's speed: ``python bench/server.py [--bots 30] [--minutes 1] [--compare]``.

Starts a real `arena serve` (sandboxed with bubblewrap where it runs), signs up ``--bots`` entrants and has
each upload the sample ``random`` bot at once (30 uploads in one burst: the check queue serves them in
turn), and reports the time from upload to verdict (p50, p90, max). Then it lets the ladder play for
``--minutes`` and reports its games per minute. ``--compare`` also plays `arena run` with the same bots
(launched, sandboxed alike, five-handed to 5 points, one table) for the same time, the issue's reference.
``--load`` then lets the ladder play as long again while ``--clients`` (50) concurrent clients on loopback
each make ``--requests`` GETs of the leaderboard and of stored games' pages, in turn, one every
``--interval`` seconds (1: fifty people each opening a page every second; 0: each as fast as it is
answered, a saturating load), and reports each page's latency p50 and p99 and the ladder's games per
minute meanwhile, against the mean of its rates just before and just after (the two say how much the
ladder's rate drifts by itself), as a ratio, with the machine's load average. The clients run in
``--client-processes`` (2) processes of their own, never in the bench's, and they and the server (with the
bots it starts) at the default priority whatever the bench's own ``nice`` (where the bench may raise
them back: as root); each run prints the priorities, the server process's CPU share quiet and loaded, and
the load processes'. The load is bounded both
ways: clients x requests in all. ``--pages leaderboard`` asks for the leaderboard only; ``--load-seconds S``
bounds the load by time instead (each client asks until S seconds have passed) and measures the pace before
and after over S seconds too, so the rates are over the same length: the issue's "30 clients polling the
leaderboard as fast as answered for 30 s" is ``--load --clients 30 --interval 0 --pages leaderboard
--load-seconds 30``. ``--rounds K`` cuts those S seconds into K loaded spells of S/K seconds between K + 1
quiet ones as long, and compares the means: on a shared machine whose other work comes and goes, the
ladder's pace drifts by tens of per cent within a minute, and alternating cancels most of it.

``--restart N`` (after the ladder's rate) stops the server, writes N games straight into its database,
starts it once (it rates those games: a full replay), and again, and reports how long after that second
start the leaderboard counts a game played after it (the board resumes from its snapshot, board.json).

``--matches N`` (after the ladder's rate; with ``match_on_activate``) has N entrants upload a new version at
once while the ladder plays, which starts N SPRT matches, reports those verdicts' times, and then, over
the next ``--minutes`` (at least 1.5), the largest share of unrated games among the games stored in any 60 s
window, against ``match_share``: the issue's "20 activations at once" is ``--bots 20 --matches 20``.

``--processes 2 --database postgresql+psycopg://...`` starts that many `arena serve` processes on one
data directory and that PostgreSQL database (arena.server.db.multi; ``--scheduler-file`` puts their ladders'
games on a running Dask cluster, e.g. two ``dask worker``), uploads through the first, and reports the
ladder's games per minute summed over all processes (read from the database), for comparison with one
process on SQLite (the default).

It drives the server as the tests do (``tests/server/conftest.py``: a real process on loopback, clients
over HTTP), so it needs the test extra.

``--watchers N`` (after ``--load``, if both are asked) lets the ladder play as long again while N
clients on loopback follow its live tables over server-sent events (each reads one game's stream to its
end, then takes the table in play next), and reports the ladder's slowdown against just before and the
event latency (p50, p99) from the moment the card was played (the server's timestamp in each event) to the
moment the watcher has parsed it; the watchers run in this one process, so their queueing is in the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from bench.server_load import load_processes
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml


def upload_and_wait(
    server: ServerProcess,
    name: str,
    times: list[float],
    clients: dict[str, Client] | None = None,
    failed: list[str] | None = None,
) -> None:
    """``name`` signs up (unless in ``clients`` already) and uploads the sample random bot: the time to
    its verdict in ``times``, and ``name`` in ``failed`` when the verdict is not a pass."""
    failed = [] if failed is None else failed
    client = (clients or {}).get(name)
    if client is None:
        client = Client(server.url)
        client.sign_up(name)
        if clients is not None:
            clients[name] = client
    started = time.monotonic()
    page = client.upload("random.py", SAMPLE_BOT.read_bytes())
    verdict = client.verdict(page.headers["location"], timeout_s=900)
    times.append(time.monotonic() - started)
    if "VERDICT: PASS" not in verdict:  # a check that cannot launch the bot is fast, and no measure
        failed.append(name)


def burst(server: ServerProcess, names: list[str], clients: dict[str, Client]) -> list[float]:
    """Every name uploads at once; the times to their verdicts."""
    times: list[float] = []
    failed: list[str] = []
    threads = [
        threading.Thread(target=upload_and_wait, args=(server, n, times, clients, failed)) for n in names
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed or len(times) < len(names):
        lost = len(names) - len(times)
        raise SystemExit(f"{len(failed)} checks failed and {lost} got no verdict: the figures are no measure")
    return sorted(times)


def match_share(server: ServerProcess, clients: dict[str, Client], count: int, seconds: float) -> None:
    """``--matches N``: N entrants upload a new version at once while the ladder plays; each becomes
    active and starts its SPRT match against the version it replaced. Then, over ``seconds``, every 60 s
    window (sliding by a second) of the games stored: the unrated games' share against ``match_share``
    (the ladder always has games waiting here: its field is every entrant)."""
    began = time.time()
    times = burst(server, list(clients)[:count], clients)
    print(
        f"{count} new versions at once while the ladder plays: verdicts p50 {percentile(times, 0.5):.1f} s, "
        f"p90 {percentile(times, 0.9):.1f} s, max {times[-1]:.1f} s"
    )
    time.sleep(seconds)
    end = time.time()
    ladder = [t for (t,) in server.rows(f"SELECT created_at FROM games WHERE created_at > {began}")]
    unrated = [t for (t,) in server.rows(f"SELECT created_at FROM unrated_games WHERE created_at > {began}")]
    share = 0.25  # [ladder] match_share, the default
    first = min(unrated, default=end)  # from the first unrated game: the matches' checks came before
    width = min(60.0, end - first)
    worst, worst_share, windows = -math.inf, 0.0, 0
    start = first
    while start + width <= end + 1e-9:
        u = sum(start <= t < start + width for t in unrated)
        n = u + sum(start <= t < start + width for t in ladder)
        if n:
            windows += 1
            worst = max(worst, u - share * n)
            worst_share = max(worst_share, u / n)
        start += 1.0
    print(
        f"unrated games over {windows} windows of {width:.0f} s: at most {worst_share:.0%} of the games "
        f"stored (match_share {share:.0%}), at most {worst:+.1f} games over the share "
        f"({len(unrated)} unrated and {len(ladder)} ladder games in {end - began:.0f} s)"
    )


def ladder_rate(server: ServerProcess, seconds: float) -> float:
    first = Client(server.url).http.get("/api/leaderboard").json()["games"]
    time.sleep(seconds)
    last = Client(server.url).http.get("/api/leaderboard").json()["games"]
    return (last - first) * 60 / seconds


def stored_rate(server: ServerProcess, seconds: float) -> float:
    """Games stored per minute by every process on the database (the board of one may lag)."""
    first = server.rows("SELECT count(*) FROM games")[0][0]
    time.sleep(seconds)
    last = server.rows("SELECT count(*) FROM games")[0][0]
    return float((last - first) * 60 / seconds)


def unniced(server: ServerProcess) -> int:
    """The server's process group (it, and the bots it starts later) at the default priority where the
    bench may set it (see ``normal_priority``); the server's priority then."""
    assert server.proc is not None
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PGRP, server.proc.pid, 0)
    return os.getpriority(os.PRIO_PROCESS, server.proc.pid)


def cpu_of(server: ServerProcess) -> float:
    """The server process's CPU seconds so far (its own, not its bots': /proc/PID/stat's utime + stime)."""
    assert server.proc is not None
    fields = Path(f"/proc/{server.proc.pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def under_load(
    server: ServerProcess,
    clients: int,
    requests: int,
    interval: float,
    pages: str,
    seconds: float | None,
    processes: int = 2,
    conditional: bool = False,
) -> tuple[dict[str, list[float]], float, float, list[int]]:
    """The pages' latencies under the load of ``clients`` spread over ``processes`` load processes
    (``load_processes``), and the ladder's games per minute during it (games stored, as ``stored_rate``
    counts them: the board's count may lag a second behind); the load processes' niceness. With ``seconds``
    the pace is counted over exactly the ``seconds`` the clients ask in (not their start or their exit)."""
    games = Client(server.url).http.get("/api/leaderboard").json()["games"]
    jobs = []
    offset = 0
    for p in range(processes):
        share = clients // processes + (p < clients % processes)
        jobs.append({"url": server.url, "clients": share, "requests": requests, "games": games,
                     "interval": interval, "pages": pages, "offset": offset,
                     "conditional": conditional})  # fmt: skip
        offset += share
    procs = load_processes(jobs)
    first, began, cpu = server.rows("SELECT count(*) FROM games")[0][0], time.monotonic(), cpu_of(server)
    until = None if seconds is None else time.time() + seconds
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(until) + "\n")
        proc.stdin.flush()
    if seconds is not None:
        time.sleep(max(0.0, began + seconds - time.monotonic()))
        last = server.rows("SELECT count(*) FROM games")[0][0]
        took, cpu = time.monotonic() - began, cpu_of(server) - cpu
    times: dict[str, list[float]] = {}
    nice = []
    for proc in procs:
        out, _ = proc.communicate()
        if proc.returncode:
            raise SystemExit(f"a load process exited with {proc.returncode}")
        found = json.loads(out.splitlines()[-1])
        nice.append(found["nice"])
        for kind, values in found["times"].items():
            times.setdefault(kind, []).extend(values)
    if seconds is None:
        last = server.rows("SELECT count(*) FROM games")[0][0]
        took, cpu = time.monotonic() - began, cpu_of(server) - cpu
    times["server_cpu"] = [cpu]
    return times, (last - first) * 60 / took, took, nice


async def _watch(url: str, watchers: int, seconds: float) -> dict[str, Any]:
    """``watchers`` SSE clients following the live tables for ``seconds``: latencies and counts."""
    import httpx

    latencies: list[float] = []
    counts = {"events": 0, "resync": 0, "refused": 0, "games": 0}
    stop = time.monotonic() + seconds

    async def one(w: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            while time.monotonic() < stop:
                tables = re.findall(r'<tr data-game="([^"]+)">', (await http.get("/live")).text)
                if not tables:
                    await asyncio.sleep(0.05)
                    continue
                async with http.stream("GET", f"/live/{tables[w % len(tables)]}/events") as reply:
                    if reply.status_code != 200:
                        counts["refused"] += reply.status_code == 503
                        await asyncio.sleep(0.2)
                        continue
                    kind = ""
                    async for line in reply.aiter_lines():
                        if line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: "):
                            t = json.loads(line[6:])["t"]
                            counts["events"] += 1
                            if kind == "move":
                                latencies.append(time.time() - t)
                            counts["resync"] += kind == "resync"
                            if kind == "end" or time.monotonic() > stop:
                                counts["games"] += kind == "end"
                                break

    await asyncio.gather(*(one(w) for w in range(watchers)))
    return {"latencies": latencies, **counts}


def watched(server: ServerProcess, watchers: int, seconds: float) -> tuple[dict[str, Any], float]:
    """The watchers' figures, and the ladder's games per minute while they watched."""
    first = Client(server.url).http.get("/api/leaderboard").json()["games"]
    began = time.monotonic()
    figures = asyncio.run(_watch(server.url, watchers, seconds))
    last = Client(server.url).http.get("/api/leaderboard").json()["games"]
    return figures, (last - first) * 60 / (time.monotonic() - began)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile: the smallest value with at least ``q`` of the values at or below it
    (so p50 <= p90 <= max, with two values as with two thousand)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered), math.ceil(q * len(ordered))) - 1)]


def _pct(values: list[float], q: float) -> float:
    return percentile(values, q) * 1000


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


def restarted(server: ServerProcess, games: int) -> None:
    """``--restart N``: N games written straight into the stopped server's database (SQLite), a first start
    over them (it rates every one: a full replay), then a second start, timed to the first moment its
    leaderboard counts a game played after it (the ratings resumed from board.json)."""
    from arena.server.db.database import open_database
    from arena.server.settings import load_competition
    from tests.server.ladder import seed

    server.stop()
    here = os.getcwd()
    os.chdir(server.directory)
    try:
        db = open_database(load_competition(server.config).database_url)
        seed.games(db, seed.entrants(db, 6, active=False), games)
        db.close()
    finally:
        os.chdir(here)
    began = time.monotonic()
    server.start(timeout_s=3600)
    print(f"restart over {games} new games it never rated: serving after {time.monotonic() - began:.1f} s")
    server.stop()
    stored = server.rows("SELECT COUNT(*) FROM games")[0][0]
    began = time.monotonic()
    server.start(timeout_s=3600)
    serving = time.monotonic() - began
    played = counted = 0.0
    while True:
        if not played and server.rows("SELECT COUNT(*) FROM games")[0][0] > stored:
            played = time.monotonic() - began
        if json.loads(Client(server.url).get("/api/leaderboard").text)["games"] > stored:
            counted = time.monotonic() - began
            break
        time.sleep(0.05)
    print(
        f"restart over {stored} stored games: serving after {serving:.1f} s, a new game stored after "
        f"{played or counted:.1f} s, the board counts it {counted:.1f} s after the start "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--watchers", type=int, default=0, help="live-table watchers (see above)")
    parser.add_argument("--load", action="store_true", help="the page-latency load test (see above)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=40, help="per client")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between a client's requests")
    parser.add_argument(
        "--client-processes", type=int, default=2, help="processes the --load clients are spread over"
    )
    parser.add_argument(
        "--conditional", action="store_true",
        help="--load clients send the ETag of the page they hold (If-None-Match), as a browser's fetch does",
    )  # fmt: skip
    parser.add_argument("--pages", choices=("both", "leaderboard"), default="both", help="what --load asks")
    parser.add_argument(
        "--load-seconds", type=float, default=None,
        help="--load for this long (not --requests each), and the ladder's pace just before and after "
        "over as long",
    )  # fmt: skip
    parser.add_argument("--processes", type=int, default=1, help="arena serve processes (needs --database)")
    parser.add_argument("--database", default=None, help="a PostgreSQL URL shared by the processes")
    parser.add_argument("--scheduler-file", default=None, help="a Dask scheduler's file: [executor]")
    parser.add_argument("--web", type=int, default=0, help="more processes, --role web (needs --database)")
    parser.add_argument("--tables", type=int, default=1, help="[ladder] tables of each process")
    parser.add_argument("--restart", type=int, default=0, help="games seeded before a timed restart")
    parser.add_argument(
        "--rounds", type=int, default=1, help="--load-seconds cut into this many loaded spells"
    )
    parser.add_argument("--matches", type=int, default=0, help="new versions at once, each starting a match")
    parser.add_argument("--parallel", type=int, default=None, help="[checks] parallel (default: its own)")
    parser.add_argument("--keep", default=None, help="a directory to copy the server's log and database to")
    args = parser.parse_args()
    if (args.processes > 1 or args.web) and not args.database:
        parser.error("--processes above 1 needs --database postgresql+psycopg://... (SQLite is one process)")
    with tempfile.TemporaryDirectory() as tmp:
        extra = {"executor": {"scheduler_file": args.scheduler_file}} if args.scheduler_file else {}
        ladder = {"tables": args.tables, "live_watchers": max(200, args.watchers)}
        if args.matches:
            ladder["match_on_activate"] = True
        toml = competition_toml(
            "bench", args.database, submissions={"per_hour": 1000},
            checks={"queue": 1000} | ({"parallel": args.parallel} if args.parallel else {}),
            ladder=ladder, **extra,
        )  # fmt: skip
        server = ServerProcess(Path(tmp), toml, args.database)
        server.start()
        server_nice = unniced(server)
        others = [ServerProcess(Path(tmp), toml, args.database) for _ in range(args.processes - 1)]
        others += [ServerProcess(Path(tmp), toml, args.database, ("--role", "web")) for _ in range(args.web)]
        for other in others:
            other.start()
        sandbox = "bubblewrap" if 'sandbox = "bubblewrap"' in toml else "none"
        try:
            clients: dict[str, Client] = {}
            times = burst(server, [f"bot{i:02d}" for i in range(args.bots)], clients)
            print(
                f"upload to verdict, {args.bots} uploads at once (sandbox {sandbox}): "
                f"p50 {percentile(times, 0.5):.1f} s, p90 {percentile(times, 0.9):.1f} s, "
                f"max {times[-1]:.1f} s"
            )
            rate = stored_rate(server, args.minutes * 60)
            web = f" + {args.web} web" if args.web else ""
            where = f"{args.processes} process(es){web} on {'PostgreSQL' if args.database else 'SQLite'}"
            print(
                f"ladder: {rate:.1f} games per minute with {args.bots} bots "
                f"({where}, {args.tables} table(s) each{', Dask' if args.scheduler_file else ''})"
            )
            if args.matches:
                match_share(server, clients, args.matches, max(args.minutes * 60, 90.0))
            if args.restart:
                restarted(server, args.restart)
            if args.load:
                span = args.load_seconds or args.minutes * 60 / 2
                segment = span / args.rounds
                load = os.getloadavg()[0]
                cpu = {"quiet": 0.0, "loaded": 0.0, "clients": 0.0}
                at = cpu_of(server)
                quiet = [stored_rate(server, segment)]  # just before, as a fair reference
                cpu["quiet"] += cpu_of(server) - at
                loaded: list[float] = []
                latencies: dict[str, list[float]] = {}
                seconds = 0.0
                nice: set[int] = set()
                unchanged = 0
                for _ in range(args.rounds):  # loaded and quiet in turn: the machine's own drift cancels
                    times, rate, took, nices = under_load(
                        server,
                        args.clients,
                        args.requests,
                        args.interval,
                        args.pages,
                        args.load_seconds and segment,
                        args.client_processes,
                        args.conditional,
                    )
                    nice.update(nices)
                    cpu["loaded"] += sum(times.pop("server_cpu"))
                    cpu["clients"] += sum(times.pop("cpu"))
                    unchanged += int(sum(times.pop("unchanged")))
                    loaded.append(rate)
                    seconds += took
                    for kind, values in times.items():
                        latencies.setdefault(kind, []).extend(values)
                    at = cpu_of(server)
                    quiet.append(stored_rate(server, segment))  # the ladder's own drift, to compare
                    cpu["quiet"] += cpu_of(server) - at
                pace = f"one request every {args.interval:g} s each" if args.interval else "saturating"
                for kind, values in latencies.items():
                    print(
                        f"{kind} page, {args.clients} concurrent clients ({pace}): "
                        f"p50 {_pct(values, 0.5):.0f} ms, "
                        f"p99 {_pct(values, 0.99):.0f} ms, max {_pct(values, 1.0):.0f} ms "
                        f"({len(values)} requests; the clients in {args.client_processes} processes of "
                        f"their own at nice {'/'.join(map(str, sorted(nice)))}, the server at nice "
                        f"{server_nice}, the bench at nice {os.getpriority(os.PRIO_PROCESS, 0)})"
                    )
                reference = sum(quiet) / len(quiet)
                during = sum(loaded) / len(loaded)
                print(
                    f"ladder under that load ({seconds:.0f} s in {args.rounds} spell(s)): {during:.1f} games "
                    f"per minute, against {reference:.1f} in {len(quiet)} quiet spells of {segment:.0f} s "
                    f"around them ({min(quiet):.0f} to {max(quiet):.0f}): {during / reference:.2f}x "
                    f"(load average {load:.1f} before, {os.getloadavg()[0]:.1f} after)"
                )
                print(
                    f"spells in turn, quiet then loaded: {', '.join(f'{q:.0f}' for q in quiet)} quiet, "
                    f"{', '.join(f'{v:.0f}' for v in loaded)} loaded (games per minute); the server "
                    f"process's CPU: {cpu['quiet'] / (segment * len(quiet)):.0%} of a core quiet, "
                    f"{cpu['loaded'] / seconds:.0%} loaded; the load processes' "
                    f"{cpu['clients'] / seconds:.0%}"
                    + (
                        f"; {unchanged} answers were 304 (the page held unchanged)"
                        if args.conditional
                        else ""
                    )
                )
            if args.watchers:
                quiet = ladder_rate(server, args.minutes * 60 / 2)
                figures, loaded = watched(server, args.watchers, args.minutes * 60)
                lat = figures["latencies"]
                print(
                    f"{args.watchers} live watchers: event latency p50 {_pct(lat, 0.5):.0f} ms, "
                    f"p99 {_pct(lat, 0.99):.0f} ms ({figures['events']} events, {figures['games']} games "
                    f"followed to the end, {figures['resync']} resyncs, {figures['refused']} refused)"
                )
                print(
                    f"ladder while watched: {loaded:.1f} games per minute, against {quiet:.1f} just "
                    f"before: {100 * (1 - loaded / quiet):.0f}% slower"
                )
        finally:
            for other in others:
                other.stop()
            server.stop()
            if args.keep:  # the server's log and (SQLite) database, to look into afterwards
                Path(args.keep).mkdir(parents=True, exist_ok=True)
                for kept in [*Path(tmp).glob("serve-*.log"), *Path(tmp).glob("results/*/server.sqlite")]:
                    shutil.copy(kept, args.keep)
    if args.compare:
        reference = arena_run_rate(args.bots, args.minutes * 60, sandbox)
        print(f"arena run, same bots: {reference:.1f} games per minute; ladder/run = {rate / reference:.2f}")


if __name__ == "__main__":
    main()
