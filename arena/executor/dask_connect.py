"""Joining a Dask cluster: the patience, the warnings and the errors of the ``dask`` executor's start
(``arena.executor.dask``), kept apart from the executor's playing."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import warnings
from pathlib import Path

import dask.config
from dask.utils import parse_timedelta

from arena.errors import ConfigError


def open_scheduler_warning(address: str) -> str | None:
    """One line of warning for a cluster joined over plain TCP (or WebSocket), or None: whoever reaches its
    port can run code on every worker as the worker's user, and the bots' entrants travel to them."""
    scheme, _, rest = address.partition("://")
    if scheme not in ("tcp", "ws"):
        return None
    host = rest.rsplit(":", 1)[0].strip("[]")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    reach = "every user of this machine" if loopback else f"anyone who can reach {host}"
    return (
        f"warning: the Dask scheduler {address} speaks plain {scheme}: {reach} can run code on its workers; "
        "secure it with TLS ([executor] tls_ca_file, tls_cert, tls_key; docs/scale-out.md)"
    )


def unreachable(why: str) -> ConfigError:
    """The error for a cluster the arena could not join. The half-made ``Client`` that Dask drops then
    warns at exit that its close was never awaited, under the arena's one line: those are not the
    organiser's to read."""
    warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
    return ConfigError(f"cannot reach the Dask cluster: {why}")


def connect_patience_s() -> float:
    """How long to wait to join a cluster: Dask's own connect timeout (``distributed.comm.timeouts.connect``,
    30 s unless set, e.g. by ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=5s``), the setting an operator of a
    Dask cluster already knows, rather than a knob of ours."""
    value = dask.config.get("distributed.comm.timeouts.connect", "30s")
    return float(parse_timedelta(value, default="seconds") or 30.0)


async def wait_for_scheduler_file(path: Path, patience_s: float) -> None:
    """Wait a while for a scheduler's file (the scheduler may be starting): Dask itself waits forever.

    :raises ConfigError: it did not appear (``start`` says the cluster cannot be reached).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience_s
    while not path.is_file():
        if loop.time() > deadline:
            raise ConfigError(f"no scheduler file {str(path)!r} after {patience_s:g} s")  # start's prefix
        await asyncio.sleep(0.2)


def quiet_dask_logs() -> None:
    """Dask's loggers to CRITICAL: the parent and every child Dask's logging config gave a level of its own
    (``distributed.client`` logs "Failed to reconnect to scheduler" at ERROR, past a quiet parent)."""
    manager = logging.Logger.manager
    names = ["distributed", *(n for n in list(manager.loggerDict) if n.startswith("distributed."))]
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL)
