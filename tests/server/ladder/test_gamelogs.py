"""A game's span of a version's ladder log, on real files rotated as the launcher's shim rotates them
(``vID.log`` renamed to ``vID.log.1``, a fresh file begun): within one file, across one rotation, gone
after two, capped to the newest bytes, and absent for a game without marks."""

from __future__ import annotations

import os
from pathlib import Path

from arena.server.ladder.gamelogs import columns, mark, marks, read_span


def rotate(path: Path, first_line: bytes) -> None:
    os.replace(path, path.with_name(path.name + ".1"))
    path.write_bytes(first_line)


def span(path: Path, write_during: bytes, rotate_with: bytes | None = None) -> dict[str, int | None]:
    before = {"v1": mark(path)}
    with path.open("ab") as log:
        log.write(write_during)
    if rotate_with is not None:
        rotate(path, rotate_with)
    return columns(before, {"v1": mark(path)}, "v1")


def test_a_span_within_one_file(tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_bytes(b"earlier game\n")
    values = span(log, b"this game\n")
    with log.open("ab") as out:
        out.write(b"a later game\n")
    shown = read_span(log, values)
    assert shown.recorded and shown.text == "this game\n" and shown.notes == ()


def test_a_span_across_one_rotation_reads_both_files(tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_bytes(b"earlier\n")
    values = span(log, b"first half\n", rotate_with=b"[arena] rotated\nsecond half\n")
    shown = read_span(log, values)
    assert shown.text == "first half\n[arena] rotated\nsecond half\n"
    assert any("rotated" in n for n in shown.notes)


def test_a_span_rotated_away_is_said_to_be_gone_not_replaced(tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_bytes(b"earlier\n")
    values = span(log, b"this game\n")
    rotate(log, b"newer\n")
    assert read_span(log, values).text == "this game\n"  # still in vID.log.1
    keep = [log.with_name("v1.log.1").open("rb"), log.open("rb")]  # the inodes stay taken: no reuse
    rotate(log, b"newest\n")
    shown = read_span(log, values)
    assert shown.recorded and shown.text == "" and "rotated away" in shown.notes[0]
    for f in keep:
        f.close()


def test_a_long_span_shows_its_newest_bytes(tmp_path: Path) -> None:
    log = tmp_path / "v1.log"
    log.write_bytes(b"")
    values = span(log, b"a" * 500 + b"THE END\n")
    shown = read_span(log, values, limit=100)
    assert shown.text.endswith("THE END\n") and len(shown.text) == 100
    assert "the first 408 bytes are left out" in shown.notes[0]


def test_no_marks_no_span(tmp_path: Path) -> None:
    assert marks(tmp_path, ["v1", "house-1"]) == {"v1": None}  # a house bot has no log; v1 none yet
    values = columns({"v1": None}, {"v1": None}, "v1")
    assert values == dict.fromkeys(values) and not read_span(tmp_path / "v1.log", values).recorded
    assert columns({}, {}, "house-1") == values


def test_overlapping_spans_of_one_version_are_named_both_ways(tmp_path: Path) -> None:
    """Two tables: games A and B of version 1 overlap in its log, C comes after both; version 2's game at
    the same bytes is another file's, and an empty span overlaps nothing."""
    from arena.server.db.database import open_database
    from arena.server.db.models import Game, GameSeat, User, Version
    from arena.server.ladder.games import Games

    db = open_database(f"sqlite:///{tmp_path / 's.sqlite'}")
    spans = {"gA": (1, 10, 50), "gB": (1, 30, 80), "gC": (1, 80, 120), "gD": (2, 30, 80), "gE": (1, 60, 60)}
    with db.session() as s:
        s.add(User(id=1, name="ada", role="entrant", created_at=0.0))
        for vid in (1, 2):
            s.add(
                Version(
                    id=vid, user_id=1, number=vid, runtime="python", filename="bot.py", size=1, created_at=0
                )
            )
        for seq, (gid, (vid, start, end)) in enumerate(spans.items(), start=1):
            s.add(Game(id=gid, seq=seq, public_seed=seq, result="{}", hands=0, created_at=0.0))
            s.flush()
            log = {"log_inode": vid * 1000, "log_start": start, "log_end_inode": vid * 1000, "log_end": end}
            s.add(GameSeat(game_id=gid, seat=0, version_id=vid, name=f"v{vid}", score=0, rank=1,
                           forfeited=False, faults=0, maker_hands=0, maker_made=0, **log))  # fmt: skip
    games = Games(db)
    found = {gid: games.seat_log(gid, spans[gid][0]) for gid in spans}
    assert {gid: f.overlapping for gid, f in found.items() if f} == {
        "gA": ("gB",),
        "gB": ("gA",),
        "gC": (),
        "gD": (),
        "gE": (),
    }
    assert games.seat_log("gA", 2) is None and games.seat_log("gZ", 1) is None
    db.close()
