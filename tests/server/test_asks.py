"""A failed decision of one's own bot, taken home from the server (issue 43): beside each violation of a
check and each decision of one's own seat in a stored game, the exact request the seat received, as a
download ``arena ask`` reads and the command lines to run it; for the seat's owner and the organiser only
(another entrant and a visitor get the missing page's 404).

Against a real ``arena serve``: a bot that breaks the rules in its check (bob's) and one that passes its
check and breaks them on the ladder only (alice's: it plays a card it does not hold in the ladder's games,
whose table ids start with ``L``). Each violation's request, downloaded and sent with the page's own command
line to the same bot, gets the same illegal reply; every exported request of a stored game holds no card
its seat could not see, checked against the stored deal.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shlex
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.conductor import ask as asking
from arena.conductor.requests import Decision
from arena.protocol.v1 import player_pb2 as pb
from tests.conductor.test_ask import cards_in, secrets_of
from tests.conftest import missing
from tests.helpers import arena_cli
from tests.server.conftest import PASSWORD, SAMPLE_BOT, Client, ServerProcess

COMPETITION = {"ladder": {"tables": 1, "house": "sample_bots.random:RandomBot", "match_on_activate": False}}
SQLITE_ONLY = True  # what is tested is the pages and the requests, not the database

SLY = '''"""Plays the first legal action, but a card it does not hold at every card it plays in games whose id
starts with {prefix!r}: a reply that is a function of the request alone."""
from arena.bot import Bot, run
from arena.engine import Action
from arena.engine.actions import ActionKind
from arena.engine.cards import CARDS
from arena.engine.config import deck_of


class Sly(Bot):
    name = "sly"
    version = "1"

    def act(self, view):
        first = view.legal_actions[0]
        if first.kind is ActionKind.PLAY and self.game.game_id.startswith({prefix!r}):
            held = {{c.id for c in view.hand or ()}}
            return Action(ActionKind.PLAY, card=next(CARDS[c] for c in deck_of(view.config) if c not in held))
        return first


if __name__ == "__main__":
    run(Sly)
'''
BOB_VERSION: list[str] = []  # the page of bob's failed version, once ``people`` has uploaded it
ILLEGAL = re.compile(r"played (PLAY\(\w+\))")


def sly(prefix: str) -> bytes:
    return SLY.format(prefix=prefix).encode()


@pytest.fixture(scope="module")
def bot_dirs() -> Iterator[dict[str, Path]]:
    """Each sly bot's directory on the author's machine (readable by the sandbox's user: not pytest's
    private temporary directories)."""
    with tempfile.TemporaryDirectory(prefix="arena-asks-") as made:
        root = Path(made)
        root.chmod(0o755)
        dirs = {}
        for prefix in ("check", "L"):
            where = root / prefix
            where.mkdir(mode=0o755)
            (where / "bot.py").write_bytes(sly(prefix))
            (where / "bot.py").chmod(0o644)
            dirs[prefix] = where
        yield dirs


@pytest.fixture(scope="module")
def people(server: ServerProcess) -> dict[str, Client]:
    """alice (faults on the ladder), bob (fails his check), carol (another entrant, no bot), dave (a
    random bot, so that the ladder has two versions), the organiser, and a visitor; the versions checked,
    and a ladder game stored with a fault of alice's seat."""
    clients = {name: Client(server.url) for name in ("alice", "bob", "carol", "dave", "visitor", "organiser")}
    for name in ("alice", "bob", "carol", "dave"):
        clients[name].sign_up(name)
    assert server.organiser_link is not None
    clients["organiser"].follow(server.organiser_link)
    alice = clients["alice"].upload("bot.py", sly("L"))
    bob = clients["bob"].upload("bot.py", sly("check"))
    dave = clients["dave"].upload("bot.py", SAMPLE_BOT.read_bytes())  # the ladder needs two versions
    assert "VERDICT: PASS" in clients["alice"].verdict(alice.headers["location"])
    assert "VERDICT: FAIL" in clients["bob"].verdict(bob.headers["location"])
    BOB_VERSION.append(bob.headers["location"])
    assert "VERDICT: PASS" in clients["dave"].verdict(dave.headers["location"])
    deadline = time.monotonic() + 120
    while not server.rows("SELECT game_id FROM faults LIMIT 1"):
        assert time.monotonic() < deadline, "no ladder game with a fault of alice's bot"
        time.sleep(0.5)
    return clients


def ask_links(page: str) -> list[str]:
    return [html.unescape(link) for link in re.findall(r'<a class="ask" href="([^"]+)"', page)]


def commands(page: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r"<dd><pre>([^<]+)</pre></dd>", page)]


def download(client: Client, decision_page: str, tmp: Path, hand: bool = False) -> Path:
    """The decision page's download, saved under the name its command lines use."""
    page = client.get(decision_page)
    assert page.status_code == 200, page.text
    response = client.get(decision_page + "/export" + ("?hand=1" if hand else ""))
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    name = re.search(r'filename="([^"]+)"', response.headers["content-disposition"])
    assert name is not None
    path = tmp / name.group(1)
    path.write_bytes(response.content)
    named = [c.split()[2] for c in commands(page.text)]
    assert path.name in named, (path.name, named)  # the page's command lines name the download
    return path


def ask_again(page_text: str, export: Path, bot_dir: Path) -> dict[str, Any]:
    """Run the page's own command line (launched as the server launches it: sandboxed where bubblewrap
    runs, else its line without the sandbox) from a directory holding the export and the bot's files."""
    lines = [c for c in commands(page_text) if "--command" in c]
    line = lines[0] if missing("needs_bwrap") is None else next(c for c in lines if "--sandbox none" in c)
    argv = shlex.split(line)
    assert argv[0] == "arena"
    (bot_dir / export.name).write_bytes(export.read_bytes())
    (bot_dir / export.name).chmod(0o644)
    done = arena_cli(*argv[1:], "--json", cwd=bot_dir, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr  # the reply is illegal, again
    return json.loads(done.stdout)


def test_a_check_violation_downloaded_and_asked_again_gets_the_same_reply(
    people: dict[str, Client], bot_dirs: dict[str, Path], tmp_path: Path
) -> None:
    bob = people["bob"]
    page = bob.get(BOB_VERSION[0]).text
    violations = re.findall(r'<li class="reason">(.*?)</li>', page, re.S)
    illegal = [v for v in violations if "illegal action" in v]
    assert illegal, page
    links = ask_links(page)
    assert len(links) >= len(illegal), page  # beside every violation that is a decision
    first = html.unescape(illegal[0])
    played = ILLEGAL.search(first)
    assert played is not None, first
    decision = re.search(r"in game (\S+), hand \d+, decision (\d+)", first)
    assert decision is not None
    assert links[0].endswith(f"/check/{decision.group(1)}/{decision.group(2)}"), (links, first)
    export = download(bob, links[0], tmp_path)
    asked = ask_again(bob.get(links[0]).text, export, bot_dirs["check"])["decisions"]
    assert [d["decision_id"] for d in asked] == [int(decision.group(2))]
    assert asked[0]["answer"]["action"] == played.group(1)
    assert "is not legal" in asked[0]["answer"]["problem"]
    assert asked[0]["fault"]["kind"] == "illegal_action"


def ladder_fault(server: ServerProcess) -> tuple[str, int, int, str]:
    game, seat, decision, detail = server.rows(
        "SELECT game_id, seat, decision_id, detail FROM faults WHERE kind = 'illegal_action' "
        "ORDER BY id LIMIT 1"
    )[0]
    return str(game), int(seat), int(decision), str(detail)


def test_a_ladder_violation_downloaded_and_asked_again_gets_the_same_reply(
    server: ServerProcess, people: dict[str, Client], bot_dirs: dict[str, Path], tmp_path: Path
) -> None:
    game, _seat, decision, detail = ladder_fault(server)
    alice = people["alice"]
    page = alice.get(f"/games/{game}").text
    link = f"/games/{game}/decisions/{decision}"
    assert link in ask_links(page), page  # beside the fault
    assert f'href="{link}"' in page.split('id="asks"')[1]  # and in the list of the seat's decisions
    replay_entry = replay_game(page)
    assert replay_entry["ask"]["url"] == f"/games/{game}/decisions/"
    assert decision in [d for hand in replay_entry["decisions"] for d in hand]
    assert any(f[6] == decision for f in replay_entry["faults"])  # the replay marks the fault's decision
    export = download(alice, link, tmp_path)
    asked = ask_again(alice.get(link).text, export, bot_dirs["L"])["decisions"]
    played = ILLEGAL.search(detail)
    assert played is not None, detail
    assert [d["decision_id"] for d in asked] == [decision]
    assert asked[0]["answer"]["action"] == played.group(1)
    assert asked[0]["game_id"] == game
    # the whole hand of that seat: every request in order, the faulted one among them
    whole = json.loads(download(alice, link, tmp_path, hand=True).read_text())["decisions"]
    assert decision in [d["decision_id"] for d in whole] and len({d["seat"] for d in whole}) == 1


def replay_game(page: str) -> dict[str, Any]:
    import base64
    import gzip

    packed = re.search(r'id="replay-data">([^<]+)</script>', page)
    assert packed is not None
    return dict(json.loads(gzip.decompress(base64.b64decode(packed.group(1).strip())))["games"][0])


def test_another_entrant_and_a_visitor_get_404_the_owner_and_the_organiser_200(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    game, _seat, decision, _ = ladder_fault(server)
    bob = people["bob"]
    check_link = ask_links(bob.get(BOB_VERSION[0]).text)[0]
    ladder_link = f"/games/{game}/decisions/{decision}"
    nowhere = {ladder_link: "/games/no-such-game/decisions/1", check_link: "/versions/99999/check/check-1/1"}
    for link, owner in ((ladder_link, "alice"), (check_link, "bob")):
        for path in (link, link + "/export", link + "/export?hand=1"):
            for who in ("carol", "visitor", "bob" if owner == "alice" else "alice"):
                got, missing_page = people[who].get(path), people[who].get(nowhere[link])
                assert got.status_code == missing_page.status_code == 404, (who, path, got.status_code)
                assert got.text == missing_page.text  # the very page of what does not exist
            for who in (owner, "organiser"):
                assert people[who].get(path).status_code == 200, (who, path)
    # and their game page offers no one else's requests
    for who in ("carol", "visitor", "bob"):
        page = people[who].get(f"/games/{game}").text
        assert 'class="ask"' not in page and 'id="asks"' not in page, who
        assert '"ask"' not in json.dumps(replay_game(page))


def test_every_exported_request_of_a_stored_game_holds_no_card_of_another_seat(
    server: ServerProcess, people: dict[str, Client], tmp_path: Path
) -> None:
    """The organiser takes every decision of a stored game (every seat's, each seat's hands whole) through
    the pages; each request is checked against the game's stored deal."""
    game, *_ = ladder_fault(server)
    organiser = people["organiser"]
    query = f"SELECT record FROM hands WHERE game_id = '{game}' ORDER BY hand_index"
    hands = [json.loads(r[0]) for r in server.rows(query)]
    page = organiser.get(f"/games/{game}").text
    numbers = sorted({int(n) for n in re.findall(rf'href="/games/{game}/decisions/(\d+)"', page)})
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) > 20, page
    taken: dict[int, Decision] = {}
    for n in numbers:
        if n not in taken:
            for d in asking.load_export(
                download(organiser, f"/games/{game}/decisions/{n}", tmp_path, hand=True)
            ):
                taken[d.decision_id] = d
    assert sorted(taken) == numbers
    assert leaks([taken[n] for n in numbers], hands) == []


def leaks(decisions: list[Decision], hands: list[dict[str, Any]]) -> list[str]:
    """Each decision (in the order asked) whose request holds a card its seat could not see at that point
    of its hand: in its view, or in the events on it once the seat has been asked in this hand (the events
    before are the last hand's, whose cards come round again)."""
    found = []
    previous_hand: dict[int, int] = {}
    for d in decisions:
        hand = hands[d.hand_index]
        assert hand["actions"][d.action_index]["seat"] == d.seat
        secret = secrets_of(hand, d.seat, d.action_index)
        message = pb.ArenaMessage.FromString(d.request)
        seen = cards_in(message.decision_request.view)
        if previous_hand.get(d.seat) == d.hand_index:  # events of this hand only (cards repeat each hand)
            for event in message.events:
                seen |= cards_in(event)
        previous_hand[d.seat] = d.hand_index
        if seen & secret:
            found.append(f"decision {d.decision_id} (seat {d.seat}): {sorted(seen & secret)}")
    return found


def test_the_leak_check_bites(server: ServerProcess, people: dict[str, Client], tmp_path: Path) -> None:
    """A request of one seat checked as another's is caught: what the test above looks for exists."""
    game, _seat, decision, _ = ladder_fault(server)
    query = f"SELECT record FROM hands WHERE game_id = '{game}' ORDER BY hand_index"
    hands = [json.loads(r[0]) for r in server.rows(query)]
    path = download(people["organiser"], f"/games/{game}/decisions/{decision}", tmp_path, hand=True)
    mine = asking.load_export(path)
    # the request of the hand that shows its seat the most cards (a blind decision shows none, and a game's
    # first request may be one: ladder games differ from run to run)
    first = max(
        mine, key=lambda d: len(cards_in(pb.ArenaMessage.FromString(d.request).decision_request.view))
    )
    hand = hands[first.hand_index]
    index, other = next((i, a["seat"]) for i, a in enumerate(hand["actions"]) if a["seat"] != first.seat)
    assert leaks([first], hands) == []
    assert leaks([dataclasses.replace(first, seat=other, action_index=index)], hands)


@pytest.mark.needs_chromium
def test_the_replay_offers_each_of_the_owners_moves_and_names_the_faults_decision(
    server: ServerProcess, people: dict[str, Client]
) -> None:
    """In a real browser: alice's replay of the game puts "ask again" beside her seat's moves (the faulted
    one's link leads to its decision's page) and names the fault's decision; carol's shows neither link."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright (the test extra) is not installed"
    )
    from tests.report.test_browser import ARGS, CHROMIUM

    game, seat, decision, _ = ladder_fault(server)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            logs = {}
            for who in ("alice", "carol"):
                page = browser.new_page(viewport={"width": 390, "height": 844})
                errors: list[str] = []
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                page.goto(f"{server.url}/login")
                page.fill("input[name=name]", who)
                page.fill("input[name=password]", PASSWORD)
                page.click("button:has-text('log in')")
                page.wait_for_url(re.compile(r"/me$"))
                page.goto(f"{server.url}/games/{game}")
                data = page.evaluate("window.arenaReplay.ready.then((d) => d.games[0])")
                h, i = next((f[0], f[1]) for f in data["faults"] if f[6] == decision)
                step = page.evaluate(  # step by step to just after the faulted action, as a person does
                    "([g, h, i]) => window.arenaReplay.open(g, undefined, 0).then(() => {"
                    " for (let k = 0; k < 100000; k++) { const s = window.arenaReplay.state();"
                    " if (s.hand === h && s.step === i + 1) return s.global; window.arenaReplay.go('next'); }"
                    " return -1; })",
                    [game, h, i],
                )
                assert step > 0
                logs[who] = page.inner_html("#replay-log")
                if who == "alice":
                    link = page.locator(f'#replay-log a.ask[href="/games/{game}/decisions/{decision}"]')
                    assert link.count() == 1, logs[who]
                    link.click()
                    page.wait_for_url(re.compile(rf"/games/{game}/decisions/{decision}$"))
                    assert f"seat {seat}" in page.text_content("main")
                    assert page.locator("#request-text").count() == 1
                assert errors == [], errors
        finally:
            browser.close()
    assert f"the arena played for it at decision {decision}" in logs["alice"]
    assert f"the arena played for it at decision {decision}" in logs["carol"]  # the fault is public
    assert 'class="ask"' in logs["alice"] and 'class="ask"' not in logs["carol"]


def test_submit_and_status_print_each_violations_request_page(
    server: ServerProcess, people: dict[str, Client], bot_dirs: dict[str, Path]
) -> None:
    """``arena submit`` (waiting for the verdict) and ``arena status`` print, under each violation of a
    failed check, the address of the request page the version's own page links beside it."""
    from tests.server.matches.test_matches import token

    bob = people["bob"]
    key = token(bob)["Authorization"].split(" ", 1)[1]
    submitted = arena_cli(
        "submit", str(bot_dirs["check"] / "bot.py"), "--server", server.url, "--token", key, timeout=240
    )
    assert submitted.returncode == 1 and "VERDICT: FAIL" in submitted.stdout, submitted.stdout
    version = int(re.findall(r"uploaded bob v(\d+)", submitted.stdout)[0])
    query = "SELECT v.id FROM versions v JOIN users u ON u.id = v.user_id WHERE u.name = 'bob' AND number = "
    ((version_id,),) = server.rows(query + str(version))
    page = bob.get(f"/versions/{version_id}").text
    linked = [f"{server.url}{link}" for link in ask_links(page)]
    assert linked
    printed = re.findall(r"the request it received \(for arena ask\): (\S+)", submitted.stdout)
    assert printed == linked, submitted.stdout
    status = arena_cli("status", "--server", server.url, "--token", key)
    assert status.returncode == 0
    for url in linked:
        assert url in status.stdout, status.stdout
    assert bob.get(httpx_path(linked[0])).status_code == 200


def httpx_path(url: str) -> str:
    return "/" + url.split("/", 3)[3]
