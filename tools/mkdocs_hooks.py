"""MkDocs hooks of the documentation site (mkdocs.yml): pages for the files outside docs/ that docs link to.

Why: the pages in docs/ are read both on the repository, where ``../proto/arena/protocol/v1/player.proto``
is a file, and on the site, where nothing outside docs/ exists and ``mkdocs build --strict`` rightly fails
on such a link. So the site gets a page for each such target (the .proto, the example configurations),
generated from the file itself at build time so it can never go stale, and the links are pointed at
those pages. A link to anything else outside docs/ still fails the strict build: add it to ``OUTSIDE``.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
PROTO = "proto/arena/protocol/v1/player.proto"
OUTSIDE = {PROTO: "player-proto.md", "examples": "examples.md", "examples/": "examples.md"}
"""Repository path (relative to its root) of a link target outside docs/ -> the site page standing for it."""
_LINK = re.compile(r"\]\((\.\./[^)#\s]+)(#[^)\s]*)?\)")


def _proto_page() -> str:
    return (
        "# player.proto\n\n"
        f"The contract of the player protocol, `{PROTO}` as it is in this version of the repository: every "
        "message and field is documented in its comments. The call flow and the rules of engagement are in "
        "[the player protocol](protocol.md).\n\n"
        f"```protobuf\n{(ROOT / PROTO).read_text()}```\n"
    )


def _examples_page() -> str:
    parts = [
        "# Example configurations\n\n"
        "The tournament files in `examples/`; every key is explained in "
        "[the configuration reference](config.md). Run one with `arena run examples/NAME.toml`.\n"
    ]
    for path in sorted((ROOT / "examples").glob("*.toml")):
        parts.append(f"\n## {path.name}\n\n```toml\n{path.read_text()}```\n")
    return "".join(parts)


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, "player-proto.md", content=_proto_page()))
    files.append(File.generated(config, "examples.md", content=_examples_page()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    page_dir = posixpath.dirname(page.file.src_uri)

    def repoint(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join("docs", page_dir, match.group(1)))
        site_page = OUTSIDE.get(target) or OUTSIDE.get(target + "/")
        if site_page is None:
            return match.group(0)  # left as it is: the strict build reports it
        return f"]({posixpath.relpath(site_page, page_dir or '.')}{match.group(2) or ''})"

    return _LINK.sub(repoint, markdown)
