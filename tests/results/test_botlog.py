"""A launched bot's log cut into games by the arena's marks."""

from __future__ import annotations

from pathlib import Path

from arena.results.botlog import LogLine, end_line, game_logs, split_log, start_line


def test_lines_between_the_marks_belong_to_the_game() -> None:
    lines = [
        "[arena] starting: bot --port 1",
        "listening",  # before any game: nobody's
        start_line("g1", 0),
        "g1 alone",
        start_line("g2", 3),
        "both",  # two games at once: given to each, saying so
        end_line("g1", 0),
        "g2 alone",
        start_line("g2", 4),  # the same bot in two seats of g2
        end_line("g2", 3),
        "g2 still",
        end_line("g2", 4),
        "after",
    ]
    games = split_log(lines, "bot")
    assert games["g1"] == [LogLine("bot", "g1 alone"), LogLine("bot", "both", ("g2",))]
    assert [x.text for x in games["g2"]] == ["both", "g2 alone", "g2 still"]
    assert games["g2"][0].shared == ("g1",)


def test_logs_read_from_the_output_directory_rotated_part_first(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "worker-w1").mkdir(parents=True)
    (logs / "bot.log.1").write_text(start_line("g1", 0) + "old\x1b[31m\n")
    (logs / "bot.log").write_text("new\n" + end_line("g1", 0))
    (logs / "worker-w1" / "bot.log").write_text(start_line("g2", 1) + "far\n" + end_line("g2", 1))
    got = game_logs(tmp_path, ["bot", "nobody"])
    assert [x.text for x in got["g1"]] == ["old\\x1b[31m", "new"]  # control characters made inert
    assert [x.text for x in got["g2"]] == ["far"]
    assert game_logs(tmp_path / "missing", ["bot"]) == {}
