"""Settings declared once, as data: each option's check, default and one-line doc sit on its dataclass field.

A section of the configuration (``[faults]``, ``[ranking]``, ``[executor]``, an ``[[entrant]]``, the top
level) is a frozen dataclass whose fields are declared with :func:`option`. The generic functions here then
check a raw table against those declarations (:func:`parse`, :func:`check`, :func:`settle`), list its keys
(:func:`keys`) and give back the plain dict that is stored with each event (:func:`to_dict`), so a key's
name, rule and default are written once. Adding an option is one field::

    pause_ms: int = option(0, Range(0, 60_000), "a pause before each game")

and the checker, ``to_dict``, the unknown-key message and the docs test (tests/event/test_config_docs.py)
pick it up. Rules between fields (exactly one of ``address``/``command``/``class``, ``workers`` against
``scheduler`` ...) stay as named checks beside the section that has them.

Every check's message is ``{path}={value!r}: expected {expected}``, and ``expected`` is also the "allowed"
column of docs/config.md, so what an organiser is told and what the reference says are the same words.

This module sits at the bottom of the house (it imports only ``arena.errors``) because both ``arena.event``
and ``arena.stats`` (the leaderboard reads ``[ranking]`` back from stored events, and may not import the
event layer) declare their options with it.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any, Literal, Protocol

from arena.errors import ConfigError
from arena.userfiles import CONFIG_LIMIT, read_user_text

OPTION = "arena.option"
SECTION = "arena.section"
REQUIRED: Any = dataclasses.MISSING
"""The default of an option that has none: the section cannot be built without it."""


class Check(Protocol):
    """What an option allows: called with a raw value, it returns the value as stored or raises."""

    @property
    def expected(self) -> str:
        """What is allowed, in the words of the error message and of the docs' "allowed" column."""
        ...

    def __call__(self, value: Any, path: str) -> Any: ...


def _bad(path: str, value: Any, expected: str) -> ConfigError:
    return ConfigError(f"{path}={value!r}: expected {expected}")


@dataclass(frozen=True, slots=True)
class Range:
    """A number between two bounds (``None``: no bound on that side). Booleans are not numbers here,
    though Python counts them as integers: ``decision_ms = true`` is a typo, not 1 ms."""

    lo: int | float | None
    hi: int | float | None
    noun: str = "an integer"
    integer: bool = True
    open_lo: bool = False
    open_hi: bool = False
    note: str = ""  # appended to ``expected``, e.g. " (1 = plain bootstrap)"
    to_float: bool = False  # stored as a float even when written as an integer

    @property
    def expected(self) -> str:
        if self.lo is None and self.hi is None:
            text = self.noun
        elif self.hi is None:
            text = f"at least {self.lo}"
        elif self.lo is None:
            text = f"at most {self.hi}"
        elif not (self.open_lo or self.open_hi):
            text = f"{self.noun} {self.lo}..{self.hi}"
        else:
            left, right = "(" if self.open_lo else "[", ")" if self.open_hi else "]"
            text = f"{self.noun} in {left}{self.lo}, {self.hi}{right}"
        return text + self.note

    def __call__(self, value: Any, path: str) -> Any:
        kinds = int if self.integer else (int, float)
        if not isinstance(value, kinds) or isinstance(value, bool) or not self._within(value):
            raise _bad(path, value, self.expected)
        return float(value) if self.to_float else value

    def _within(self, value: float) -> bool:
        above = self.lo is None or (value > self.lo if self.open_lo else value >= self.lo)
        below = self.hi is None or (value < self.hi if self.open_hi else value <= self.hi)
        return above and below


@dataclass(frozen=True, slots=True)
class Flag:
    """``true`` or ``false``, nothing that merely looks like one."""

    expected: str = "true or false"

    def __call__(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise _bad(path, value, self.expected)
        return value


@dataclass(frozen=True, slots=True)
class OneOf:
    """One of a few words; with an enum class, the value is stored as its member.

    ``listing`` is how the message lists them: ``quoted`` (``one of 'a', 'b'``), ``plain`` (``one of a,
    b``) or ``either`` (``'a' or 'b'``).
    """

    choices: type[StrEnum] | tuple[str, ...]
    listing: Literal["quoted", "plain", "either"] = "quoted"

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.choices)

    @property
    def expected(self) -> str:
        if self.listing == "plain":
            return f"one of {', '.join(self.values)}"
        quoted = [repr(v) for v in self.values]
        if self.listing == "either":
            return f"{', '.join(quoted[:-1])} or {quoted[-1]}"
        return f"one of {', '.join(quoted)}"

    def __call__(self, value: Any, path: str) -> Any:
        if not isinstance(value, str) or value not in self.values:
            raise _bad(path, value, self.expected)
        return self.choices(value) if isinstance(self.choices, type) else value


@dataclass(frozen=True, slots=True)
class Text:
    """A non-empty string, optionally matching ``pattern``."""

    expected: str = "a non-empty string"
    pattern: re.Pattern[str] | None = None

    def __call__(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value or (self.pattern and not self.pattern.match(value)):
            raise _bad(path, value, self.expected)
        return value


@dataclass(frozen=True, slots=True)
class Parsed:
    """A value with a parser of its own (a hex key, a table of names), which raises its own message."""

    parse: Callable[[Any, str], Any]
    expected: str

    def __call__(self, value: Any, path: str) -> Any:
        return self.parse(value, path)


@dataclass(frozen=True, slots=True)
class Option:
    """One declared setting: how it is checked, its default (``REQUIRED``: none), what it is for.

    ``dump`` turns the held value into its stored form (a ``Path`` into its text); ``shown`` is the default
    as the docs write it, where the plain value says too little (``results/<name>``).
    """

    check: Check
    doc: str
    default: Any = REQUIRED
    dump: Callable[[Any], Any] | None = None
    shown: str | None = None

    @property
    def shown_default(self) -> str:
        """The default as docs/config.md's "default" column writes it (a TOML literal, or ``shown``)."""
        if self.shown is not None:
            return self.shown
        value = self.default.value if isinstance(self.default, Enum) else self.default
        if value is REQUIRED:
            return "required"
        if value is None or value == ():
            return "–"
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, str):
            return f'"{value}"'
        return repr(value)


def option(
    default: Any = REQUIRED,
    check: Check | None = None,
    doc: str = "",
    *,
    dump: Callable[[Any], Any] | None = None,
    shown: str | None = None,
    repr: bool = True,
) -> Any:
    """A dataclass field declared as an option (see the module's docstring)."""
    if check is None:
        raise TypeError("an option needs a check")
    meta = {OPTION: Option(check, doc, default, dump, shown)}
    return dataclasses.field(default=default, metadata=meta, repr=repr)


def section(default_factory: Callable[[], Any] | None = None) -> Any:
    """A dataclass field that holds a whole section (a value with its own ``to_dict``, or a tuple of them)."""
    if default_factory is None:
        return dataclasses.field(metadata={SECTION: True})
    return dataclasses.field(default_factory=default_factory, metadata={SECTION: True})


def declared(cls: type) -> Iterator[tuple[str, Option]]:
    """The options of a section, in field order (the order of its keys, its messages and its stored dict)."""
    for f in dataclasses.fields(cls):
        if OPTION in f.metadata:
            yield f.name, f.metadata[OPTION]


def keys(cls: type) -> tuple[str, ...]:
    return tuple(name for name, _ in declared(cls))


def declaration(cls: type, key: str) -> Option:
    for name, opt in declared(cls):
        if name == key:
            return opt
    raise KeyError(key)


def _path(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def check(cls: type, key: str, value: Any, where: str = "") -> Any:
    """One value of option ``key`` of ``cls``, checked and as stored; ``where`` is the section's path.

    ``None`` passes where it is the option's default (it means "not set": a flag the command line did not
    give), and is refused elsewhere (an ``[[entrant]]`` without a ``name``).
    """
    opt = declaration(cls, key)
    if value is None and opt.default is None:
        return None
    return opt.check(value, _path(where, key))


def reject_unknown(raw: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """:raises ConfigError: ``raw`` has a key that is not in ``allowed`` (a typo must not go unseen)."""
    allowed = tuple(allowed)
    for key in raw:
        if key not in allowed:
            raise ConfigError(f"unknown key {where}.{key}: allowed keys are {', '.join(allowed)}")


def parse(cls: type, raw: Mapping[str, Any], where: str, only: Iterable[str] | None = None) -> dict[str, Any]:
    """The options of ``cls`` (or just those in ``only``) that ``raw`` gives, each checked and as stored,
    in declaration order; options ``raw`` does not give are left out (the dataclass's defaults fill them).
    Unknown keys are the caller's to refuse (:func:`reject_unknown`): their messages differ by section.
    """
    wanted = keys(cls) if only is None else tuple(only)
    return {key: check(cls, key, raw[key], where) for key in wanted if key in raw}


def settle(obj: Any, where: str) -> None:
    """Check every option of a section built in code (from ``__post_init__``) and hold each value as its
    check stores it (an enum member, a float), so a value built in code and one read from a file agree."""
    for key, opt in declared(type(obj)):
        value = getattr(obj, key)
        held = opt.check(value, _path(where, key)) if not (value is None and opt.default is None) else None
        if held is not value:
            object.__setattr__(obj, key, held)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def to_dict(obj: Any) -> dict[str, Any]:
    """The stored form of a section: its options (through ``dump``; enum members as their text) and its
    sections, in field order. This is what each event's database holds, so its keys and their order are
    part of the stored format."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if OPTION in f.metadata:
            dump = f.metadata[OPTION].dump
            out[f.name] = _plain(dump(value) if dump is not None else value)
        elif SECTION in f.metadata:
            out[f.name] = [v.to_dict() for v in value] if isinstance(value, tuple) else value.to_dict()
    return out


def read_toml(path: Path, noun: str = "config file") -> dict[str, Any]:
    """A TOML file read into a mapping (a tournament's config, a competition's): one place for the three
    ways it can fail, each one ``ConfigError`` naming the file.

    :raises ConfigError: the file is missing, unreadable, not a regular file (``/dev/zero``, a FIFO), larger
        than :data:`~arena.userfiles.CONFIG_LIMIT`, or not valid TOML.
    """
    text = read_user_text(path, noun, CONFIG_LIMIT)  # checked before it is read (arena.userfiles)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{noun} {str(path)!r} is not valid TOML: {exc}") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables by recursion: a few hundred levels exhaust the
        # stack. No option nests more than two deep, so such a file is never a config.
        raise ConfigError(f"{noun} {str(path)!r} nests arrays or tables too deeply to be read") from None
