"""Live tables: a spectator follows a game in flight over server-sent events, and sees no hidden card.

Each test attacks one promise of ``arena.server.live.service``: what a spectator's (or an entrant's) stream
holds is checked card by card against the stored hands (nothing but the turned card and what was played,
called or exposed in public before that moment); the organiser's holds the hands; the server's cap on
watchers answers 503 with a page saying why; a client that connects and never reads does not stop the
ladder; and a spectator's browser follows a table to the end and lands on the stored game's replay.
The first tests drive the table seam in-process (no server): the bounded queue and the redaction.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from arena.engine.config import GameConfig
from arena.event.table import TableSpec, play_table
from arena.players.inprocess import InProcessPlayer
from arena.report.encode import decode_hand
from arena.server.live.service import QUEUE, LiveGame, Watcher
from sample_bots.random import RandomBot
from tests.server.conftest import Client, ServerProcess, competition_toml

SQLITE_ONLY = True  # pages and streams only: the same on both databases (tests/server/conftest.py)
WATCHERS = 4
COMPETITION = {"ladder": {"live_watchers": WATCHERS}}
# A random bot that takes a little while per decision in the ladder's games (their ids start with L; not
# in its check, which it then passes at once), so that a game stays in flight long enough to be followed
# (a few seconds) without the test depending on how long exactly.
SLOW_BOT = b"""
import asyncio, random
from arena.bot import Bot, GameInfo, run

class Slow(Bot):
    name = "slow"
    def on_game_start(self, game: GameInfo) -> None:
        self.rng = random.Random(f"{game.game_id}/{game.seat}")
        self.wait = 0.04 if game.game_id.startswith("L") else 0
    async def act(self, view):
        await asyncio.sleep(self.wait)
        return self.rng.choice(view.legal_actions)

if __name__ == "__main__":
    run(Slow)
"""
CARD = re.compile(r"^(?:[2-9TJQKA][CDHS]|JKR)$")
ARG = re.compile(r"\(([^)]*)\)")


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def cards_in(snapshot: dict[str, Any]) -> set[str]:
    """Every card named anywhere in a snapshot: as a value, or inside an action's text (``PLAY(AS)``)."""
    found = set()
    for text in strings(snapshot):
        if CARD.match(text):
            found.add(text)
        found |= {a for a in ARG.findall(text) if CARD.match(a)}
    return found


def public_after(hand: dict[str, Any], k: int) -> set[str]:
    """What a spectator may have seen of a stored hand after its first ``k`` actions."""
    seen = {hand["up_card"]}
    for a in hand["actions"][:k]:
        text = a["action"]
        if text.startswith(("PLAY(", "CALL(")):
            seen.add(text[5:-1])
        elif text == "EXPOSE" and hand["exposed_card"]:
            seen.add(hand["exposed_card"])
    return seen


def assert_nothing_hidden(snapshots: list[dict[str, Any]], hands: list[dict[str, Any]]) -> None:
    assert snapshots
    for s in snapshots:
        assert "hands" not in s
        h, k = s["hand"]["index"], len(s["hand"]["actions"])
        allowed = set().union(*(public_after(hands[j], 99) for j in range(h)), public_after(hands[h], k))
        leaked = cards_in(s) - allowed
        assert not leaked, f"hand {h} after {k} actions: {sorted(leaked)} were sent before they were public"


# --- the seam, in-process ---------------------------------------------------------------------------


def play_watched(watchers: list[Watcher], drain: Watcher | None = None) -> tuple[LiveGame, Any, list[str]]:
    """A whole five-handed game of random bots with a LiveGame watching; ``drain`` is read as it goes."""
    config = GameConfig.from_dict({"variant": "five-handed", "target": 5})
    seats = tuple(f"s{i}" for i in range(5))
    game = LiveGame("t1", seats)
    game.watchers.update(watchers)
    read: list[str] = []

    def seen(events: Any, hands: Any) -> None:
        LiveGame.seen(game, events, hands)
        if drain is not None:
            while not drain.queue.empty():
                read.append(drain.queue.get_nowait())

    game.seen = seen  # type: ignore[method-assign]
    players = [InProcessPlayer(RandomBot, n) for n in seats]
    result = asyncio.run(play_table(TableSpec("t1", config, 7, seats), players, game))
    game.finish("g1")
    if drain is not None:
        while not drain.queue.empty():
            read.append(drain.queue.get_nowait())
    return game, result, read


def frames_data(frames: list[str]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for frame in frames:
        fields = dict(line.split(": ", 1) for line in frame.strip().splitlines())
        out.append((fields["event"], json.loads(fields["data"])))
    return out


def test_a_spectator_is_told_every_public_move_and_no_hidden_card() -> None:
    spectator = Watcher(hands=False)
    _game, result, read = play_watched([spectator], drain=spectator)
    events = frames_data(read)
    assert [k for k, _ in events].count("resync") == 0  # read as it went: nothing skipped
    assert events[-1][0] == "end" and events[-1][1]["ended"]["stored"] == "g1"
    moves = [d for k, d in events if k == "move"]
    assert len(moves) == 1 + result.decisions  # the deal, then one per action (random bots: no forfeit)
    assert_nothing_hidden([d for k, d in events if k != "end"], list(result.hands))
    assert moves[-1]["scores"] == list(result.scores)
    assert [d["points"] for d in moves[-1]["hands_done"]] == [h["points"] for h in result.hands]


def test_a_watcher_that_never_reads_holds_a_bounded_queue_and_ends_on_the_end_frame() -> None:
    stuck, organiser = Watcher(hands=False), Watcher(hands=True)
    _game, result, _ = play_watched([stuck, organiser])
    assert result.decisions > QUEUE * 3
    assert stuck.queue.qsize() <= QUEUE and stuck.resyncs > 0
    frames = frames_data([stuck.queue.get_nowait() for _ in range(stuck.queue.qsize())])
    assert frames[-1][0] == "end"  # the last word always arrives, however far behind
    assert all(k in ("move", "resync", "end") for k, _ in frames)
    last = frames_data([organiser.queue.get_nowait() for _ in range(organiser.queue.qsize())])
    assert "hands" in last[-1][1]


def test_a_watcher_that_raises_changes_nothing_of_the_game() -> None:
    """The seam is one way: the same seed plays the same game watched (by a broken watcher) or not."""

    class Broken:
        calls = 0

        def seen(self, events: Any, hands: Any) -> None:
            Broken.calls += 1
            raise RuntimeError("a watcher's bug")

    config = GameConfig.from_dict({"variant": "five-handed", "target": 5})
    seats = tuple(f"s{i}" for i in range(5))

    def play(watch: Any) -> Any:
        players = [InProcessPlayer(RandomBot, n) for n in seats]
        return asyncio.run(play_table(TableSpec("t2", config, 11, seats), players, watch))

    plain, watched = play(None), play(Broken())
    assert Broken.calls == 1 + watched.decisions
    assert watched.hands == plain.hands and watched.scores == plain.scores and not watched.faults


def test_who_sees_the_hands_and_the_cap_in_process() -> None:
    from arena.server.errors import Refused
    from arena.server.live.service import LiveTables

    seats = tuple(f"s{i}" for i in range(5))
    for open_hands in (False, True):
        tables = LiveTables(max_watchers=2, open_hands=open_hands)
        tables.open("L1", seats)
        _, spectator = tables.join("L1", organiser=False)
        _, organiser = tables.join("L1", organiser=True)
        with pytest.raises(Refused) as refused:
            tables.join("L1", organiser=True)
        assert refused.value.status == 503 and tables.refused == 1
        ((kind, first),) = frames_data([spectator.queue.get_nowait()])
        assert kind == "snapshot" and ("hands" in first) is open_hands
        assert "hands" in frames_data([organiser.queue.get_nowait()])[0][1]
        tables.close("L1", "g1")
        assert tables.watching == 2  # until their streams have sent the end and left
        assert frames_data([spectator.queue.get_nowait()])[0][0] == "end"
        game = tables.ended["L1"]
        tables.leave(game, spectator)
        tables.leave(game, organiser)
        assert tables.watching == 0
        _, late = tables.join("L1", organiser=False)  # ended just now: its last snapshot, then its end
        assert [k for k, _ in frames_data([late.queue.get_nowait() for _ in range(2)])] == ["snapshot", "end"]


def test_a_stream_whose_connection_never_takes_a_frame_ends_and_frees_its_place() -> None:
    from arena.server.live.service import LiveTables
    from arena.server.live.views import LiveStream

    tables = LiveTables(max_watchers=1, open_hands=False)
    tables.open("L1", tuple(f"s{i}" for i in range(5)))
    game, watcher = tables.join("L1", organiser=False)
    sent: list[dict[str, Any]] = []

    async def stuck(message: Any) -> None:  # the client reads the headers, then nothing
        sent.append(message)
        if message["type"] == "http.response.body":
            await asyncio.Event().wait()

    stream = LiveStream(tables.stream(game, watcher), stall_s=0.05)
    # the old StreamingResponse waits on its first frame for ever: the outer timeout fails the test
    asyncio.run(asyncio.wait_for(stream.stream_response(stuck), 30))
    assert stream.stalled and tables.watching == 0 and not game.watchers
    assert not any(m.get("more_body") is False for m in sent)  # nothing more to the stuck connection
    tables.join("L1", organiser=False)  # the freed place is taken again


def test_a_client_that_never_reads_is_cut_off_by_a_real_uvicorn() -> None:
    """The same stream behind uvicorn (the server's HTTP stack, its C parser) on a loopback socket, to a
    client with a tiny receive buffer that never reads: the writes stall once the kernel's buffers are full
    (about 1.6 MB on loopback, so big frames here; a ladder's frames are a few hundred bytes and a game's
    are some 40 KB, so the server's own games cannot fill them in a test), the stream gives up after
    ``stall_s``, its generator's ``finally`` runs (that is where a watcher leaves), and uvicorn closes the
    connection: the client reads what was buffered, then the end of the stream."""
    import threading

    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Route

    from arena.server.live.views import LiveStream

    left = threading.Event()

    async def frames() -> Any:
        try:
            while True:
                yield "data: " + "x" * 65536 + "\n\n"
        finally:
            left.set()

    app = Starlette(routes=[Route("/s", lambda request: LiveStream(frames(), stall_s=0.3))])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", http="httptools", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    client = socket.socket()
    try:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        client.connect(listener.getsockname())
        client.sendall(b"GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
        assert left.wait(60), "the stream never gave up on a client that never reads"
        client.settimeout(60)
        received = 0
        while chunk := client.recv(1 << 20):  # b"": the server closed its side
            received += len(chunk)
        assert received > 1 << 20  # the buffers were full: it was a stall, not an error at the start
    finally:
        client.close()
        server.should_exit = True
        thread.join(30)
        listener.close()


# --- the server ---------------------------------------------------------------------------------------

GAME_ID = re.compile(r'<tr data-game="([^"]+)">')


@pytest.fixture(scope="module")
def field(server: ServerProcess) -> dict[str, Client]:
    """Two entrants with slow bots on the ladder, a spectator, and the organiser."""
    people: dict[str, Client] = {}
    for name in ("ana", "ben"):
        client = Client(server.url)
        client.sign_up(name)
        client.verdict(client.upload("slow.py", SLOW_BOT).headers["location"])
        people[name] = client
    people["spectator"] = Client(server.url)
    organiser = Client(server.url)
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    people["organiser"] = organiser
    return people


def next_table(client: Client, timeout_s: float = 120, avoid: set[str] | None = None) -> str:
    """A game in flight, as the list of live tables shows it (polled)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        page = client.get("/live")
        assert page.status_code == 200
        found = [g for g in GAME_ID.findall(page.text) if g not in (avoid or set())]
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"no live table in {timeout_s} s")


def follow(client: Client, game: str, timeout_s: float = 120) -> list[tuple[str, dict[str, Any]]]:
    """Every event of one game's stream, read as it comes, until its ``end``."""
    events: list[tuple[str, dict[str, Any]]] = []
    with client.http.stream("GET", f"/live/{game}/events", timeout=timeout_s) as reply:
        assert reply.status_code == 200, reply.read()
        assert reply.headers["content-type"].startswith("text/event-stream")
        kind = ""
        for line in reply.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
                if kind == "end":
                    break
    return events


def stored_hands(server: ServerProcess, game_id: str) -> list[dict[str, Any]]:
    rows = server.rows(f"select record from hands where game_id = '{game_id}' order by hand_index")
    return [json.loads(r[0]) for r in rows]


def follow_a_whole_game(client: Client) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """Follow games until one was followed from its first snapshot to its end (one may end at once)."""
    seen: set[str] = set()
    for _ in range(10):
        game = next_table(client, avoid=seen)
        seen.add(game)
        try:
            events = follow(client, game)
        except AssertionError:
            continue  # it ended between the list and the stream (404): the next one
        if events and events[-1][0] == "end" and events[-1][1]["ended"]["stored"]:
            return game, events
    raise AssertionError("no game could be followed to its end")


def test_a_spectator_and_an_entrant_receive_no_hidden_card_and_end_on_the_stored_game(
    server: ServerProcess, field: dict[str, Client]
) -> None:
    for who in ("spectator", "ana"):  # ana's own bot plays: her page still is a web user, not her bot
        _game, events = follow_a_whole_game(field[who])
        stored = events[-1][1]["ended"]["stored"]
        hands = stored_hands(server, stored)
        assert_nothing_hidden([d for k, d in events if k != "end"], hands)
        seats = server.rows(f"select seat, score from game_seats where game_id = '{stored}' order by seat")
        last = [d for k, d in events if k != "end"][-1]
        assert last["scores"] == [score for _, score in seats]
        assert [d["points"] for d in last["hands_done"]] == [h["points"] for h in hands]


def test_the_organiser_sees_the_hands(server: ServerProcess, field: dict[str, Client]) -> None:
    _game, events = follow_a_whole_game(field["organiser"])
    hands = stored_hands(server, events[-1][1]["ended"]["stored"])
    during = [d for k, d in events if k != "end"]
    assert all("hands" in d for d in during)
    hidden = set()
    for d in during:
        h = hands[d["hand"]["index"]]
        held = {c for cards in d["hands"] for c in cards}
        assert held <= set(h["deck"])
        hidden |= held - public_after(h, len(d["hand"]["actions"]))
    assert hidden  # cards nobody else was shown yet


def watching(client: Client, game: str) -> int | None:
    """The watchers of ``game`` as the list of live tables shows them (None: not in flight)."""
    found = re.search(rf'<tr data-game="{game}">.*?<td class="num">(\d+)</td></tr>', client.get("/live").text)
    return None if found is None else int(found.group(1))


def test_one_watcher_more_than_the_cap_gets_a_503_page_and_a_closed_one_leaves(
    server: ServerProcess, field: dict[str, Client]
) -> None:
    spectator = field["spectator"]
    for _ in range(20):  # a game may end before its watchers are counted; beside two CPU burners 10 did
        game = next_table(spectator)
        streams = [httpx.Client(base_url=server.url, timeout=30) for _ in range(WATCHERS)]
        try:
            opened = [s.send(s.build_request("GET", f"/live/{game}/events"), stream=True) for s in streams]
            if any(r.status_code != 200 for r in opened):
                continue  # the game ended meanwhile
            more = spectator.http.get(f"/live/{game}/events")
            page = spectator.http.get(f"/live/{game}")
            if more.status_code != 503 or page.status_code != 503:
                continue  # the game ended meanwhile: its watchers left (the next game will do)
            assert "watch live tables at once" in more.text
            assert "as many as this server lets watch" in page.text
            assert more.headers.get("retry-after") == "30"
        finally:
            for s in streams:
                s.close()
        # the closed streams are no longer counted while the game still plays (polled: the server sees
        # each disconnect on its own time)
        while (now := watching(spectator, game)) not in (0, None):
            time.sleep(0.05)
        if now == 0:
            break  # else the game ended first, which proves nothing: the next one
    else:
        raise AssertionError("no game stayed in flight long enough to fill the cap and leave it")


def test_a_watcher_that_never_reads_does_not_block_the_ladder(
    server: ServerProcess, field: dict[str, Client]
) -> None:
    spectator = field["spectator"]
    games = int(server.rows("select count(*) from games")[0][0])
    stuck: list[socket.socket] = []
    try:
        for _ in range(2):  # two games each watched by a client that never reads a byte
            game = next_table(spectator, avoid=set())
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.connect(("127.0.0.1", server.port))
            sock.sendall(f"GET /live/{game}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            stuck.append(sock)
        deadline = time.monotonic() + 120
        while int(server.rows("select count(*) from games")[0][0]) < games + 4:
            assert time.monotonic() < deadline, "the ladder stopped storing games"
            time.sleep(0.2)
        assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200
    finally:
        for sock in stuck:
            sock.close()


def test_a_spectators_browser_follows_a_table_to_the_stored_replay(
    server: ServerProcess, field: dict[str, Client]
) -> None:
    report = pytest.importorskip("tests.report.test_browser", reason="playwright is not installed")
    from tests.conftest import missing

    if missing("needs_chromium"):
        pytest.skip("chromium is not installed")
    with report.playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=report.CHROMIUM, args=report.ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            # a game that ends between the list and the page still ends on its replay (the server keeps
            # the last games it ended, for a late watcher)
            for _ in range(10):
                page.goto(f"{server.url}/live/{next_table(field['spectator'])}")
                page.wait_for_function("window.arenaLive && window.arenaLive.stored", timeout=120_000)
                received = page.evaluate("window.arenaLive.received")
                if sum(e["kind"] == "move" for e in received) > 5:
                    break  # followed while it played (not one that ended as the page opened)
            else:
                raise AssertionError("no game was followed while it played")
            assert page.is_visible("#replay")
            # behind the replay, the felt as the last card left it: the last trick, the final scores
            assert page.locator("#live-table .trick").count() > 0
            final = json.loads([e for e in received if e["kind"] == "move"][-1]["data"])
            assert f"scores {' / '.join(map(str, final['scores']))}" in page.text_content("#live-line")
            assert received[0]["kind"] in ("snapshot", "move")  # a move may overtake the first snapshot
            stored = page.evaluate("window.arenaLive.stored")
            snapshots = [json.loads(e["data"]) for e in received if e["kind"] != "end"]
            hands = stored_hands(server, stored)
            assert_nothing_hidden(snapshots, hands)
            data = page.evaluate("window.arenaReplay.data()")
            assert [decode_hand(h) for h in data["games"][0]["hands"]] == [
                decode_hand(_encode(h)) for h in hands
            ]
            assert page.evaluate("window.arenaReplay.state()")["game"] == stored
            actions = len(hands[-1]["actions"])
            assert page.text_content("#replay-pos").endswith(f"action {actions}/{actions}")
            assert not errors
        finally:
            browser.close()


def _encode(hand: dict[str, Any]) -> list[Any]:
    from arena.report.encode import encode_hand

    return encode_hand(hand)


def test_a_private_competitions_live_tables_are_for_its_people(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[people] public = false``: a spectator gets 401 for the list, a table and its stream (the app
    built in-process, never started: no ladder, one game put on a table by hand)."""
    from arena.server.app import create_app
    from arena.server.settings import load_competition
    from arena.server.wiring import Server

    monkeypatch.chdir(tmp_path)
    toml = competition_toml("private", people={"public": False}).replace('"bubblewrap"', '"none"')
    (tmp_path / "c.toml").write_text(toml)
    built = Server(load_competition(tmp_path / "c.toml"), "http://127.0.0.1:1")
    try:
        built.ladder.live.open("L1", ["ana v1", "house", "house", "house", "house"])
        transport = httpx.ASGITransport(app=create_app(built))

        async def ask(path: str) -> httpx.Response:
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
                return await client.get(path)

        for path in ("/live", "/live/L1", "/live/L1/events"):
            reply = asyncio.run(ask(path))
            assert reply.status_code == 401 and "log in" in reply.text, path
        assert built.ladder.live.watching == 0
    finally:
        built.db.close()
        built.lock.release()
