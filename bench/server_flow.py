"""The competition server's behaviour, recorded: a real `arena serve` on 127.0.0.1 (SQLite in a temporary
directory) goes through a whole competition, and every page and API answer is written to one JSON file;
``--compare`` normalises two recordings and shows every answer that differs.

    python bench/server_flow.py OUT.json [--root CHECKOUT]      # about 5 minutes
    python bench/server_flow.py --compare A.json B.json         # exit 1 when an answer differs

``--root`` runs another checkout's server (its ``arena`` first on PYTHONPATH; this script speaks HTTP
only, so it runs unchanged against any version of the server): e.g. ``git worktree add /tmp/orig
c40f599`` and ``--root /tmp/orig``.

The flow: an organiser (its link from the server's first lines), three students who sign up, uploads of
sample bots (a page's form and the API; one version that fails its check), ladder games, an SPRT match, a
challenge, the organiser's actions, a final of the frozen field; then the ladder is paused and every page
and API answer is read by a spectator, by each student and by the organiser, with the refusals each must
meet (570 answers).

What is compared, and why not everything: the games are played by random bots at tables seated from
``secrets`` on a machine's timing, so who wins, the scores, the ratings and how many games were played by
the pause differ from run to run of one checkout. So each answer is kept as its status, the headers that
are the server's choice (type, caching, the security headers, redirects' targets, cookies' attributes),
and its body normalised: numbers, ids, tokens, times, ports and entrants' names replaced by placeholders;
in a page, each table row, list item and chart kept as its tags alone (the games' data) and a run of equal
ones kept once, everything else (headings, forms, notes, refusals' sentences) kept as text; in JSON, its
shape: each object's keys with the shapes of their values, a list as the shape of its items. Two
recordings of one checkout compare equal (record it twice to see the noise floor).

Issue 39's restructure of the server (c40f599 -> 96ca77d), on a loaded 2-core machine: two recordings of
c40f599 compared equal (570 answers, 0 differ); c40f599 against 96ca77d, 2 of 570 differ, both meant: the
organiser asking a match or a challenge is refused with the upload's sentence, "the organiser does not
enter bots: invite yourself as an entrant" (one rule, ``access.require_entrant``), where the match pages
said "the organiser does not enter bots". (An earlier pair also differed in a ladder log's
"[arena] cannot join the bot's cgroup" line after a version was stopped and started again: seen in both
recordings of c40f599 and in neither later one, a race of the launcher's, not of the server's code.)

Issues 39 and 40 on the server (one column list, one vocabulary: the ladder's places and P of TrueSkill,
a final as ``arena leaderboard`` prints it; f57e2b2 -> this branch), recorded on the loaded 2-core
machine: 87 of 570 differ (94 before the device cookie was normalised). 75 are meant: the leaderboard
(``/``, ``/leaderboard/rows``, ``GET /api/leaderboard`` and ``/api/openapi.json``: the wording's
columns, labels and meanings, place/tier/P of the TrueSkill skill, the line on the order and the
sentence), ``/me``, ``GET /api/status`` and the entrants' pages (their standing line), the entrants'
analytics pages (TrueSkill as mu ± σ in the by-day table), ``/final`` and ``/final/1`` (the final as
``arena leaderboard`` prints it), the final's report (the rating chart's mu − 3σ computed once in
Python, not again in Vega) and ``live.js`` (the sentence kept fresh). The other 12 are noise of the
runs: the random games' outcomes (``hands.jsonl``, carol's crashed seats in the five readings of her
analytics' JSON) and the launcher's cgroup race above in three logs pages and three game logs (the 7
more, before, were the device cookie's random nonce in ``signs up``, ``logs in`` and ``sets
password``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parents[1]
PASSWORD = "correct horse battery"
STUDENTS = ("alice", "bob", "carol")
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
LINK = re.compile(r"(http://\S+/link/\S+)")
KEPT_HEADERS = (
    "content-type",
    "cache-control",
    "location",
    "retry-after",
    "content-disposition",
    "x-content-type-options",
    "x-frame-options",
    "referrer-policy",
    "x-accel-buffering",
    "allow",
)

COMPETITION = """\
name = "flow"
sandbox = "none"
[game]
variant = "five-handed"
target = 5
[faults]
decision_ms = 3000
[people]
signup = "open"
[submissions]
max_upload_kb = 64
per_hour = 50
[ladder]
tables = 2
house = "sample_bots.random:RandomBot"
match_on_activate = false
match_deals = 20
[final]
rounds = 1
max_games = 6
seed = 7
confidence = 0.75
"""

FAILING_BOT = "import sys\nsys.exit(3)\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    """A client without scripts: keeps its cookie and the last CSRF token it was shown."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=60, follow_redirects=False)
        self.csrf = ""

    def get(self, path: str, **kw: Any) -> httpx.Response:
        response = self.http.get(path, **kw)
        if (found := CSRF.search(response.text)) is not None:
            self.csrf = found.group(1)
        return response

    def post(
        self, path: str, data: dict[str, Any] | None = None, csrf: bool = True, **kw: Any
    ) -> httpx.Response:
        fields = dict(data or {})
        if csrf:
            if not self.csrf:
                self.get("/login")
            fields["csrf"] = self.csrf
        return self.http.post(path, data=fields, **kw)


class Normaliser:
    """Placeholders for what differs between two runs of one checkout (see the module's docstring)."""

    def __init__(self, port: int) -> None:
        self.port = str(port)

    def text(self, value: str) -> str:
        value = value.replace(f"127.0.0.1:{self.port}", "HOST").replace(self.port, "PORT")
        value = re.sub(r'name="csrf" value="[^"]*"', 'name="csrf" value="CSRF"', value)
        value = re.sub(r"/link/[A-Za-z0-9_\-]+", "/link/LINK", value)
        value = re.sub(r"(?<![\w\-+/=])[\w\-+/=]{32,}(?![\w\-+/=])", "BLOB", value)  # tokens, keys, replays
        value = re.sub(r"\b(?:" + "|".join(STUDENTS) + r")\b", "NAME", value)
        value = re.sub(r"\bhouse-\d+\b", "NAME", value)
        value = re.sub(r"\b[gs]\d{6}\b|\bL[0-9a-f]+\b", "GAME", value)
        value = re.sub(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?", "0", value)
        value = re.sub(r"\b(?:won|lost|forfeited|above|below|tied|open|settled)\b", "WORD", value)
        value = re.sub(r"[+\-\u2212](?=0)", "", value)  # a difference's sign
        value = re.sub(r"\b(?:not better|better|undecided)\b", "DECISION", value)  # an SPRT's, by its games
        value = re.sub(r"verdict (?:pass|fail)", "verdict RESULT", value)
        value = re.sub(r"\b(H0 accepted|H0 rejected|accepted|rejected): [^<]*", "VERDICT", value)
        value = re.sub(r"\b(?:PASS|FAIL)\b", "VERDICT", value)
        return value

    def html(self, value: str) -> str:
        """The page with its text normalised; each table row, list item and chart (the data: games,
        entrants, figures) kept as its tags alone, and a table's or list's rows as the set of their
        shapes (how many, and in which order, is the games' doing)."""
        value = self.text(value)
        value = re.sub(r"(<pre\b[^>]*>)(.*?)(</pre>)", self._log, value, flags=re.S)
        value = re.sub(r"<(svg|tr|li)\b[^>]*>.*?</\1>", lambda m: re.sub(r">[^<]+<", "><", m.group(0)), value,
                       flags=re.S)  # fmt: skip
        value = re.sub(r"(<(?:tr|li|svg|td|span|a|polyline|circle)\b)[^>]*?(/?>)", r"\1\2", value)
        inline = re.compile(r"</?(?:small|span|strong|em|b|code|abbr)>")  # a row's notes: its data's
        value = re.sub(r"<(tr|li)>.*?</\1>", lambda m: inline.sub("", m.group(0)), value, flags=re.S)
        value = re.sub(r"\s+", " ", value).replace("> <", "><")

        def rows(m: re.Match[str]) -> str:
            items = sorted(set(re.findall(r"<(?:tr|li)>.*?</(?:tr|li)>", m.group(2), flags=re.S)))
            return m.group(1) + "".join(items) + m.group(3) if items else m.group(0)

        value = re.sub(r"(<(?:table|ul|ol)\b[^>]*>)(.*?)(</(?:table|ul|ol)>)", rows, value, flags=re.S)
        value = re.sub(r"(<svg>.*?</svg>)(?:\1)+", r"\1", value, flags=re.S)
        return value.replace("><", ">\n<")

    @staticmethod
    def _log(m: re.Match[str]) -> str:
        """A log's excerpt (a bot's stderr, a check's): the set of its lines, the first left out (a tail
        starts within a line)."""
        lines = m.group(2).splitlines()[1:] if len(m.group(2)) > 1000 else m.group(2).splitlines()
        return m.group(1) + "\n".join(sorted({line.strip() for line in lines if line.strip()})) + m.group(3)

    def shape(self, value: Any) -> Any:
        if isinstance(value, dict):
            if any(self.text(str(k)) != str(k) for k in value):
                # keyed by ids or names (head-to-head by opponent): the shape of any one value
                return {"KEY": self.merge([self.shape(v) for v in value.values()])}
            return {k: self.shape(v) for k, v in sorted(value.items())}
        if isinstance(value, list):
            return [self.merge([self.shape(v) for v in value])] if value else []
        if value is None or isinstance(value, bool | int | float):
            return "scalar"  # a figure, a flag, or none yet (one game, no next entrant): the games' doing
        if isinstance(value, str):
            if re.fullmatch(r"[SHDC]|(?:[2-9AKQJT]|10)[SHDC]|[LB]J|JK", value):
                return "CARD"  # a hand record's cards and suits
            return self.text(value) if len(value) < 200 else "TEXT"
        return repr(type(value))

    def merge(self, shapes: list[Any]) -> Any:
        """The shape of a list's items: all alike, or the distinct ones sorted."""
        distinct: list[Any] = []
        for s in shapes:
            if s not in distinct:
                distinct.append(s)
        if len(distinct) == 1:
            return distinct[0]
        if all(isinstance(s, dict) for s in distinct):
            merged: dict[str, Any] = {}
            for s in distinct:
                for k, v in s.items():
                    merged.setdefault(k, []).append(v)
            return {k: self.merge(v) for k, v in merged.items()}
        if all(isinstance(s, str) for s in distinct):
            return "scalar" if distinct == ["scalar"] else "str"  # names, labels, results: the games' data
        return sorted(distinct, key=json.dumps)

    def response(self, r: dict[str, Any]) -> dict[str, Any]:
        """One recorded answer, normalised: its status, its kept headers, and its body's shape."""
        given = {k.lower(): v for k, v in r["headers"].items()}
        headers = {k: self.text(given[k]) for k in KEPT_HEADERS if k in given}
        if "set-cookie" in given:
            cookie = re.sub(r"arena=[^;]*", "arena=COOKIE", given["set-cookie"])
            # a device cookie (accounts.service): the account's name with a random nonce and its signature
            headers["set-cookie"] = re.sub(r"(arena_device_[0-9a-f]+)=[^;]*", r"\1=DEVICE", cookie)
        kind = given.get("content-type", "")
        text = r["body"]
        body: Any
        if "json" in kind and "jsonl" not in kind:
            body = self.shape(json.loads(text))
        elif "html" in kind:
            body = self.html(text)
        elif "jsonl" in kind:
            lines = text.splitlines()
            body = {"first line": self.shape(json.loads(lines[0])) if lines else None, "lines": bool(lines)}
        elif "csv" in kind:
            lines = text.splitlines()
            body = {"header": lines[0] if lines else "", "lines": bool(lines[1:])}
        else:
            body = self.text(text[:2000])
        return {"status": r["status"], "headers": headers, "body": body}


def wait(what: str, check: Any, timeout_s: float = 300, every_s: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(every_s)
    raise SystemExit(f"server_flow: waited {timeout_s:.0f} s for {what}")


def run_flow(root: Path, out: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="server-flow-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    (work / "competition.toml").write_text(COMPETITION)
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(root))
    log = work / "serve.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "competition.toml", "--port", str(port)],
            cwd=work, stdout=sink, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
    try:
        wait("the server to serve", lambda: "serving " in log.read_text() or proc.poll() is not None, 120)
        if proc.poll() is not None:
            raise SystemExit(f"server_flow: arena serve exited:\n{log.read_text()}")
        wait("/healthz", lambda: _healthy(url), 60)
        record = flow(url, log, root)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    out.write_text(json.dumps({"port": port, "answers": record}, indent=1, sort_keys=True) + "\n")
    print(f"server_flow: {len(record)} answers recorded in {out} (server's directory: {work})")


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def flow(url: str, log: Path, root: Path) -> dict[str, Any]:
    record: dict[str, Any] = {}

    def keep(name: str, response: httpx.Response) -> httpx.Response:
        assert name not in record, name
        record[name] = {"status": response.status_code, "headers": dict(response.headers),
                        "body": response.text}  # fmt: skip
        return response

    spectator = Browser(url)
    organiser = Browser(url)
    link = next(m.group(1) for line in log.read_text().splitlines() if (m := LINK.search(line)))
    path = httpx.URL(link).path
    keep("organiser: link page", organiser.get(path))
    keep("organiser: mismatched passwords", organiser.post(path, {"password": PASSWORD, "again": "other"}))
    keep("organiser: sets password", organiser.post(path, {"password": PASSWORD, "again": PASSWORD}))
    keep("organiser: first admin page", organiser.get("/admin"))

    people: dict[str, Browser] = {}
    for name in STUDENTS:
        b = people[name] = Browser(url)
        keep(f"{name}: signup page", b.get("/signup"))
        keep(f"{name}: signs up", b.post("/signup", {"name": name, "password": PASSWORD}))
        keep(f"{name}: first home page", b.get("/me"))  # a new session: its own CSRF token
    keep("bob: signs up twice", Browser(url).post("/signup", {"name": "bob", "password": PASSWORD}))
    keep("spectator: bad login", spectator.post("/login", {"name": "alice", "password": "wrong"}))
    keep("spectator: login page", spectator.get("/login"))

    tokens: dict[str, str] = {}
    for name, b in people.items():
        page = keep(f"{name}: new token", b.post("/me/token")).text
        tokens[name] = re.search(r'<code id="token">([^<]+)</code>', page).group(1)  # type: ignore[union-attr]
    api = {name: {"Authorization": f"Bearer {t}"} for name, t in tokens.items()}

    bot = (root / "sample_bots" / "random.py").read_bytes()
    keep("alice: uploads v1 (page)", people["alice"].post(
        "/submit", {"runtime": "python", "note": "first"}, files={"file": ("random.py", bot)}))  # fmt: skip
    keep("bob: uploads v1 (api)", httpx.post(
        f"{url}/api/submit", headers=api["bob"], data={"runtime": "python"}, files={"file": ("bot.py", bot)},
        timeout=60))  # fmt: skip
    keep("carol: uploads v1 (api)", httpx.post(
        f"{url}/api/submit", headers=api["carol"], data={"runtime": "python"},
        files={"file": ("bot.py", bot)}, timeout=60))  # fmt: skip
    wait("carol's v1 check", lambda: _checked(url, api["carol"]))
    keep("carol: uploads a failing v2 (api)", httpx.post(
        f"{url}/api/submit", headers=api["carol"], data={"runtime": "python"},
        files={"file": ("bad.py", FAILING_BOT.encode())}, timeout=60))  # fmt: skip
    keep("organiser: may not upload", organiser.post(
        "/submit", {"runtime": "python"}, files={"file": ("random.py", bot)}))  # fmt: skip
    keep("spectator: may not upload", spectator.post(
        "/submit", {"runtime": "python"}, files={"file": ("random.py", bot)}))  # fmt: skip
    keep("alice: bad runtime", people["alice"].post(
        "/submit", {"runtime": "cobol"}, files={"file": ("random.py", bot)}))  # fmt: skip
    keep("alice: no file", people["alice"].post("/submit", {"runtime": "python"}, files={"x": ("a", b"")}))

    def versions(name: str) -> list[dict[str, Any]]:
        return list(httpx.get(f"{url}/api/status", headers=api[name], timeout=60).json()["versions"])

    for name in STUDENTS:
        wait(f"{name}'s check", lambda n=name: _checked(url, api[n]))
    ids = {name: [v["id"] for v in versions(name)] for name in STUDENTS}

    def board() -> dict[str, Any]:
        return dict(httpx.get(f"{url}/api/leaderboard", timeout=60).json())

    wait("ten ladder games", lambda: board()["games"] >= 10, 600)

    # alice's second version, an SPRT match of it, and bob's challenge
    keep("alice: uploads v2 (api)", httpx.post(
        f"{url}/api/submit", headers=api["alice"], data={"runtime": "python", "note": "second"},
        files={"file": ("random.py", bot)}, timeout=60))  # fmt: skip
    wait("alice's v2 check", lambda: _checked(url, api["alice"]))
    ids["alice"] = [v["id"] for v in versions("alice")]
    new, old = max(ids["alice"]), min(ids["alice"])
    match = keep(
        "alice: asks a match (api)",
        httpx.post(
            f"{url}/api/versions/{new}/matches", headers=api["alice"], data={"baseline": str(old)}, timeout=60
        ),
    )
    match_id = match.json()["id"]
    keep(
        "alice: a second match at once (api)",
        httpx.post(
            f"{url}/api/versions/{new}/matches", headers=api["alice"], data={"baseline": str(old)}, timeout=60
        ),
    )
    keep("organiser: may not ask a match", organiser.post(f"/versions/{new}/match", {"baseline": str(old)}))
    keep("alice: activates v1", people["alice"].post(f"/versions/{old}/activate"))
    keep("alice: activates v2", people["alice"].post(f"/versions/{new}/activate"))
    entrants = {name: _entrant_id(organiser, name) for name in STUDENTS}
    keep("bob: challenges page", people["bob"].get("/challenges"))
    challenge = keep(
        "bob: challenges alice",
        people["bob"].post("/challenges", {"opponent": str(entrants["alice"]), "games": "2"}),
    )
    challenge_id = int(challenge.headers["location"].rsplit("/", 1)[1])
    keep("organiser: may not challenge", organiser.post("/challenges", {"opponent": str(entrants["bob"])}))
    keep("bob: challenges nobody", people["bob"].post("/challenges", {"opponent": "x", "games": "1"}))
    wait(
        "the challenge's games",
        lambda: (
            httpx.get(f"{url}/api/matches/{challenge_id}", headers=api["bob"], timeout=60).json()["games"]
            >= 2
        ),
        600,
    )
    wait(
        "some match games",
        lambda: (
            httpx.get(f"{url}/api/matches/{match_id}", headers=api["alice"], timeout=60).json()["games"] >= 2
        ),
        600,
    )

    # the organiser's page and actions, the final
    keep("organiser: admin", organiser.get("/admin"))
    keep("organiser: disables carol", organiser.post(f"/admin/disable/{entrants['carol']}"))
    keep("organiser: enables carol", organiser.post(f"/admin/enable/{entrants['carol']}"))
    keep("organiser: rechecks carol's", organiser.post(f"/admin/recheck/{ids['carol'][0]}"))
    keep("organiser: an unknown action", organiser.post(f"/admin/frobnicate/{entrants['carol']}"))
    keep("alice: may not pause", people["alice"].post("/admin/ladder/pause"))
    keep("spectator: no final yet", spectator.get("/final"))
    keep("organiser: starts the final", organiser.post("/admin/final"))
    keep("organiser: a second final at once", organiser.post("/admin/final"))
    wait("the final", lambda: "FINAL: done" in spectator.get("/final/1").text, 900)
    keep("organiser: pauses the ladder", organiser.post("/admin/ladder/pause"))
    wait("the tables to empty", lambda: board()["in_flight"] == 0, 300)
    time.sleep(1.5)  # the spectators' cached board (1 s) is renewed

    # every page, as each visitor
    games = [g["game"] for g in httpx.get(
        f"{url}/api/entrants/{entrants['alice']}/games", timeout=60).json()["games"]]  # fmt: skip
    game = games[0]
    visitors = {"spectator": spectator, "organiser": organiser, **people}
    pages = [
        "/", "/leaderboard/rows", "/leaderboard/recent", "/me", "/challenges", "/admin", "/live",
        "/live/g999999", "/live/g999999/events", "/final", "/final/1", "/final/2", "/final/1/report.html",
        "/admin/export/hands.jsonl", "/admin/export/games.csv", "/healthz", "/static/server.css",
        "/static/live.js", "/static/live_table.js", "/static/replay.js", "/static/report.css",
        "/static/nothing.css", "/no/such/page", "/games/g999999", f"/games/{game}",
        f"/matches/{match_id}", f"/matches/{challenge_id}", "/matches/999", "/signup", "/login",
    ]  # fmt: skip
    for name in STUDENTS:
        e = entrants[name]
        pages += [f"/entrants/{e}", f"/entrants/{e}/logs", f"/entrants/{e}/analytics", f"/entrants/{e}/games",
                  f"/entrants/{e}/games?result=won&page=1", f"/entrants/{e}/games?result=bad",
                  f"/entrants/{e}/logs/search?q=random", f"/entrants/{e}/logs/search?q="]  # fmt: skip
        pages += [f"/versions/{v}" for v in ids[name]]
        pages += [f"/games/{game}/logs/{v}" for v in ids[name]]
    pages += ["/entrants/999", "/versions/999"]
    for who, b in visitors.items():
        for page in pages:
            keep(f"{who}: GET {_generic(page, entrants, ids, game, match_id, challenge_id)}", b.get(page))
    keep("spectator: POST to a GET page", spectator.post("/", csrf=False))
    keep("spectator: GET a POST page", spectator.get("/logout"))
    keep("alice: a form without its token", people["alice"].post("/me/description", {"description": "x"},
                                                                  csrf=False))  # fmt: skip
    keep("alice: describes her bot", people["alice"].post("/me/description", {"description": "a random bot"}))
    keep("alice: too long a description", people["alice"].post("/me/description", {"description": "x" * 600}))

    apis = ["/api/leaderboard", "/api/status", "/api/challenges", "/api/openapi.json", "/api/nothing",
            f"/api/matches/{match_id}", f"/api/matches/{challenge_id}", "/api/matches/999"]  # fmt: skip
    for name in STUDENTS:
        e = entrants[name]
        apis += [f"/api/entrants/{e}/analytics", f"/api/entrants/{e}/games",
                 f"/api/entrants/{e}/games?opponent=house&page=1",
                 f"/api/entrants/{e}/games?since=yesterday"]  # fmt: skip
        apis += [f"/api/versions/{v}" for v in ids[name]] + [f"/api/versions/{v}/matches" for v in ids[name]]
        apis += [f"/api/games/{game}/logs/{v}" for v in ids[name]]
    headers = {"none": {}, "bad token": {"Authorization": "Bearer nope"}, **api}
    for who, h in headers.items():
        for path in apis:
            generic = _generic(path, entrants, ids, game, match_id, challenge_id)
            keep(f"{who}: GET {generic}", httpx.get(f"{url}{path}", headers=h, timeout=60))
    keep(
        "bob: api challenge of himself",
        httpx.post(
            f"{url}/api/challenges", headers=api["bob"], data={"opponent": str(entrants["bob"])}, timeout=60
        ),
    )
    keep("none: api submit", httpx.post(f"{url}/api/submit", data={"runtime": "python"}, timeout=60))
    keep("spectator: logs out", spectator.post("/logout"))
    for name, b in people.items():
        keep(f"{name}: logs out", b.post("/logout"))
        keep(f"{name}: login page", b.get("/login"))
        keep(f"{name}: logs in", b.post("/login", {"name": name, "password": PASSWORD}))
    keep("organiser: resumes the ladder", organiser.post("/admin/ladder/resume"))
    return record


def _checked(url: str, headers: dict[str, str]) -> bool:
    found = httpx.get(f"{url}/api/status", headers=headers, timeout=60).json()["versions"]
    return all(v["status"] in ("passed", "failed") for v in found)


def _entrant_id(organiser: Browser, name: str) -> int:
    found = re.search(rf'href="/entrants/(\d+)">{name}<', organiser.get("/admin").text)
    if found is None:
        raise SystemExit(f"server_flow: {name} is not on the organiser's page")
    return int(found.group(1))


def _generic(path: str, entrants: dict[str, int], ids: dict[str, list[int]], game: str, *matches: int) -> str:
    """A path with its ids named by role, so that two runs' keys are the same."""
    for name, e in entrants.items():
        path = re.sub(rf"/entrants/{e}(?=/|$|\?)", f"/entrants/<{name}>", path)
        for i, v in enumerate(ids[name]):
            path = re.sub(rf"/(versions|logs)/{v}(?=/|$)", rf"/\1/<{name} v{i + 1}>", path)
    path = path.replace(game, "<game>")
    for label, m in zip(("match", "challenge"), matches, strict=True):
        path = re.sub(rf"/matches/{m}(?=/|$)", f"/matches/<{label}>", path)
    return path


def _normalised(recording: dict[str, Any]) -> dict[str, Any]:
    norm = Normaliser(recording["port"])
    return {name: norm.response(answer) for name, answer in recording["answers"].items()}


def compare(a: Path, b: Path) -> int:
    left, right = (_normalised(json.loads(p.read_text())) for p in (a, b))
    differ = 0
    for key in sorted(set(left) | set(right)):
        if left.get(key) != right.get(key):
            differ += 1
            print(f"--- {key}")
            one = json.dumps(left.get(key), indent=1, sort_keys=True).splitlines()
            two = json.dumps(right.get(key), indent=1, sort_keys=True).splitlines()
            for line in difflib.unified_diff(one, two, str(a), str(b), lineterm="", n=2):
                print(line)
    print(f"server_flow: {len(set(left) | set(right))} answers, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout whose server runs")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give OUT.json, or --compare A B")
    run_flow(args.root.resolve(), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
