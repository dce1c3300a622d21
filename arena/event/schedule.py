"""The tournament schedule: rounds, tables, seating and duplicate blocks as a pure function of the seed.

Nothing here does I/O or reads a clock, and nothing uses ``random`` or ``hash()``: CPython promises neither a
stable ``shuffle``/``randrange`` across versions nor a stable string hash across processes, and a schedule
must come out identical on every machine so that a resumed event replays the same games under the same ids.
All randomness comes from :class:`_Stream`, BLAKE2b in counter mode keyed by the event seed (the same idea
as :mod:`arena.engine.dealing`).

The schedule is built round by round, and the random stream is consumed the same way whatever ``rounds`` is,
so an event extended by more rounds keeps every game it has already played (same ids, seats and seeds).

Balance comes from greedy local search, one round at a time, rather than from pure random seating:

* **Who plays**: the entrants who have played the most sit out (the games-per-entrant spread stays at most
  one table); among the tied ones, the choice is part of the pair search below, then the seeded stream.
* **Who sits together**: a few seeded random partitions are each improved by swapping players between
  tables (and between a table and the bench of tied sit-out candidates) while that lowers the sum over
  pairs of the squared number of shared tables; the best partition wins. Because
  ``(c + 1)**2 - c**2 = 2c + 1``, that sum grows least when the players seated together have shared few
  tables before, so the search minimises the sum of their current pair counts, a linear objective whose
  swap deltas cost O(1).
* **Who sits where**: within a table, the seat order that adds least to the sum of squared per-entrant
  seat counts, found exactly (seat 0 deals first, so the seat index is the position relative to the first
  dealer); ties go to the seeded stream.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from arena.errors import ConfigError
from arena.results.record import ScheduledGame

SEED_DOMAIN = "euchre-arena/game-seed/v1"
STREAM_DOMAIN = "euchre-arena/schedule/v1"
MIN_SEATS, MAX_SEATS = 4, 7

_RESTARTS = 4  # seeded random partitions per round, each improved by local search; the best is kept
_MAX_PASSES = 30  # a cap on improvement passes (the search stops earlier at a local minimum)


def game_seed(event_seed: int, key: str) -> int:
    """The deal seed of the game (or duplicate block) ``key`` in the event with ``event_seed``.

    A BLAKE2b digest rather than arithmetic on the event seed, so that seeds of neighbouring games are
    unrelated and the value is the same on every machine and Python; 63 bits so it fits a signed 64-bit
    column (SQLite INTEGER) without turning negative.
    """
    digest = hashlib.blake2b(f"{SEED_DOMAIN}:{event_seed}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


class _Stream:
    """Seeded random integers: BLAKE2b over (key, counter), each 64-byte digest read as eight 64-bit words.

    ``below(n)`` reduces a 64-bit word modulo ``n``; for ``n`` up to a few thousand the bias is below
    2**-50, far under anything a schedule could show, and it keeps the stream simple and portable.
    """

    __slots__ = ("_counter", "_key", "_words")

    def __init__(self, key: str) -> None:
        self._key = key
        self._counter = 0
        self._words: list[int] = []

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1``."""
        if not self._words:
            digest = hashlib.blake2b(f"{self._key}:{self._counter}".encode(), digest_size=64).digest()
            self._counter += 1
            self._words = [int.from_bytes(digest[i : i + 8], "big") for i in range(56, -8, -8)]
        return self._words.pop() % n

    def shuffle(self, items: list[int]) -> None:
        """Fisher-Yates in place, with our own indices (``random.shuffle`` may change between Pythons)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def make_schedule(
    entrants: Sequence[str],
    seats_per_table: int,
    rounds: int,
    seed: int,
    duplicate: bool = False,
    house: str = "house",
    partners: bool = False,
) -> list[ScheduledGame]:
    """Every game of the event, in ``seq`` order (round by round, table by table, rotation by rotation).

    Entrants are taken in sorted order, so the schedule depends on who enters, not on how the list was
    written. Each round seats them at ``len(entrants) // seats_per_table`` tables; the rest sit out. With
    fewer entrants than seats there is one table per round and the empty seats go to house bots
    ``f"{house}-1"``, ``f"{house}-2"``, ... (distinct names, so each seat is a distinct entrant in the
    standings). With ``duplicate``, each table becomes a block of ``seats_per_table`` consecutive games on
    the same deals, rotation ``k`` moving the player of seat ``s`` to seat ``(s + k) % seats_per_table``.
    With ``partners`` (classic euchre: seats 0+2 and 1+3 are partnerships) the seating also balances who
    partners whom over the event.

    :raises ConfigError: no entrants, a repeated or empty name, a house-bot name taken by an entrant,
        ``rounds < 1`` or ``seats_per_table`` outside 4..7.
    """
    names = _validate(entrants, seats_per_table, rounds, seed, house)
    n_seats = seats_per_table
    if len(names) < n_seats:
        names += [f"{house}-{k}" for k in range(1, n_seats - len(names) + 1)]
    m = len(names)
    n_tables = m // n_seats
    stream = _Stream(f"{STREAM_DOMAIN}:{seed}:{n_seats}:{m}")

    games = [0] * m  # tables played so far (blocks, in a duplicate event)
    pairs = [[0] * m for _ in range(m)]  # tables shared so far, symmetric
    seat_counts = [[0] * n_seats for _ in range(m)]  # games in each seat index
    partnered = [[0] * m for _ in range(m)]  # tables at which two entrants were partners, symmetric
    teams = partners and n_seats == 4

    schedule: list[ScheduledGame] = []
    for rnd in range(1, rounds + 1):
        tables = _partition(m, n_tables, n_seats, games, pairs, stream)
        for t, members in enumerate(tables, start=1):
            if teams:
                order = _team_seat_order(members, seat_counts, partnered, stream)
                for a, b in ((order[0], order[2]), (order[1], order[3])):
                    partnered[a][b] += 1
                    partnered[b][a] += 1
            else:
                order = _seat_order(members, seat_counts, stream)
            block = f"r{rnd:03d}-t{t:02d}"
            deal_seed = game_seed(seed, block)
            for a, b in combinations(order, 2):
                pairs[a][b] += 1
                pairs[b][a] += 1
            for player in order:
                games[player] += 1
            for rotation in range(n_seats if duplicate else 1):
                seats = [0] * n_seats
                for s, player in enumerate(order):
                    seats[(s + rotation) % n_seats] = player
                    seat_counts[player][(s + rotation) % n_seats] += 1
                schedule.append(
                    ScheduledGame(
                        seq=len(schedule),
                        game_id=block if rotation == 0 else f"{block}-d{rotation}",
                        round=rnd,
                        table=t,
                        block=block,
                        rotation=rotation,
                        seed=deal_seed,
                        seats=tuple(names[p] for p in seats),
                    )
                )
    return schedule


def _validate(entrants: Sequence[str], seats: int, rounds: int, seed: int, house: str) -> list[str]:
    """Check the arguments; returns the entrant names in canonical (sorted) order."""
    if isinstance(entrants, str):
        raise ConfigError(f"entrants={entrants!r}: expected a list of names, not one string")
    names = list(entrants)
    if not names:
        raise ConfigError("entrants=[]: a schedule needs at least 1 entrant")
    for name in names:
        if not isinstance(name, str) or not name:
            raise ConfigError(f"entrant name {name!r}: expected a non-empty string")
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise ConfigError(f"entrants: duplicate names {repeated!r}; every entrant needs its own name")
    if not isinstance(seats, int) or isinstance(seats, bool) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise ConfigError(f"seats_per_table={seats!r}: expected an integer {MIN_SEATS}..{MAX_SEATS}")
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
        raise ConfigError(f"rounds={rounds!r}: expected an integer of at least 1")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError(f"seed={seed!r}: expected an integer")
    if len(names) < seats:
        if not isinstance(house, str) or not house:
            raise ConfigError(f"house={house!r}: expected a non-empty name prefix for the house bots")
        fill = seats - len(names)
        taken = sorted(set(names) & {f"{house}-{k}" for k in range(1, fill + 1)})
        if taken:
            raise ConfigError(
                f"entrants {taken!r} clash with the house bots {house}-1..{house}-{fill} that fill the "
                f"empty seats; rename them or choose another house prefix"
            )
    return sorted(names)


def _partition(
    m: int, n_tables: int, n_seats: int, games: list[int], pairs: list[list[int]], stream: _Stream
) -> list[list[int]]:
    """This round's tables (lists of player indices): who plays, and who sits with whom.

    Sit-outs are the players with the most games; the tied group at the cut-off may trade places with
    players at a table. Among ``_RESTARTS`` locally optimal partitions the one whose players have shared the
    fewest tables before wins (the first on a tie, so the stream decides).
    """
    n_playing = n_tables * n_seats
    order = list(range(m))
    stream.shuffle(order)
    order.sort(key=lambda p: -games[p])  # stable: the shuffle breaks ties
    n_out = m - n_playing
    bench = order[:n_out]
    # players whose games equal the cut-off may sit out or play; others are fixed by the ±1 rule
    cut = games[bench[-1]] if bench else None
    movable = [games[p] == cut for p in range(m)]
    players = order[n_out:]

    best: list[list[int]] | None = None
    best_cost = 0
    for _ in range(_RESTARTS):
        start = list(players)
        stream.shuffle(start)
        tables = [start[i * n_seats : (i + 1) * n_seats] for i in range(n_tables)]
        cost = _improve(tables, list(bench), movable, pairs, m)
        if best is None or cost < best_cost:
            best, best_cost = tables, cost
    assert best is not None
    return best


def _improve(
    tables: list[list[int]], bench: list[int], movable: list[bool], pairs: list[list[int]], m: int
) -> int:
    """Swap players between tables (and with tied bench players) while that lowers the pair cost.

    ``into[p][t]`` is how many tables player ``p`` has shared with the current members of table ``t``; it
    makes the delta of a swap O(1) and is updated in O(players) when a swap is taken. Returns the final
    cost, the sum over seated pairs of their previous shared-table counts. Edits ``tables`` in place.
    """
    n_tables = len(tables)
    into = [[sum(row[x] for x in table) for table in tables] for row in pairs]

    def move(i: int, a: int, b: int) -> None:  # table i: a leaves, b joins
        for p in range(m):
            row = pairs[p]
            into[p][i] += row[b] - row[a]

    for _ in range(_MAX_PASSES):
        improved = False
        for i in range(n_tables):
            ti = tables[i]
            for j in range(i + 1, n_tables):
                tj = tables[j]
                for x, a in enumerate(ti):
                    ia, pa = into[a], pairs[a]
                    for y, b in enumerate(tj):
                        ib = into[b]
                        if ib[i] + ia[j] - ia[i] - ib[j] - 2 * pa[b] < 0:
                            ti[x], tj[y] = b, a
                            move(i, a, b)
                            move(j, b, a)
                            improved = True
                            a, ia, pa = b, ib, pairs[b]
            for x, a in enumerate(ti):
                if not movable[a]:
                    continue
                for y, b in enumerate(bench):
                    if movable[b] and into[b][i] - pairs[a][b] - into[a][i] < 0:
                        ti[x], bench[y] = b, a
                        move(i, a, b)
                        improved = True
                        a = b
        if not improved:
            break
    return sum(into[p][i] for i, table in enumerate(tables) for p in table) // 2


def _seat_order(members: list[int], seat_counts: list[list[int]], stream: _Stream) -> list[int]:
    """Players by seat index, the order that adds least to the sum of squared per-entrant seat counts.

    Putting a player in a seat where they sat ``c`` times adds ``2c + 1`` to that sum, so the best order is
    a minimum-cost assignment with costs ``c``. At most 7 players make an exact search cheap: a DP over the
    subsets of players already seated (at most 128 states), which beats improving a random order by swaps
    (that stops at local minima and left seat spreads a game wider). Players are shuffled first, and the DP
    keeps the first minimum it meets, so ties go to the seeded stream.
    """
    order = list(members)
    stream.shuffle(order)
    n = len(order)
    full = (1 << n) - 1
    best = [0] + [-1] * full  # best[mask]: least cost seating the players in mask at seats 0..popcount-1
    last = [0] * (full + 1)  # the player seated last (at seat popcount-1) on that best path
    for mask in range(full):
        cost = best[mask]
        if cost < 0:
            continue
        seat = mask.bit_count()
        for i in range(n):
            bit = 1 << i
            if not mask & bit:
                total = cost + seat_counts[order[i]][seat]
                nxt = mask | bit
                if best[nxt] < 0 or total < best[nxt]:
                    best[nxt], last[nxt] = total, i
    seats = [0] * n
    mask = full
    for seat in range(n - 1, -1, -1):
        i = last[mask]
        seats[seat] = order[i]
        mask ^= 1 << i
    return seats


PARTNER_WEIGHT = 2
"""In classic seating, one more game together as partners costs as much as two more games in one seat."""


def _team_seat_order(
    members: list[int], seat_counts: list[list[int]], partnered: list[list[int]], stream: _Stream
) -> list[int]:
    """Classic: the seating of four that adds least to seat counts plus weighted partner counts (of the
    24 orders, the first minimum after a seeded shuffle, so ties go to the stream)."""
    order = list(members)
    stream.shuffle(order)

    def cost(seats: tuple[int, ...]) -> int:
        placed = sum(seat_counts[p][s] for s, p in enumerate(seats))
        return placed + PARTNER_WEIGHT * (partnered[seats[0]][seats[2]] + partnered[seats[1]][seats[3]])

    best = min(permutations(order), key=cost)
    return list(best)


@dataclass(frozen=True, slots=True)
class ScheduleSpread:
    """How evenly a schedule shares out games, table companions and seats among the entrants.

    ``pair_counts`` counts games (so a duplicate block of N games counts N times), keyed by sorted name
    pairs, every pair present even at 0; ``seat_counts`` gives each entrant's games per seat index.
    """

    games_per_entrant: dict[str, int]
    pair_counts: dict[tuple[str, str], int]
    seat_counts: dict[str, tuple[int, ...]]
    partner_counts: dict[tuple[str, str], int] | None = None  # classic only: games as partners

    @property
    def games_min(self) -> int:
        return min(self.games_per_entrant.values(), default=0)

    @property
    def games_max(self) -> int:
        return max(self.games_per_entrant.values(), default=0)

    @property
    def pair_min(self) -> int:
        return min(self.pair_counts.values(), default=0)

    @property
    def pair_max(self) -> int:
        return max(self.pair_counts.values(), default=0)

    @property
    def seat_min(self) -> int:
        return min((c for counts in self.seat_counts.values() for c in counts), default=0)

    @property
    def seat_max(self) -> int:
        return max((c for counts in self.seat_counts.values() for c in counts), default=0)

    def render(self) -> str:
        """One line for a log or a report, e.g. ``games per entrant 8..9; pairs share a table 3..5 times;
        seats 1..3 per entrant and position``."""
        pairs = (
            f"pairs share a table {self.pair_min}..{self.pair_max} times" if self.pair_counts else "no pairs"
        )
        text = (
            f"games per entrant {self.games_min}..{self.games_max}; {pairs}; "
            f"seats {self.seat_min}..{self.seat_max} per entrant and position"
        )
        if self.partner_counts:
            values = self.partner_counts.values()
            text += f"; pairs are partners {min(values)}..{max(values)} times"
        return text


def schedule_spread(
    schedule: Sequence[ScheduledGame], entrants: Sequence[str], partners: bool = False
) -> ScheduleSpread:
    """The fairness report of ``schedule`` over ``entrants`` (names not listed, such as house bots, are
    left out; pass them too to see them). ``partners``: also count classic partnerships (seats 0+2, 1+3)."""
    names = list(dict.fromkeys(entrants))
    n_seats = max((len(g.seats) for g in schedule), default=0)
    games = dict.fromkeys(names, 0)
    seats = {name: [0] * n_seats for name in names}
    pair_counts: dict[tuple[str, str], int] = {pair: 0 for pair in combinations(sorted(names), 2)}
    partner_counts = dict.fromkeys(pair_counts, 0) if partners else None
    for game in schedule:
        if partner_counts is not None and len(game.seats) == 4:
            for a, b in ((game.seats[0], game.seats[2]), (game.seats[1], game.seats[3])):
                pair = (min(a, b), max(a, b))
                if pair in partner_counts:
                    partner_counts[pair] += 1
        present = sorted(name for name in game.seats if name in games)
        for s, name in enumerate(game.seats):
            if name in games:
                games[name] += 1
                seats[name][s] += 1
        for pair in combinations(present, 2):
            pair_counts[pair] += 1
    return ScheduleSpread(
        games_per_entrant=games,
        pair_counts=pair_counts,
        seat_counts={name: tuple(counts) for name, counts in seats.items()},
        partner_counts=partner_counts,
    )
