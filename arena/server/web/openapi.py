"""The JSON API described as OpenAPI 3.1, served at ``/api/openapi.json``.

Each operation is described in its handler's docstring, after a ``---`` line, in YAML (Starlette's
``SchemaGenerator``), so a route and its description sit together and cannot be added one without the
other unnoticed: ``tests/server/ladder/test_pages.py`` checks that every ``/api/`` route is described and that
the document is valid OpenAPI (openapi-spec-validator). The shared shapes are declared once here.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute
from starlette.schemas import SchemaGenerator

_NUMBER_OR_NULL: dict[str, Any] = {"type": ["number", "null"]}

COMPONENTS: dict[str, Any] = {
    "securitySchemes": {
        "token": {
            "type": "http",
            "scheme": "bearer",
            "description": "an API token made on the entrant's page (/me); a new one replaces the old",
        }
    },
    "schemas": {
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {"error": {"type": "string", "description": "why, in words for a person"}},
        },
        "Standing": {
            "type": "object",
            "description": "one line of the leaderboard: an entrant's active version, ordered by TrueSkill's "
            "mu - 3 sigma; its place, tier and P are of the TrueSkill skill (docs/ranking.md)",
            "properties": {
                "rank": {"type": "integer", "description": "its row, 1 the first"},
                "place": {"type": "string", "description": "its rank range as printed: '1', '2–4'"},
                "entrant": {"type": "string"},
                "version": {"type": "string", "examples": ["v3"]},
                "score": {"type": "number", "description": "the order's number: TrueSkill mu - 3 sigma"},
                "rank_range": {
                    "type": "array",
                    "items": {"type": "integer"},
                    "description": "[lo, hi], 1-based, inclusive; at 0.95 for every entrant at once",
                },
                "tier": {
                    "type": "integer",
                    "description": "1 the best: each shown better than every lower tier",
                },
                "p_above_next": _NUMBER_OR_NULL | {"description": "P(its skill is above the next one's)"},
                "verdict_next": {"type": ["string", "null"], "enum": ["above", "open", None]},
                "settled_above_next": {"type": ["boolean", "null"]},
                "p_above": {
                    "type": "object",
                    "additionalProperties": {"type": "number"},
                    "description": "every other entrant's name: P(its skill is above that one's)",
                },
                "conservative": {"type": "number", "description": "TrueSkill mu - 3 sigma, the order"},
                "mu": {"type": "number"},
                "sigma": {"type": "number"},
                "games": {"type": "integer"},
                "points_per_hand": _NUMBER_OR_NULL | {"description": "beside the order, not setting it"},
                "description": {"type": "string", "description": "the entrant's words about its bot"},
            },
        },
        "Column": {
            "type": "object",
            "description": "a leaderboard column as the terminal, the report and the pages label it",
            "properties": {
                "key": {"type": "string", "description": "the row's key for it"},
                "label": {"type": "string"},
                "meaning": {"type": "string"},
            },
        },
        "Version": {
            "type": "object",
            "description": "one upload of an entrant, with its check",
            "properties": {
                "id": {"type": "integer"},
                "entrant": {"type": "string"},
                "version": {"type": "string", "examples": ["v1"]},
                "runtime": {"type": "string"},
                "filename": {"type": "string"},
                "size": {"type": "integer"},
                "created_at": {"type": "number", "description": "UTC seconds since the epoch"},
                "status": {"type": "string", "enum": ["queued", "checking", "passed", "failed"]},
                "active": {"type": "boolean", "description": "the version on the ladder"},
                "note": {"type": "string", "description": "the entrant's note, given on upload"},
                "check": {
                    "type": "object",
                    "description": "the check's findings: verdict, violations, latency p50/p99, stderr tail",
                },
                "queue_place": {"type": ["integer", "null"], "description": "place in the check queue"},
            },
        },
        "Leaderboard": {
            "type": "object",
            "properties": {
                "leaderboard": {"type": "array", "items": {"$ref": "#/components/schemas/Standing"}},
                "order": {"type": "string", "description": "how the order is made, and of what P is"},
                "sentence": {"type": "string", "description": "who is first, the tiers (the page's words)"},
                "columns": {"type": "array", "items": {"$ref": "#/components/schemas/Column"}},
                "games": {"type": "integer", "description": "ladder games stored"},
                "paused": {"type": "boolean"},
                "in_flight": {"type": "integer", "description": "games being played now"},
            },
        },
        "Final": {
            "type": "object",
            "description": "a sealed final: its state and frozen field; once done, its order",
            "properties": {
                "number": {"type": "integer"},
                "state": {"type": "string", "enum": ["running", "done", "failed"]},
                "frozen_at": {"type": "number", "description": "UTC seconds since the epoch"},
                "played": {"type": "integer", "description": "games played (while running: this process's)"},
                "stopped": {"type": ["string", "null"], "description": "why it ended: settled, budget"},
                "error": {"type": ["string", "null"]},
                "field": {"type": "array", "items": {"type": "object"}, "description": "who was frozen"},
                "leaderboard": {
                    "type": ["array", "null"],
                    "items": {"type": "object"},
                    "description": "once done: exactly `arena leaderboard --json` of the final's directory",
                },
                "sentence": {"type": ["string", "null"], "description": "who won, the tiers, the ties"},
                "confidence": {"type": ["object", "null"], "description": "the order's figures"},
            },
        },
        "Status": {
            "type": "object",
            "properties": {
                "entrant": {"type": "string"},
                "standing": {"oneOf": [{"$ref": "#/components/schemas/Standing"}, {"type": "null"}]},
                "versions": {"type": "array", "items": {"$ref": "#/components/schemas/Version"}},
                "limits": {
                    "type": "object",
                    "description": "what an upload may be ([submissions] of the competition)",
                    "properties": {"max_upload_kb": {"type": "integer"}},
                },
            },
        },
        "Match": {
            "type": "object",
            "description": "an unrated SPRT match (kind sprt) or challenge (kind challenge); never rated",
            "properties": {
                "id": {"type": "integer"},
                "kind": {"type": "string", "enum": ["sprt", "challenge"]},
                "entrant": {"type": "string"},
                "version": {"type": "string", "description": "the candidate, or the challenger's version"},
                "baseline": {"type": "string", "description": "an SPRT match's baseline"},
                "status": {"type": "string", "enum": ["running", "done"]},
                "decision": {
                    "type": "string",
                    "description": "a match: better, not better, undecided (its budget spent), running, or "
                    "stopped; a challenge: running or done",
                },
                "budget": {"type": "integer", "description": "deals (a match) or games (a challenge)"},
                "games": {"type": "integer", "description": "games stored so far"},
                "field": {"type": "array", "items": {"type": "string"}, "description": "the other seats"},
                "created_at": {"type": "number"},
                "finished_at": _NUMBER_OR_NULL,
                "sprt": {
                    "type": "object",
                    "description": "the test's settings (h0, h1, alpha, beta, min_deals) and its state: "
                    "deals, mean, sd, llr, lower, upper, result (H1, H0 or empty)",
                },
                "summary": {"type": "object", "description": "a challenge's figures for the challenger"},
                "results": {
                    "type": "array",
                    "items": {"type": "object"},
                    "description": "a challenge's games",
                },
            },
        },
        "GameLog": {
            "type": "object",
            "properties": {
                "game": {"type": "string"},
                "version": {"type": "string"},
                "recorded": {"type": "boolean", "description": "false: no span was recorded for the game"},
                "log": {"type": "string", "description": "the version's stderr during the game"},
                "after": {
                    "type": "string",
                    "description": "the log just after the game (the copy can lag: it may be the game's)",
                },
                "notes": {"type": "array", "items": {"type": "string"}},
                "overlapping": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "games of this version played at the same time, whose lines are here too",
                },
            },
        },
    },
}


def schema(routes: list[BaseRoute], version: str) -> dict[str, Any]:
    """The OpenAPI document of ``routes`` (the API's), from their handlers' docstrings."""
    base = {
        "openapi": "3.1.0",
        "info": {
            "title": "euchre-arena competition server",
            "version": version,
            "description": "The JSON API of `arena serve` (docs/server.md): `arena submit` and "
            '`arena status` use it. Errors are {"error": "..."} with the status codes of the pages.',
        },
        "components": COMPONENTS,
    }
    return SchemaGenerator(base).get_schema(routes)
