"""The ladder on the competition's ``[executor]``: a real ``dask scheduler`` and two ``dask worker``
processes on loopback, speaking TLS only (the server given its certificate, as docs/scale-out.md says),
play the ladder's games, which are stored as the local executor's are; a worker SIGKILLed mid-ladder loses
only its games in flight (played again elsewhere), and the ladder goes on. A cluster that cannot be
reached, or bad TLS files, are one line and exit 2 at ``arena serve``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed", reason="the dask executor needs distributed (pip install -e '.[test]')")

from arena.engine.config import GameConfig
from arena.event.config import load_config
from arena.event.table import TableSpec
from tests.executor.test_dask import _certificates, _cluster, _group_alive, _kill_all
from tests.helpers import children_of, event, write_toml
from tests.server.conftest import SAMPLE_BOT, Client, ServerProcess, competition_toml
from tests.server.live.test_live import assert_nothing_hidden, follow_a_whole_game, stored_hands


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One real TLS cluster (a scheduler, two workers) shared by the tests below that do not kill a
    worker: its scheduler file and the TLS files, as ``[executor]`` keys."""
    directory = tmp_path_factory.mktemp("cluster")
    procs: list[subprocess.Popen[bytes]] = []
    tls = _certificates(directory)
    try:
        _cluster(procs, directory / "scheduler.json", 2, tls)
        from distributed import Client as DaskClient
        from distributed import Security

        security = Security(require_encryption=True, tls_ca_file=tls["tls_ca_file"],
                            tls_client_cert=tls["tls_cert"], tls_client_key=tls["tls_key"])  # fmt: skip
        with DaskClient(scheduler_file=str(directory / "scheduler.json"), security=security) as client:
            client.wait_for_workers(2, timeout=60)
        yield {"scheduler_file": str(directory / "scheduler.json")} | tls
    finally:
        _kill_all(procs)


def test_two_executors_on_one_cluster_keep_their_own_entrants(
    tmp_path: Path, cluster: dict[str, str]
) -> None:
    """Two executors (two ladder processes, or a ladder and an ``arena run``) on one scheduler: each plays
    its own entrants' games; when one stops, the other's entrants are still on every worker and it plays
    on."""
    from arena.executor.dask import DaskExecutor

    def executor(prefix: str) -> DaskExecutor:
        entrants = [{"name": f"{prefix}{i}", "class": "sample_bots.random:RandomBot"} for i in range(5)]
        path = write_toml(tmp_path / f"{prefix}.toml", event(tmp_path, entrant=entrants,
                          output=str(tmp_path / prefix), executor=cluster))  # fmt: skip
        return DaskExecutor(load_config(path), tmp_path / prefix / "logs", strict=True)

    def spec(prefix: str, seed: int) -> TableSpec:
        return TableSpec(f"{prefix}-{seed}", GameConfig(), seed, tuple(f"{prefix}{i}" for i in range(5)))

    async def scenario() -> None:
        a, b = executor("a"), executor("b")
        await a.start([f"a{i}" for i in range(5)])
        await b.start([f"b{i}" for i in range(5)])
        try:
            assert a.plugin != b.plugin
            for ex, prefix in ((a, "a"), (b, "b")):  # several games each: both workers play some
                records = await asyncio.gather(*(ex.play(spec(prefix, n), (), n) for n in range(4)))
                for record in records:
                    assert [seat.entrant for seat in record.seats] == [f"{prefix}{i}" for i in range(5)]
                    assert not record.faults, record.faults  # the bots were there, on the right plugin
            await a.stop()
            assert b.client is not None
            plugins = await b.client.run(lambda dask_worker: sorted(dask_worker.plugins))
            assert len(plugins) == 2 and all(b.plugin in p and a.plugin not in p for p in plugins.values())
            records = await asyncio.gather(*(b.play(spec("b", n), (), n) for n in range(10, 14)))
            assert all(not r.faults for r in records)
        finally:
            await a.stop()
            await b.stop()

    asyncio.run(scenario())


def _games(server: ServerProcess) -> list[tuple[Any, ...]]:
    path = next(server.directory.glob("results/*/server.sqlite"))
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute("SELECT seq, id, hands, result FROM games ORDER BY seq").fetchall()


def _rows(server: ServerProcess, sql: str) -> list[tuple[Any, ...]]:
    path = next(server.directory.glob("results/*/server.sqlite"))
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute(sql).fetchall()


def _wait(server: ServerProcess, at_least: int, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while len(_games(server)) < at_least:
        assert server.alive(), server.log.read_text()[-3000:]
        assert time.monotonic() < deadline, f"fewer than {at_least} games in {timeout_s} s"
        time.sleep(0.3)


CHATTY = (
    SAMPLE_BOT.read_text()
    .replace("import random\n", "import random\nimport sys\n")
    .replace(
        "        return self.rng.choice(view.legal_actions)",
        "        print(f'north thinks in {self.game_id}', file=sys.stderr, flush=True)\n"
        "        return self.rng.choice(view.legal_actions)",
    )
    .replace(
        "        self.rng = random.Random(f",
        "        self.game_id = game.game_id\n        self.rng = random.Random(f",
    )
    .encode()
)  # the sample bot, saying on stderr at each decision which game it plays


def _a_worker_game_log(server: ServerProcess, clients: dict[str, Client], version: int) -> None:
    """Some stored game of ``version`` shows the stderr lines of that very game on its logs page (the
    shim's copy lags, so not every game's span holds its own lines: the games are looked at until one
    does); every game's page has a log from the worker; nobody else sees it."""
    deadline = time.monotonic() + 180
    seen: set[str] = set()
    while True:
        for (gid,) in _rows(server, f"SELECT game_id FROM game_seats WHERE version_id = {version}"):
            if gid in seen:
                continue
            seen.add(gid)
            page = clients["north"].get(f"/games/{gid}/logs/{version}")
            assert page.status_code == 200, page.text[-2000:]
            assert "no log was recorded" not in page.text, f"game {gid}: no log from the worker"
            ((seed,),) = _rows(server, f"SELECT public_seed FROM games WHERE id = '{gid}'")
            if f"north thinks in L{seed:x}\n" in page.text:  # this game's own lines (the table's id)
                game_id = gid
                break
        else:
            assert time.monotonic() < deadline, f"no game of {len(seen)} shows north's stderr"
            time.sleep(0.5)
            continue
        break
    for other in (clients["south"], Client(server.url)):  # another entrant, a spectator: no such page
        refused = other.get(f"/games/{game_id}/logs/{version}")
        assert refused.status_code == 404 and "north thinks" not in refused.text
    assert _rows(server, f"SELECT COUNT(*) FROM worker_logs WHERE version_id = {version}")[0][0] > 0


def test_the_ladder_plays_on_a_dask_cluster_and_survives_a_worker_killed_mid_ladder(tmp_path: Path) -> None:
    scheduler_file = tmp_path / "scheduler.json"
    procs: list[subprocess.Popen[bytes]] = []
    tls = _certificates(tmp_path)
    server: ServerProcess | None = None
    try:
        _, workers = _cluster(procs, scheduler_file, 2, tls)
        toml = competition_toml(
            "dask-ladder",
            ladder={"tables": 2},
            executor={"scheduler_file": str(scheduler_file)} | tls,
        )
        server = ServerProcess(tmp_path, toml)
        server.start(timeout_s=120)
        out = server.log.read_text()
        assert "executor: dask, the scheduler in" in out, out
        assert "workers: 2" in out, out
        clients = {}
        for name in ("north", "south"):
            client = clients[name] = Client(server.url)
            client.sign_up(name)
            bot = SAMPLE_BOT.read_bytes() if name == "south" else CHATTY
            page = client.verdict(client.upload("random.py", bot).headers["location"])
            assert "VERDICT: PASS" in page, page[-2000:]
        _wait(server, 4)
        # north's stderr during a game a worker played is on that game's logs page (the worker sent its
        # span of the log back with the game), for north only
        (north,) = _rows(
            server, "SELECT v.id FROM versions v JOIN users u ON u.id = v.user_id WHERE u.name = 'north'"
        )
        _a_worker_game_log(server, clients, north[0])
        # Stored as the local executor's games are: five seats, both versions seated, every hand kept.
        versions = {f"v{i}" for (i,) in _rows(server, "SELECT id FROM versions")}
        for _, gid, hands, result in _games(server):
            seats = _rows(server, f"SELECT name, version_id FROM game_seats WHERE game_id = '{gid}'")
            assert len(seats) == 5 and versions <= {n for n, _ in seats}, seats
            assert (
                hands > 0
                and _rows(server, f"SELECT COUNT(*) FROM hands WHERE game_id = '{gid}'")[0][0] == hands
            )
            assert "public_seed" in json.loads(result)
        # Each worker launched both versions' bots, with their logs beside the server's.
        logs = server.directory / "results" / "dask-ladder" / "logs"
        for w in ("w0", "w1"):
            assert {p.name for p in (logs / f"worker-{w}").glob("v*.log")} == {f"{v}.log" for v in versions}
        victim = workers[1]
        shims = children_of(victim.pid)  # the launchers of that worker's bots
        assert shims, "the worker launched no bots"
        before = _games(server)
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
        _wait(server, len(before) + 6)
        after = _games(server)
        assert after[: len(before)] == before  # nothing stored changed
        assert [seq for seq, *_ in after] == list(range(1, len(after) + 1))  # none lost from the numbering
        assert len({gid for _, gid, *_ in after}) == len(after)  # none twice
        assert server.alive()
        deadline = time.monotonic() + 15
        while any(_group_alive(s) for s in shims) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_group_alive(s) for s in shims), "a bot of the dead worker survived it"
    finally:
        if server is not None:
            server.stop()
        _kill_all(procs)


def _serve(tmp_path: Path, toml: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "c.toml").write_text(toml)
    return subprocess.run(
        [sys.executable, "-m", "arena", "serve", "c.toml", "--port", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        # Dask's connect timeout is the arena's patience for a missing scheduler (30 s unless set).
        env=dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="3s"),
    )


@pytest.mark.parametrize(
    ("executor", "says"),
    [
        (
            {"scheduler": "tls://127.0.0.1:1", "tls_ca_file": "no.pem", "tls_cert": "no.pem"},
            "no.pem' does not exist",  # the one check of every file a person hands the arena
        ),
        ({"scheduler_file": "nowhere.json"}, "cannot reach the Dask cluster"),
    ],
)
def test_an_executor_that_cannot_start_is_one_line_and_exit_2(
    tmp_path: Path, executor: dict[str, str], says: str
) -> None:
    done = _serve(tmp_path, competition_toml("x", executor=executor))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], done.stderr
    if "scheduler_file" in executor:
        assert "after 3 s" in lines[0]  # the patience set through Dask's own configuration
    assert "serving" not in done.stdout


# A bot that takes a little while per ladder decision (so that a game stays in flight long enough to be
# followed), and, for the entrant "north", says on stderr which game it plays.
SLOW_CHATTY = b"""
import asyncio, random, sys
from arena.bot import Bot, GameInfo, run

class Slow(Bot):
    name = "slow"
    def on_game_start(self, game: GameInfo) -> None:
        self.game_id = game.game_id
        self.rng = random.Random(f"{game.game_id}/{game.seat}")
        self.wait = 0.02 if game.game_id.startswith("L") else 0
    async def act(self, view):
        await asyncio.sleep(self.wait)
        if self.wait and WHO == "north":
            print(f"north thinks in {self.game_id}", file=sys.stderr, flush=True)
        return self.rng.choice(view.legal_actions)

if __name__ == "__main__":
    run(Slow)
"""


def test_live_moves_and_logs_of_games_played_on_dask_workers(tmp_path: Path, cluster: dict[str, str]) -> None:
    """A spectator follows a game played on a Dask worker move by move (no hidden card in anything it
    received); north's stderr on the workers is in north's logs tail and found by north's log search,
    and nobody else's."""
    server = ServerProcess(tmp_path, competition_toml("dask-live", executor=cluster))
    try:
        server.start(timeout_s=120)
        clients: dict[str, Client] = {}
        versions = {}
        for name in ("north", "south"):
            client = clients[name] = Client(server.url)
            client.sign_up(name)
            bot = SLOW_CHATTY.replace(b"WHO ==", f"{name!r} ==".encode())
            versions[name] = client.upload("slow.py", bot).headers["location"]
        for name, url in versions.items():
            page = clients[name].verdict(url)
            assert "VERDICT: PASS" in page, page[-2000:]
        # Live: the moves of a game in flight reach a spectator, redacted.
        spectator = Client(server.url)
        # A game followed from its first snapshot may have been joined in its last hand's bidding (on a busy
        # machine the stream opens late): the cards are asked of one of a few games, every one redacted.
        cards = False
        for _ in range(4):
            _game, events = follow_a_whole_game(spectator)
            stored = events[-1][1]["ended"]["stored"]
            during = [d for k, d in events if k != "end"]
            assert any(d["hand"]["actions"] or d["hands_done"] for d in during), "no move reached the page"
            assert_nothing_hidden(during, stored_hands(server, stored))
            cards = any(
                t["card"]
                for d in during
                for t in d["hand"]["trick"] + ((d["hand"]["last_trick"] or {}).get("plays") or [])
            )
            if cards:
                break
        assert cards, "no card played reached the page in 4 games followed"
        # Logs: north's stderr during games on the workers, for north only.
        ((north_id,),) = server.rows("SELECT id FROM users WHERE name = 'north'")
        ((south_id,),) = server.rows("SELECT id FROM users WHERE name = 'south'")
        assert server.rows("SELECT COUNT(*) FROM worker_logs")[0][0] > 0
        deadline = time.monotonic() + 60
        while True:
            found = clients["north"].get(f"/entrants/{north_id}/logs/search?q=north+thinks+in+L")
            assert found.status_code == 200, found.text[-2000:]
            tail = clients["north"].get(f"/entrants/{north_id}/logs")
            if "<mark>north thinks in L</mark>" in found.text and "north thinks in L" in tail.text:
                break
            assert time.monotonic() < deadline, "north's stderr on the workers never showed"
            time.sleep(0.5)
        assert "on a Dask worker" in tail.text
        for other in (clients["south"], Client(server.url)):  # another entrant, a spectator: not north's
            for path in (f"/entrants/{north_id}/logs/search?q=north", f"/entrants/{north_id}/logs"):
                refused = other.get(path)
                assert refused.status_code in (401, 403, 404) and "north thinks in L" not in refused.text
        own = clients["south"].get(f"/entrants/{south_id}/logs/search?q=north+thinks+in+L")
        assert own.status_code == 200 and "<mark>" not in own.text and "no line holds it" in own.text
        assert "north thinks" not in clients["south"].get(f"/entrants/{south_id}/logs").text
    finally:
        server.stop()
