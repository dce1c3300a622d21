"""Hostile clients against a real server: each attack is made as a real client would make it, and each
must fail with the right status and a page saying why, with the server still serving afterwards.

Changing ids in URLs and API calls, forms without their CSRF token, markup in names, unsafe archives
(``../``, absolute paths, symbolic and hard links, device files, a zip bomb, a tar.gz bomb, a 1 GB
upload), session fixation and login brute force.
"""

from __future__ import annotations

import io
import socket
import stat
import tarfile
import time
import zipfile

import httpx
import pytest

from tests.server.conftest import PASSWORD, SAMPLE_BOT, Client, ServerProcess

COMPETITION = {"people": {"login_attempts": 5}}
# SQLite only (tests/server/conftest.py): the attacks are refused before any SQL (CSRF, archives, the 1 GB
# upload, the login throttle, which is in memory) or by the same key lookups and escaping at render that
# tests/server/test_flows.py and ladder/test_pages.py run on PostgreSQL too (sessions, versions, seat logs).
SQLITE_ONLY = True
SCRIPT = "<script>alert('owned')</script>"


def zip_of(*members: tuple[str, bytes], mode: int | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.create_system = 3
                info.external_attr = mode << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def tar_of(*members: tarfile.TarInfo, data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, target: str = "", size: int = 0) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    info.size = size
    return info


def alive(server: ServerProcess) -> None:
    assert server.alive()
    assert httpx.get(f"{server.url}/healthz", timeout=10).text == "ok"


@pytest.fixture(scope="module")
def people(server: ServerProcess) -> dict[str, Client]:
    """Two entrants with one checked version each, and the organiser."""
    owner, other, organiser = Client(server.url), Client(server.url), Client(server.url)
    owner.sign_up("owner")
    other.sign_up("other")
    assert server.organiser_link is not None
    organiser.follow(server.organiser_link)
    for c in (owner, other):
        page = c.upload("random.py", SAMPLE_BOT.read_bytes())
        assert page.status_code == 303
        c.verdict(page.headers["location"])
    return {"owner": owner, "other": other, "organiser": organiser}


def version_of(client: Client) -> int:
    page = client.get("/me").text
    return int(page.split('href="/versions/')[1].split('"')[0])


def test_another_entrants_things_by_changing_ids(server: ServerProcess, people: dict[str, Client]) -> None:
    owner, other = people["owner"], people["other"]
    theirs = version_of(owner)
    owner_id = int(owner.get("/me").text.split('href="/entrants/')[1].split('"')[0])
    assert owner.get(f"/versions/{theirs}").status_code == 200
    for path in (f"/versions/{theirs}", f"/entrants/{owner_id}/logs", "/versions/99999"):
        page = other.get(path)
        assert page.status_code == 404 and "no such" in page.text, path
        assert Client(server.url).get(path).status_code == 404, path  # a spectator neither
    assert people["organiser"].get(f"/entrants/{owner_id}/logs").status_code == 200
    # make a version of the owner active from the other's session: refused, nothing changed
    response = other.post(f"/versions/{theirs}/activate")
    assert response.status_code == 404
    # the API: the other's token cannot read the owner's version
    other.get("/me")
    token = other.post("/me/token").text.split('<code id="token">')[1].split("<")[0]
    api = httpx.get(f"{server.url}/api/versions/{theirs}", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 404 and api.json() == {"error": "no such version"}
    assert (
        httpx.get(f"{server.url}/api/status", headers={"Authorization": "Bearer forged"}).status_code == 401
    )
    # an entrant is not the organiser
    assert other.get("/admin").status_code == 403
    assert other.post(f"/admin/disable/{owner_id}").status_code == 403
    assert other.post("/admin/ladder/pause").status_code == 403
    alive(server)


def test_forms_without_their_csrf_token(server: ServerProcess, people: dict[str, Client]) -> None:
    owner = people["owner"]
    owner.get("/me")
    files = {"file": ("bot.py", SAMPLE_BOT.read_bytes(), "text/x-python")}
    for path, data in (("/submit", {"runtime": "python"}), ("/me/token", {}), ("/logout", {})):
        response = owner.post(path, data, csrf=False, files=files if path == "/submit" else None)
        assert response.status_code == 403 and "CSRF" in response.text, path
    forged = owner.post("/login", {"name": "owner", "password": PASSWORD, "csrf": "forged"}, csrf=False)
    assert forged.status_code == 403
    organiser = people["organiser"]
    organiser.get("/admin")
    assert organiser.post("/admin/ladder/pause", csrf=False).status_code == 403
    assert "running" in organiser.get("/admin").text
    assert len(owner.get("/me").text.split('href="/versions/')) == 2  # still one version: nothing stored
    alive(server)


def test_markup_in_names_is_shown_as_text(server: ServerProcess) -> None:
    hacker = Client(server.url)
    hacker.sign_up(SCRIPT)
    page = hacker.upload("<img src=x onerror=alert(1)>.py", SAMPLE_BOT.read_bytes())
    version = hacker.verdict(page.headers["location"])
    for text in (version, hacker.get("/me").text, Client(server.url).get("/").text):
        assert "<script>alert" not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;" in hacker.get("/me").text
    user_id = hacker.get("/me").text.split('href="/entrants/')[1].split('"')[0]
    public = Client(server.url).get(f"/entrants/{user_id}").text
    assert "&lt;script&gt;" in public and "<script>alert" not in public


def a_game_of(client: Client, server: ServerProcess) -> tuple[str, int]:
    """A stored ladder game the client's version sat in: (game id, version id)."""
    version = version_of(client)
    user_id = client.get("/me").text.split('href="/entrants/')[1].split('"')[0]
    deadline = time.monotonic() + 120
    while 'href="/games/' not in (page := client.get(f"/entrants/{user_id}").text):
        assert time.monotonic() < deadline, "no ladder game in 120 s"
        time.sleep(0.5)
    return page.split('href="/games/')[1].split('"')[0], version


def test_another_entrants_game_logs_by_changing_ids(server: ServerProcess, people: dict[str, Client]) -> None:
    owner, other = people["owner"], people["other"]
    game, theirs = a_game_of(owner, server)
    mine = version_of(other)
    link = f"/games/{game}/logs/{theirs}"
    assert owner.get(link).status_code == 200
    for who in (other, Client(server.url)):  # another entrant, a spectator: the very page of a missing log
        missing = who.get("/games/g999999/logs/1")
        assert missing.status_code == 404 and "no such log" in missing.text
        for path in (link, f"/games/{game}/logs/{mine + 1000}", f"/games/g999999/logs/{theirs}"):
            page = who.get(path)
            assert (page.status_code, page.text) == (404, missing.text), path
    assert people["organiser"].get(link).status_code == 200
    other.get("/me")
    token = other.post("/me/token").text.split('<code id="token">')[1].split("<")[0]
    api = httpx.get(f"{server.url}/api{link}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert api.status_code == 404 and api.json() == {"error": "no such log"}
    assert httpx.get(f"{server.url}/api{link}", timeout=30).status_code == 401  # no token at all
    alive(server)


def test_markup_and_overlong_descriptions_and_notes(server: ServerProcess, people: dict[str, Client]) -> None:
    owner = people["owner"]
    owner.get("/me")
    assert owner.post("/me/description", {"description": SCRIPT}).status_code == 303
    user_id = owner.get("/me").text.split('href="/entrants/')[1].split('"')[0]
    for page in (Client(server.url).get(f"/entrants/{user_id}").text, Client(server.url).get("/").text,
                 owner.get("/me").text):  # fmt: skip
        assert "<script>alert" not in page and "&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;" in page
    long = owner.post("/me/description", {"description": "x" * 501})
    assert long.status_code == 400 and "at most 500 characters; this one has 501" in long.text
    control = owner.post("/me/description", {"description": "a\x1b[2Jb"})
    assert control.status_code == 400 and "only printable characters" in control.text
    assert SCRIPT.replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;") in owner.get("/me").text
    before = owner.get("/me").text.count('href="/versions/')
    files = {"file": ("bot.py", SAMPLE_BOT.read_bytes(), "text/x-python")}
    note = owner.post("/submit", {"runtime": "python", "note": "n" * 121}, files=files)
    assert note.status_code == 400 and "at most 120 characters" in note.text
    assert owner.get("/me").text.count('href="/versions/') == before  # nothing stored
    alive(server)


UNSAFE = {
    "dot-dot": (zip_of(("bot.py", b"x"), ("../../evil.py", b"x")), 400, "climbs out of the directory"),
    "absolute": (zip_of(("bot.py", b"x"), ("/etc/evil", b"x")), 400, "absolute path"),
    "zip symlink": (zip_of(("bot.py", b"/etc/passwd"), mode=stat.S_IFLNK | 0o777), 400, "is a link"),
    "tar symlink": (tar_of(member("bot.py", tarfile.SYMTYPE, "/etc/passwd")), 400, "is a link"),
    "tar hard link": (tar_of(member("bot.py", tarfile.LNKTYPE, "/etc/shadow")), 400, "is a link"),
    "tar device": (tar_of(member("bot.py"), member("dev", tarfile.CHRTYPE)), 400, "device file"),
    "tar dot-dot": (tar_of(member("../bot.py")), 400, "climbs out of the directory"),
    "zip bomb": (zip_of(("bot.py", b"0" * 50_000_000)), 413, "a compression bomb"),
    "tar.gz bomb": (
        tar_of(member("bot.py", size=50_000_000), data=b"0" * 50_000_000),
        413,
        "compression bomb",
    ),
    "no entry": (zip_of(("main.py", b"x")), 400, "has none at its top"),
}


@pytest.mark.parametrize("case", list(UNSAFE))
def test_unsafe_uploads_are_refused(server: ServerProcess, people: dict[str, Client], case: str) -> None:
    data, status, why = UNSAFE[case]
    assert len(data) < 64 * 1024, "the attack must fit under the upload cap to reach the unpacker"
    owner = people["owner"]
    before = owner.get("/me").text.count('href="/versions/')
    response = owner.upload(f"{case}.zip", data)
    assert response.status_code == status, response.text
    assert "upload refused" in response.text and why in response.text
    assert owner.get("/me").text.count('href="/versions/') == before
    alive(server)


def test_a_1_gb_upload_is_refused_before_it_is_read(server: ServerProcess, people: dict[str, Client]) -> None:
    owner = people["owner"]
    owner.get("/me")
    cookie = owner.http.cookies["arena"]
    head = (
        "POST /submit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\n"
        f"Content-Length: {2**30}\r\nCookie: arena={cookie}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(head.encode() + b"--x\r\n" + b"0" * 65536)
        data = b""
        while b"</html>" not in data and (chunk := s.recv(65536)):
            data += chunk
        reply = data.decode("utf-8", "replace")
    assert reply.startswith("HTTP/1.1 413"), reply[:200]
    assert "at most" in reply
    chunked = httpx.post(f"{server.url}/submit", content=iter([b"0" * 1000]), cookies={"arena": cookie})
    assert chunked.status_code == 411
    alive(server)


def test_session_fixation(server: ServerProcess) -> None:
    Client(server.url).sign_up("victim")
    attacker = Client(server.url)
    attacker.get("/login")
    planted = attacker.http.cookies["arena"]
    victim = Client(server.url)
    victim.http.cookies.set("arena", planted)  # the attacker's id, planted in the victim's browser
    victim.csrf = attacker.csrf
    response = victim.post("/login", {"name": "victim", "password": PASSWORD})
    assert response.status_code == 303
    issued = response.cookies["arena"]
    assert issued != planted and issued.split(".")[0] != planted.split(".")[0]
    assert victim.get("/me").status_code == 200  # the victim, with the new id, is logged in
    attacker.http.cookies.set("arena", planted)
    assert attacker.get("/me").status_code == 401  # the planted id was never promoted


def test_login_brute_force_is_throttled(server: ServerProcess) -> None:
    Client(server.url).sign_up("target")
    guesser = Client(server.url)
    codes = [guesser.login("target", f"guess-{i:08d}").status_code for i in range(5)]
    assert codes == [401] * 5
    locked = guesser.login("target", PASSWORD)  # even the right password waits now
    assert locked.status_code == 429 and "too many failed logins" in locked.text
    assert int(locked.headers["retry-after"]) > 0
    assert Client(server.url).login("owner", PASSWORD).status_code == 303  # others are not locked out
    alive(server)
