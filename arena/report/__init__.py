"""``arena report``: one self-contained HTML file of an event, for a course page or a USB stick.

The page is rendered from a Jinja2 template (``templates/report.html.j2``) with its CSS, its scripts and the
plotting library (Vega and Vega-Lite, vendored in ``static/vendor``) inlined, so it needs no network and no
other file. Numbers come from ``figures.event_figures`` (the read model alone); the replays are packed by
``encode``. Everything the page shows of a game is in the page: a published report is a published record of
every hand, exactly as ``arena export`` would give it (the per-seat view is a way of watching, not a
secret).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.report import board, collusion
from arena.report.encode import CARD_LIST, encode_hand, pack, place_faults, place_times
from arena.report.figures import EventFigures, event_figures, fault_kinds
from arena.results import botlog
from arena.results.queries import Fault, GameSummary, Queries
from arena.stats import wording
from arena.stats.rating import conservative
from arena.text import printable

REPORT_NAME = "report.html"
PUBLISHED_MODE = 0o644
PRIVATE_MODE = 0o600
MAX_POINTS_PER_ENTRANT = 600  # the rating plot thins longer histories evenly (the last point always kept)


@dataclass(frozen=True)
class Built:
    path: Path
    size: int
    games: int
    seconds: float


def build_report(directory: Path, output: Path | None = None, public: bool = False) -> Built:
    """Write the report of the event in ``directory`` to ``output`` (default ``directory/report.html``).

    The organiser's copy (the default) shows beside each replay what the launched bots printed during that
    game (their logs, arena.results.botlog), which may hold what their authors keep private; ``public``
    leaves the logs out, for a copy to publish. The event is opened read-only (``Queries``): the report
    writes nothing into the database.

    :raises ConfigError: ``directory`` holds no event.
    :raises StoreError: its database is not ours, damaged or locked.
    """
    started = time.perf_counter()
    if not directory.is_dir():
        raise ConfigError(f"{str(directory)!r} is not a directory")
    with Queries.open(directory) as store:
        if store.meta("format") is None:
            raise ConfigError(f"{str(directory)!r} holds no event results (its {store.path.name} is empty)")
        figures = event_figures(store)
        # The collusion check is for the organiser, who judges it before anyone is accused: the public
        # copy leaves it out, as it leaves out the logs.
        pairs = None if public else collusion.section(store)
        logs = None if public else botlog.game_logs(directory, [e.name for e in store.entrants()])
        replays = _replays(store, figures, logs)
    html = render_html(figures, replays, logs=logs is not None, pairs=pairs)
    path = output if output is not None else directory / REPORT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    # The public copy is written to be published (a web page, a class's mail), so readable by all whatever
    # the umask. The organiser's copy holds the bots' logs, so only its owner may read it, wherever ``-o``
    # puts it: a report written to a shared /tmp must not hand one author's log lines to another.
    os.chmod(path, PUBLISHED_MODE if logs is None else PRIVATE_MODE)
    return Built(path, len(html.encode()), len(figures.games), time.perf_counter() - started)


def _replays(
    store: Queries, figures: EventFigures, logs: dict[str, list[botlog.LogLine]] | None
) -> dict[str, Any]:
    """Every played game in replay form, keyed by schedule order (see ``encode``), with each decision's
    time and, in the organiser's copy (``logs``), the bots' log lines of the game."""
    max_faults = int(figures.meta.faults_policy.get("max_faults_per_game", 3))
    times = store.decision_times()

    def entry(game: GameSummary, hands: list[dict[str, Any]]) -> dict[str, Any]:
        faults = by_game.get(game.game_id, [])
        out = _game_entry(game, hands, faults, max_faults)
        if game.game_id in times:
            out["times"] = place_times(hands, faults, max_faults, times[game.game_id])
        if logs is not None:
            out["log"] = [_log_text(line) for line in logs.get(game.game_id, [])]
        return out

    by_game: dict[str, list[Fault]] = {}
    for fault in figures.faults:
        by_game.setdefault(fault.game_id, []).append(fault)
    out: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    games = iter(figures.games)
    current: GameSummary | None = None

    def close() -> None:
        if current is not None:
            out.append(entry(current, hands))

    for stored in store.hand_records():
        if current is None or stored.game_id != current.game_id:
            close()
            hands = []
            current = next(games)
            while current.game_id != stored.game_id:  # a game without hands (cannot happen; keep the order)
                out.append(entry(current, []))
                current = next(games)
        hands.append(stored.record)
    close()
    num_players = hands[0]["num_players"] if hands else figures.meta.num_players
    return {"cards": CARD_LIST, "num_players": num_players, "games": out}


def _game_entry(
    game: GameSummary, hands: list[dict[str, Any]], faults: list[Fault], max_faults: int
) -> dict[str, Any]:
    return {
        "id": game.game_id,
        "n": game.seq,
        "round": game.round,
        "table": game.table,
        "seats": game.seats,
        "scores": game.scores,
        "ranks": game.ranks,
        "forfeited": game.forfeited,
        "termination": game.termination,
        "rated": game.rated,
        "hands": [encode_hand(h) for h in hands],
        "faults": place_faults(hands, faults, max_faults),
    }


def _log_text(line: botlog.LogLine) -> str:
    also = f"  (also in game {', '.join(line.shared)})" if line.shared else ""
    return f"{line.entrant}: {line.text}{also}"


def _thin(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(rows) <= MAX_POINTS_PER_ENTRANT:
        return rows
    step = len(rows) / MAX_POINTS_PER_ENTRANT
    kept = [rows[int(i * step)] for i in range(MAX_POINTS_PER_ENTRANT)]
    return kept if kept[-1] is rows[-1] else [*kept, rows[-1]]


HOVER = "hover"
PICK = "pick"
# Lit: what the reader points at (a line, a legend entry) or picks (the legend, the "highlight" list); with
# nothing pointed at, everyone is lit. The others go grey, so one line stands out among 30.
_ANY = f"(focus !== '' || length(data('{HOVER}_store')) > 0 || length(data('{PICK}_store')) > 0)"
_LIT = (
    "(datum.entrant === focus"
    f" || (length(data('{HOVER}_store')) > 0 && vlSelectionTest('{HOVER}_store', datum))"
    f" || (length(data('{PICK}_store')) > 0 && vlSelectionTest('{PICK}_store', datum)))"
)
LIT = f"!{_ANY} || {_LIT}"
SPOT = f"{_ANY} && {_LIT}"


def rating_spec(figures: EventFigures) -> dict[str, Any]:
    """The rating plot as a Vega-Lite spec: per entrant, TrueSkill's mu as a line, its ±σ band and mu − 3σ
    dashed for the entrant pointed at; pointing at a line or a name (or choosing one in the page's list,
    the ``focus`` signal) greys all the others, so the plot stays readable with 10–30 entrants."""
    series: dict[str, list[dict[str, Any]]] = {s.name: [] for s in figures.standings}
    for row in figures.history:
        series.setdefault(row.entrant, []).append(
            {
                "entrant": row.entrant,
                "game": row.seq + 1,
                "mu": round(row.mu, 3),
                "sigma": round(row.sigma, 3),
                "conservative": round(conservative(row.mu, row.sigma), 3),
            }
        )
    values = [point for rows in series.values() for point in _thin(rows)]
    names = [s.name for s in figures.standings]
    scale = {"domain": names, "scheme": "tableau20" if len(names) > 10 else "tableau10"}
    colour = {
        "condition": {"test": LIT, "field": "entrant", "type": "nominal", "scale": scale, "title": "entrant"},
        "value": "#cfd4dc",
    }
    x = {
        "field": "game",
        "type": "quantitative",
        "title": "game of the event (schedule order)",
        "axis": {"format": "d", "tickMinStep": 1},
    }
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "width": "container",
        "height": 340,
        "params": [{"name": "focus", "value": ""}],
        "data": {"values": values},
        "transform": [
            {"calculate": "datum.mu - datum.sigma", "as": "low"},
            {"calculate": "datum.mu + datum.sigma", "as": "high"},
        ],
        "encoding": {"x": x},
        "layer": [
            {
                "mark": {"type": "area"},
                "encoding": {
                    "y": {
                        "field": "low",
                        "type": "quantitative",
                        "title": "TrueSkill rating",
                        "scale": {"zero": False},
                    },
                    "y2": {"field": "high"},
                    "color": {"field": "entrant", "type": "nominal", "scale": scale},
                    "opacity": {"condition": {"test": SPOT, "value": 0.18}, "value": 0},
                },
            },
            {
                "mark": {"type": "line", "strokeWidth": 1.2, "strokeDash": [4, 3]},
                "encoding": {
                    "y": {"field": "conservative", "type": "quantitative"},
                    "color": {"field": "entrant", "type": "nominal", "scale": scale},
                    "opacity": {"condition": {"test": SPOT, "value": 0.9}, "value": 0},
                },
            },
            {
                "name": "mu",
                "mark": {"type": "line", "strokeWidth": 2},
                "params": [
                    {"name": PICK, "select": {"type": "point", "fields": ["entrant"]}, "bind": "legend"},
                    {
                        "name": HOVER,
                        "select": {
                            "type": "point",
                            "fields": ["entrant"],
                            "on": "pointerover",
                            "clear": "pointerout",
                        },
                        "bind": {"legend": "pointerover"},
                    },
                ],
                "encoding": {
                    "y": {"field": "mu", "type": "quantitative"},
                    "color": colour,
                    "opacity": {"condition": {"test": LIT, "value": 1}, "value": 0.5},
                    "strokeWidth": {"condition": {"test": SPOT, "value": 3.5}, "value": 1.6},
                    "tooltip": [
                        {"field": "entrant"},
                        {"field": "game"},
                        {"field": "mu", "format": ".2f"},
                        {"field": "sigma", "title": "σ", "format": ".2f"},
                        {"field": "conservative", "title": "mu − 3σ", "format": ".2f"},
                    ],
                },
            },
        ],
        "config": {
            "legend": {"orient": "right", "symbolOpacity": 1, "symbolType": "stroke"},
            "view": {"stroke": None},
        },
    }


def leaderboard(figures: EventFigures) -> dict[str, Any]:
    """The leaderboard as the page shows it: the rows (each with the CLI's JSON row in ``data``, for the
    browser test), the columns with their meanings, the sentence joining the places, and the key line."""
    conf = figures.confidence
    return {
        "rows": board.rows(figures),
        "columns": board.columns(conf),
        "score_label": wording.score_name(conf.method),
        "sentence": board.sentence(conf),
        "validity": wording.validity(conf),
        "summary": conf.summary(),
        "level": conf.level,
        "units": conf.units,
        "unit": conf.unit,
        "games": conf.games,
        "whole": conf.whole,
    }


def render_html(
    figures: EventFigures, replays: dict[str, Any], logs: bool = False, pairs: dict[str, Any] | None = None
) -> str:
    from jinja2 import Environment, PackageLoader, select_autoescape

    # Autoescaping makes a bot's words HTML-inert but leaves control characters, which a browser hides and
    # a terminal (``less report.html``, ``grep``) obeys: every plain-text value is printed through
    # ``printable`` too. Markup (the inlined scripts and styles, ``tojson``) is the arena's own.
    env = Environment(
        loader=PackageLoader("arena.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        finalize=lambda value: printable(value, lines=True) if type(value) is str else value,
    )
    env.filters["pct"] = lambda v: "–" if v is None else f"{v:.0%}"
    env.filters["num"] = lambda v, d=2: "–" if v is None else f"{v:.{d}f}"
    env.filters["json"] = _script_json
    env.filters["ms"] = _ms
    static = resources.files("arena.report") / "static"
    names = [s.name for s in figures.standings]
    return env.get_template("report.html.j2").render(
        meta=figures.meta,
        board=leaderboard(figures),
        names=names,
        entrants=[figures.entrants[n] for n in names if n in figures.entrants],
        h2h=figures.head_to_head,
        elo=board.elo_title,
        faults=figures.faults,
        kinds=fault_kinds(figures),
        games=figures.games,
        rating_spec=rating_spec(figures),
        replays=pack(replays),
        logs=logs,
        collusion=pairs,
        css=(static / "report.css").read_text(encoding="utf-8"),
        script=(static / "report.js").read_text(encoding="utf-8"),
        replay_script=(static / "replay.js").read_text(encoding="utf-8"),
        vendor=[_strip_map((static / "vendor" / f).read_text(encoding="utf-8"))
                for f in ("vega.min.js", "vega-lite.min.js")],
    )  # fmt: skip


def _ms(value: float) -> str:
    """A decision's time for people: "<0.1 ms", "2.5 ms", "140 ms"."""
    if value < 0.1:
        return "<0.1 ms"
    return f"{value:.1f} ms" if value < 10 else f"{value:.0f} ms"


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element (no ``</`` can end it early)."""
    from markupsafe import Markup

    return Markup(json.dumps(value, separators=(",", ":")).replace("</", "<\\/"))


def _strip_map(js: str) -> str:
    """Drop the source-map comment: the map is not in the page, and a browser would try to fetch it."""
    return "\n".join(line for line in js.splitlines() if not line.startswith("//# sourceMappingURL="))
