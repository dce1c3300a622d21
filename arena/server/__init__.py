"""The competition server (``arena serve``): entrants submit bots on a web page, get a verdict in seconds,
and climb a live ladder. docs/server.md is the organiser's walk-through; docs/architecture.md the map.

A folder per domain, each with its ``service`` (the work, no HTTP), its ``views`` (pages) and, where it has
one, its ``api`` (JSON); a domain's pages never import another's (the import contracts in pyproject.toml):

- ``accounts/`` people, sessions, links and API tokens; their pages (log in, sign-up, ``/me``).
- ``submissions/`` uploads and versions: ``unpack`` (safe archives), ``checks`` (the check queue).
- ``ladder/`` the matchmaker and its tables (``service``), the ratings (``ratings``), the stored games
  (``games``), a bot's stderr during one game (``gamelogs``), the exports (``export``).
- ``matches/`` unrated games: SPRT matches and challenges (``service``, ``plans``).
- ``finals/`` the sealed final.  ``live/`` the tables in flight.  ``analytics/`` an entrant's figures.
- ``admin/`` the organiser's page and actions.

Shared below them: ``settings`` (the competition's TOML), ``db/`` (``models``, ``database``, ``multi``:
several processes on one PostgreSQL database, ``migrations/``), ``access`` (every rule of who may see and
do what), ``errors`` (``Refused``: a refusal with its HTTP status). Above them: ``wiring`` (``Server``: the
parts wired into one), ``web/`` (what every page shares: ``site`` the visitor, sessions, CSRF and
templates; ``forms``, ``plots``, ``cache``, ``budget``, ``middleware``, ``openapi``, ``api`` (the API's
description), ``templates/``, ``static/``) and ``app`` (the ASGI app: every route, and ``serve``).
`arena submit`'s HTTP client is ``arena.cli.client``.
"""
