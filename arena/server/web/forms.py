"""A posted form's fields, read the one way every page and API route reads them: a text field cut to a
limit (a longer one is then refused by the service that checks its length, never silently kept), and a
whole number refused with 400 when it is not one."""

from __future__ import annotations

from starlette.datastructures import FormData

from arena.server.errors import Refused


def text(form: FormData, key: str, limit: int = 1000) -> str:
    """The field ``key`` as text, at most ``limit`` characters; "" when absent or a file."""
    value = form.get(key, "")
    return value[:limit] if isinstance(value, str) else ""


def whole_number(value: object, what: str) -> int:
    """:raises Refused: 400 not a whole number."""
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 12:
        return int(value)
    raise Refused(400, f"{what} must be a whole number")
