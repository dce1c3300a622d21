"""``arena play`` as a real process on 127.0.0.1, spoken to over HTTP as a page (or a hostile client) would:
the key is required, an illegal or early move is refused with its reason and changes nothing, a whole game
played through the API ends stored, ``arena replay`` shows it, and Finish stops the process (exit 0).
Bad input is one line and exit 2."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.engine.config import GameConfig
from arena.play.session import replay_game
from arena.results.queries import Queries

URL = re.compile(r"http://127\.0\.0\.1:\d+/\?key=\S+")


class PlayProcess:
    """``arena play --no-browser`` in a process of its own; ``url`` is the address it printed."""

    def __init__(self, cwd: Path, *args: str) -> None:
        argv = [sys.executable, "-m", "arena", "play", "--no-browser", "--pace", "0", *args]
        self.cwd = cwd
        self.proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            found = URL.search(line)
            if found:
                self.url = found.group(0)
                break
        else:
            raise AssertionError(f"no address printed: {self.lines} {self.proc.stderr.read()}")  # type: ignore[union-attr]
        self.base, self.key = self.url.split("/?key=")

    def client(self, key: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.base, headers={"X-Play-Key": key or self.key}, timeout=60)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


@pytest.fixture
def classic(tmp_path: Path) -> Iterator[PlayProcess]:
    played = PlayProcess(tmp_path, "--variant", "classic", "--bots", "random,rules,random", "--seed", "7")
    yield played
    played.stop()


def next_decision(client: httpx.Client, state: dict[str, Any]) -> dict[str, Any]:
    """The state once it is the person's turn or the game is stored (long-polled, no sleeps)."""
    while not state["decision"] and not state["stored"]:
        state = client.get("/api/state", params={"since": state["version"]}).json()
    return state


def test_the_key_is_required(classic: PlayProcess) -> None:
    with classic.client("wrong") as client:
        refused = client.get("/api/state")
        assert refused.status_code == 403 and "key" in refused.json()["error"]
        assert client.post("/api/move", json={"action": "PASS"}).status_code == 403
    page = httpx.get(classic.base + "/")
    assert page.status_code == 200 and "/static/play.js" in page.text  # the page itself holds no secret


def test_an_illegal_move_is_refused_over_http_and_a_whole_game_is_stored(classic: PlayProcess) -> None:
    with classic.client() as client:
        state = next_decision(client, client.get("/api/state").json())
        legal = state["view"]["legal_actions"]
        decision = state["decision"]
        illegal = next(a for a in ("PLAY(9C)", "ORDER_UP", "PASS", "NAME(S)") if a not in legal)
        refused = client.post("/api/move", json={"action": illegal, "decision": decision})
        assert refused.status_code == 422
        assert (
            illegal in refused.json()["error"] and "legal now: " + ", ".join(legal) in refused.json()["error"]
        )
        for body, status in (
            ({"action": "PLAY(ZZ)"}, 400),
            ({"action": 7}, 400),
            ({"action": legal[0], "decision": decision + 100}, 409),
        ):
            assert client.post("/api/move", json=body).status_code == status
        assert client.post("/api/move", content=b"{not json").status_code == 400
        after = client.get("/api/state").json()
        assert after["decision"] == decision and after["view"] == state["view"]  # nothing was played
        moves = 0
        while not state["stored"]:
            if state["decision"]:
                action = state["view"]["legal_actions"][-1]
                played = client.post("/api/move", json={"action": action, "decision": state["decision"]})
                assert played.status_code == 200, played.text
                moves += 1
                again = client.post("/api/move", json={"action": action, "decision": state["decision"]})
                assert again.status_code == 409  # that decision is over (or it is not the person's turn)
            state = next_decision(client, client.get("/api/state", params={"since": state["version"]}).json())
        assert state["final"] is not None and moves > 5
        directory = Path(state["stored"]["directory"])
        assert client.post("/api/finish").status_code == 200
    assert classic.proc.wait(30) == 0
    out = "".join(classic.lines) + classic.proc.stdout.read()  # type: ignore[union-attr]
    assert "game over: " in out and f"arena replay {directory} play" in out
    shown = subprocess.run(
        [sys.executable, "-m", "arena", "replay", str(directory), "play"],
        cwd=classic.cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0 and "Final (" in shown.stdout and "Seats: 0 human" in shown.stdout
    with Queries.open(classic.cwd / directory) as store:
        game = store.game("play")
    assert game is not None and list(game.scores) == state["final"]["scores"]
    hands = [dict(h) for h in game.hands]
    assert replay_game(GameConfig.from_dict(hands[0]["config"]), game.seed, hands) == hands


def test_ctrl_c_mid_game_stores_nothing_and_exits_130(tmp_path: Path) -> None:
    played = PlayProcess(tmp_path, "--variant", "classic")
    with played.client() as client:
        assert client.get("/api/state").json()["final"] is None  # the game is on, waiting for the person
    played.proc.send_signal(signal.SIGINT)
    assert played.proc.wait(30) == 130
    assert "the game was not finished, and is not stored" in played.proc.stderr.read()  # type: ignore[union-attr]
    assert not (tmp_path / "results/play/001").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--bots", "rules,rules"], "2 given for the 4 other seats"),
        (["--variant", "six"], "six"),
        (["--option", "target"], "expected KEY=VALUE"),
        (["--option", "nosuch=1"], "nosuch"),
        (["--seat", "9"], "seats 0..4"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "play", "--no-browser", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done
    assert done.stderr.startswith("error: ") and words in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "results").exists()


def test_an_output_that_cannot_take_games_is_refused_before_the_game(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    done = subprocess.run(
        [sys.executable, "-m", "arena", "play", "--no-browser", "--output", "file/games"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "cannot store games in 'file/games'" in done.stderr, done


def test_a_taken_port_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "arena", "play", "--no-browser", "--port", str(port)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
