"""The server's CPU per page: ``python bench/server_page_cost.py [PATH ...]`` (default: three pages).

The pages: ``/healthz``, ``/``, ``/api/leaderboard``. Starts a real `arena serve` (no entrants: no ladder
plays), has 10 httpx clients on loopback ask for each path 2,000 times in all (each keeps its cookie, as a
browser does), twice, and reports the answers a second and the server process's CPU time per request (user
+ system, from /proc): what one page costs the event loop the ladder shares (docs/server.md, "Pages under
load"). The health check's handler does nothing, so its figure is uvicorn's own cost per request.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.server.conftest import ServerProcess, competition_toml

REQUESTS = 2000
CLIENTS = 10


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def ask(url: str, path: str) -> None:
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        await http.get(path)  # the cookie, and the page's first rendering

        async def client() -> None:
            for _ in range(REQUESTS // CLIENTS):
                response = await http.get(path)
                assert response.status_code == 200, (path, response.status_code)

        await asyncio.gather(*(client() for _ in range(CLIENTS)))


def main() -> None:
    paths = sys.argv[1:] or ["/healthz", "/", "/api/leaderboard"]
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), competition_toml("page-cost"))
        server.start()
        assert server.proc is not None
        try:
            for path in paths:
                for _ in range(2):
                    began, cpu = time.monotonic(), cpu_s(server.proc.pid)
                    asyncio.run(ask(server.url, path))
                    took, used = time.monotonic() - began, cpu_s(server.proc.pid) - cpu
                    print(
                        f"{path}: {REQUESTS / took:.0f} answers a second, the server's CPU "
                        f"{1000 * used / REQUESTS:.2f} ms a request (load average {os.getloadavg()[0]:.1f})"
                    )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
