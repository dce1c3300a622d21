"""A server asked to stop (SIGTERM, as systemd or Ctrl-C asks) stops at once though clients wait on it.

uvicorn stops only once every request in flight has ended. Two kinds of request wait on what has not happened
yet: a person's long poll for the next state of their game (up to 20 s), and a live table's event stream
(as long as the game, and a game waiting for a person lasts minutes). Each is attacked as a client would
hold it, with a real server process: the long poll is answered with the state as it stands and says the
server is stopping, and the stream ends cleanly, without an ``end`` event (the game did not end); the
server then exits by itself (by the signal, as uvicorn ends), instead of holding the stop until it is killed.
"""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import poll
from tests.server.conftest import Client, ServerProcess, competition_toml
from tests.server.live.test_live import SLOW_BOT, next_table

SLOWER_BOT = SLOW_BOT.replace(b"0.02 if", b"0.3 if")
"""0.3 s for each decision of a ladder game: a game stays in flight for tens of seconds, past the stop."""

SQLITE_ONLY = True  # the web server's stop: the same on both databases (tests/server/conftest.py)


def test_a_long_poll_and_a_live_stream_in_flight_do_not_hold_the_stop(tmp_path: Path) -> None:
    server = ServerProcess(
        tmp_path,
        competition_toml(
            "stopping",
            game={"variant": "classic", "target": 5},
            ladder={"person_deadline_s": 600.0, "tables": 3},
        ),
    )
    server.start()
    try:
        people = {name: Client(server.url) for name in ("ana", "ben", "alice", "spectator")}
        for name in ("ana", "ben", "alice"):
            people[name].sign_up(name)
        for name in ("ana", "ben"):  # slow bots on the ladder: its games stay in flight a few seconds
            client = people[name]
            assert "VERDICT: PASS" in client.verdict(client.upload("slow.py", SLOWER_BOT).headers["location"])
        alice = people["alice"]
        alice.get("/play")
        asked = alice.post("/play", {})
        assert asked.status_code == 303, asked.text
        plan_id = int(asked.headers["location"].rsplit("/", 1)[1])
        # alice's turn: nothing changes until she moves (600 s for each decision), so her poll waits
        state = poll(
            lambda: s if (s := alice.http.get(f"/play/{plan_id}/state").json())["decision"] else None
        )
        game = next_table(people["spectator"])

        answers: dict[str, Any] = {}
        streaming = threading.Event()

        def long_poll() -> None:
            since = state["version"]
            try:
                answers["poll"] = alice.http.get(f"/play/{plan_id}/state?since={since}", timeout=120)
            except httpx.HTTPError as exc:
                answers["poll"] = exc

        def watch() -> None:
            events: list[str] = []
            try:
                with httpx.stream("GET", f"{server.url}/live/{game}/events", timeout=120) as reply:
                    assert reply.status_code == 200
                    for line in reply.iter_lines():
                        streaming.set()
                        if line.startswith("event: "):
                            events.append(line[7:])
                answers["stream"] = events
            except httpx.HTTPError as exc:
                answers["stream"] = exc

        threads = [threading.Thread(target=long_poll), threading.Thread(target=watch)]
        for thread in threads:
            thread.start()
        assert streaming.wait(60), "the live stream sent nothing"
        assert server.proc is not None
        server.proc.send_signal(signal.SIGTERM)
        code = server.proc.wait(120)
        for thread in threads:
            thread.join(120)

        polled = answers["poll"]
        assert isinstance(polled, httpx.Response), f"the long poll was cut: {polled!r}"
        assert polled.status_code == 200 and json.loads(polled.text)["stopping"] is True, polled.text
        streamed = answers["stream"]
        assert isinstance(streamed, list), f"the stream was cut, not ended: {streamed!r}"
        assert "end" not in streamed, "the game did not end: the stream must not say it did"
        # uvicorn ends by the signal it was sent, once stopped (as a service manager expects), never killed
        assert code in (0, -signal.SIGTERM), server.log.read_text()[-3000:]
        assert "timeout graceful shutdown exceeded" not in server.log.read_text()
    finally:
        server.kill()
