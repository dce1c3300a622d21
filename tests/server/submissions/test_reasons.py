"""A bot that does not start gets a reason its author can act on (issue 41, item 6): the bot's own last
lines of stderr in the reason, and no path of the server's machine on the version page, the logs page or
the API."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from arena.server.submissions.checks import public_text, public_texts
from tests.server.conftest import Client, ServerProcess

SQLITE_ONLY = True  # a check's reason, which no database shapes: tests/server/conftest.py
LINE = "my bot is broken: no strategy yet"
BROKEN = f"import sys\nprint({LINE!r}, file=sys.stderr)\nsys.exit(1)\n".encode()


def assert_no_host_path(text: str, server: ServerProcess, where: str) -> None:
    for path in {str(server.directory), str(server.directory.resolve()), "/results/"}:
        assert path not in text, f"{where} shows the server's path {path}:\n{text}"


def test_a_bot_that_does_not_start_is_told_why_without_host_paths(server: ServerProcess) -> None:
    author = Client(server.url)
    author.sign_up("broken-bot-author")
    upload = author.upload("bot.py", BROKEN)
    assert upload.status_code == 303, upload.text
    page = author.verdict(upload.headers["location"])
    assert "VERDICT: FAIL" in page and "did not start" in page
    violations = page.split('<ul id="violations">')[1].split("</ul>")[0]
    assert LINE in violations, violations  # in the reason itself, not only in the stderr below it
    assert_no_host_path(page, server, "the version page")

    version_id = int(upload.headers["location"].rstrip("/").rsplit("/", 1)[1])
    token = author.post("/me/token").text.split('<code id="token">')[1].split("<")[0]
    api = httpx.get(f"{server.url}/api/versions/{version_id}", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 200, api.text
    assert_no_host_path(api.text, server, "the API")
    report = json.loads(api.text)["check"]
    reason = next(v for v in report["violations"] if "did not start" in v)
    assert LINE in reason and not reason.rstrip().endswith("ends:"), reason

    me = author.get("/me").text
    entrant = re.search(r'href="/entrants/(\d+)', me)
    assert entrant is not None, me
    logs = author.get(f"/entrants/{entrant.group(1)}/logs")
    assert logs.status_code == 200 and LINE in logs.text, logs.text
    assert_no_host_path(logs.text, server, "the logs page")


def test_public_text_hides_the_servers_paths(tmp_path: Path) -> None:
    """Unsandboxed, a bot's traceback names its file under the server's directory; the shim's launch line
    names the command; a capped log names its old file: none of these reach the entrant."""
    data = tmp_path / "results" / "class"
    upload = data / "versions" / "2" / "v1"
    log = (
        f"[arena] starting: python3 {upload}/bot.py\n"
        f'  File "{upload}/bot.py", line 3, in <module>\n'
        f"[arena] log reached 100 bytes: older output moved to {data}/logs/2/v1-check.log.1\n"
        f"{LINE}\n"
    )
    shown = public_text(log, data, upload)
    assert str(tmp_path) not in shown and "/results/" not in shown and "starting:" not in shown, shown
    assert '"<your upload>/bot.py", line 3' in shown and "<server>/logs/2/v1-check.log.1" in shown, shown
    assert shown.endswith(f"{LINE}\n")


def test_a_path_cut_between_a_game_s_span_and_what_follows_it_is_still_hidden(tmp_path: Path) -> None:
    """A game's log span can end inside a line the bot wrote (its stderr is copied as it comes), and the
    page shows the bytes after the span apart: a path split there was found in neither piece, so its two
    halves reached the entrant (seen once in tests/server/ladder/test_pages.py)."""
    data = tmp_path / "results" / "class"
    upload = data / "versions" / "2" / "v1"
    line = f"running from {upload}/bot.py\n[arena] starting: python3 {upload}/bot.py\nlast {data}/x\n"
    for cut in range(len(line) + 1):
        span, after = public_texts((line[:cut], line[cut:]), data, upload)
        assert span + after == public_text(line, data, upload), cut
        assert str(tmp_path) not in span and str(tmp_path) not in after, (cut, span, after)
        assert "results" not in span + after and "starting" not in span + after, (cut, span, after)
        assert not span or line.startswith(span[:10]), (cut, span)  # nothing moves backwards


def test_a_path_cut_by_the_end_of_what_is_kept_is_still_hidden(tmp_path: Path) -> None:
    """The bytes kept after a game (and a stderr's tail) end at a byte count, which can fall inside a path:
    "/srv/class/resu" named the server's directory to the entrant (seen in tests/server/ladder/
    test_pages.py on a busy machine). Every end of a line that names the upload and the server's files;
    for each, the span's end (between the span and the bytes after it) at each side of every separator and
    at every seventh byte besides."""
    data = tmp_path / "server0" / "results"
    upload = data / "versions" / "2" / "v1"
    line = f"ok\nrunning from {upload}/bot.py\nlast {data}/x\n"
    root = str(tmp_path / "server0")
    near = {i + d for i, c in enumerate(line) if c in "/ \n" for d in (0, 1)}
    for end in range(len(line) + 1):
        kept = line[:end]
        for cut in sorted({c for c in near if c <= end} | set(range(0, end + 1, 7)) | {end}):
            span, after = public_texts((kept[:cut], kept[cut:]), data, upload)
            shown = span + after
            assert root not in shown, (end, cut, shown)
            assert shown == public_text(kept, data, upload), (end, cut)
        shown = public_text(kept, data, upload)
        cut_path = kept.rpartition(" ")[2]
        if cut_path.count("/") >= 2 and root.startswith(cut_path.rstrip("/")):
            assert shown.endswith("<server>"), (end, shown)
    for start in range(len(line) + 1):  # a tail kept from the end: its start inside a path
        shown = public_text(line[start:], data, upload)
        assert "/results/" not in shown and root not in shown, (start, shown)
    # what a bot writes that only looks like the start of a path stays as written
    assert public_text("done in /", data, upload) == "done in /"
    assert public_text("see /t", data, upload) == "see /t"
    assert public_text(f"x {data}", data, upload) == "x <server>"
