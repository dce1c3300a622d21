"""What passes between two bots through what no sandbox on one machine separates: ``python
bench/covert_channels.py [--bits 200] [--slots-ms 50,20,10] [--channels ...]`` (bounded: about bits x
slot per case, a few minutes in all with the defaults).

Why: the seccomp filter refuses every lock and file notification (docs/security.md, "No shared object a
bot can mark"), but two processes on one machine still share its CPUs, caches and kernel-wide counters,
and the wall clock to agree on time slots. This measures how many bits per second two processes get
through each, as a cheating pair of bots would use them:

* ``cpu-same-core``: the sender spins for a 1 and sleeps for a 0 in each time slot; the receiver, on the
  same CPU, counts how far its own loop got in the slot (the arena does not pin bots to CPUs; on a busy
  machine two bots often share one);
* ``cpu-any-core``: the same, not pinned;
* ``threads``: the sender holds 64 sleeping threads for a 1; the receiver reads the machine's thread count
  (``/proc/loadavg``, also ``sysinfo``), which every PID namespace shows;
* ``page-cache``: files every sandbox sees start out of the page cache (the bench drops them with
  ``posix_fadvise``; a bot finds files nobody read since boot); the sender reads the files of its 1 bits,
  the receiver times its first read of each file: one bit per file, once, no time slots.

Each case sends ``--bits`` random bits; the receiver decides each by a threshold (the median of what it
saw); the rate is the channel's capacity, (1 - H(error rate)) bits per slot, per second. The two
processes are plain processes here: a sandbox changes none of what they share (namespaces do not divide
CPU time, caches or these counters).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import random
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

THREADS = 64


def _sleep_until(t: float) -> None:
    while (left := t - time.time()) > 0:
        time.sleep(min(left, 0.002))


def _sender(kind: str, bits: list[int], start: float, slot: float, cpu: int | None) -> None:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    for i, bit in enumerate(bits):
        begin, end = start + i * slot, start + (i + 1) * slot
        _sleep_until(begin)
        if not bit:
            continue
        if kind == "threads":
            stop = threading.Event()
            held = [threading.Thread(target=stop.wait) for _ in range(THREADS)]
            for t in held:
                t.start()
            _sleep_until(end - slot * 0.1)
            stop.set()
            for t in held:
                t.join()
        else:
            while time.time() < end:
                pass


def _receiver(kind: str, n: int, start: float, slot: float, cpu: int | None, out: mp.Queue) -> None:
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    seen = []
    for i in range(n):
        begin, end = start + i * slot, start + (i + 1) * slot
        if kind == "threads":
            _sleep_until(begin + slot * 0.6)
            with open("/proc/loadavg") as f:
                seen.append(float(f.read().split()[3].split("/")[1]))
            continue
        _sleep_until(begin + slot * 0.1)
        count = 0
        while time.time() < end - slot * 0.1:
            count += 1
        seen.append(-count)  # fewer iterations: the sender was spinning
    out.put(seen)


def page_cache(n: int, seed: int) -> tuple[float, float]:
    """(bit error rate, bits per second) of the page-cache channel over ``n`` files of 64 KB."""
    rng = random.Random(seed)
    bits = [rng.randrange(2) for _ in range(n)]
    where = Path(tempfile.mkdtemp(dir="/var/tmp" if os.access("/var/tmp", os.W_OK) else None))
    try:
        files = []
        for i in range(n):
            path = where / f"f{i}"
            with path.open("wb") as f:
                f.write(os.urandom(64 * 1024))
                f.flush()
                os.fsync(f.fileno())
                os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)  # out of the cache: cold
            files.append(path)
        began = time.monotonic()
        sender = mp.Process(target=_read_ones, args=(files, bits))
        sender.start()
        sender.join()
        times = []
        for path in files:
            t = time.perf_counter()
            with path.open("rb") as f:
                f.read(4096)
            times.append(time.perf_counter() - t)
        elapsed = time.monotonic() - began
    finally:
        shutil.rmtree(where, ignore_errors=True)
    threshold = statistics.median(times)
    got = [int(t < threshold) for t in times]  # fast: cached, read by the sender
    errors = sum(a != b for a, b in zip(got, bits, strict=True)) / n
    return errors, (1 - _entropy(errors)) * n / elapsed


def _read_ones(files: list[Path], bits: list[int]) -> None:
    for path, bit in zip(files, bits, strict=True):
        if bit:
            path.read_bytes()


def _entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def measure(kind: str, n: int, slot_ms: float, seed: int) -> tuple[float, float]:
    """(bit error rate, capacity in bits per second) of one case."""
    rng = random.Random(seed)
    bits = [rng.randrange(2) for _ in range(n)]
    slot = slot_ms / 1000
    start = time.time() + 0.5
    cpu = sorted(os.sched_getaffinity(0))[0] if kind == "cpu-same-core" else None
    out: mp.Queue = mp.Queue()
    receiver = mp.Process(target=_receiver, args=(kind, n, start, slot, cpu, out))
    sender = mp.Process(target=_sender, args=(kind, bits, start, slot, cpu))
    receiver.start()
    sender.start()
    seen = out.get(timeout=60 + n * slot * 2)
    sender.join()
    receiver.join()
    threshold = statistics.median(seen)
    got = [int(v > threshold) for v in seen]
    errors = sum(a != b for a, b in zip(got, bits, strict=True)) / n
    errors = min(errors, 1 - errors) if errors > 0.5 else errors
    return errors, (1 - _entropy(errors)) / slot


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bits", type=int, default=200)
    parser.add_argument("--slots-ms", default="50,20,10")
    parser.add_argument("--channels", default="cpu-same-core,cpu-any-core,threads,page-cache")
    args = parser.parse_args()
    channels = args.channels.split(",")
    slots = [float(x) for x in args.slots_ms.split(",")]
    print(f"{'channel':15} {'slot ms':>7} {'errors':>7} {'bits/s':>7}")
    for kind in [c for c in channels if c != "page-cache"]:
        for slot_ms in slots:
            errors, rate = measure(kind, args.bits, slot_ms, seed=42)
            print(f"{kind:15} {slot_ms:7.0f} {errors:7.1%} {rate:7.1f}")
    if "page-cache" in channels:
        errors, rate = page_cache(args.bits, seed=42)
        print(f"{'page-cache':15} {'-':>7} {errors:7.1%} {rate:7.1f}")
    print(f"load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
