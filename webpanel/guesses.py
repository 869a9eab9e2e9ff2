"""Slowing guessers down without locking anyone else out: staff PINs and lobby join codes.

A guess is counted against each *key* of the client that makes it: its
address, its address block (the /24 of an IPv4 address, the /64 of an IPv6
one: what one household, one phone or one attacker holds) and, for a staff
device that logged in before, that device. Never against everybody: there is
no global count, so nobody elsewhere can make the right PIN wait.

Each key follows a :class:`GuessPolicy`: its first ``free`` guesses within
``window`` seconds go through at once; after that every guess must wait after
the previous one, one second at first, twice as long at each further guess,
never more than ``max_delay``. A person who mistypes twice never notices; a
guesser gets a few dozen tries an hour per address and per block
(:meth:`GuessPolicy.most_guesses` counts them), so a PIN of six digits stays
out of reach for years, while the staff pay nothing: the delay is the
guesser's own, and a right guess clears the address's and device's counts.

A guess is counted when it is let through, before it is checked
(:meth:`GuessLimiter.attempt`), under one lock: 40 guesses sent at once
from one address meet the same count as 40 sent one by one. A right guess is
then forgiven (:meth:`GuessLimiter.forgive`).
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

IPV4_BLOCK = 24
IPV6_BLOCK = 64
MAX_KEYS = 50_000
"""Keys remembered at most (the least recently used are forgotten first): bounded memory
whatever the number of addresses a guesser turns up with."""


@dataclass(frozen=True)
class GuessPolicy:
    """How many guesses one key may make, and how fast."""

    free: int
    """Guesses within ``window`` that need no wait."""
    window: float
    """Seconds a guess counts against its key."""
    max_delay: float
    """The longest wait between two guesses of one key (s)."""
    first_delay: float = 1.0
    """The wait after the first guess over ``free`` (s), doubled at each further guess."""

    def delay(self, counted: int) -> float:
        """The wait after the last guess for a key with *counted* guesses in the window."""
        if counted < self.free:
            return 0.0
        # Beyond 2**60 the doubling has long passed any max_delay: no float overflow.
        return min(self.max_delay, self.first_delay * 2.0 ** min(counted - self.free, 60))

    def most_guesses(self, seconds: float) -> int:
        """How many guesses a guesser who tries again the moment it may gets in *seconds* (one key)."""
        times: deque[float] = deque()
        now, made = 0.0, 0
        while True:
            while times and times[0] <= now - self.window:
                times.popleft()
            opens = times[-1] + self.delay(len(times)) if times else 0.0
            if opens > now:
                # Waiting: either the delay passes, or the oldest guess leaves the window first.
                now = min(opens, times[0] + self.window) if times else opens
                continue
            if now >= seconds:
                return made
            times.append(now)
            made += 1


class TooManyGuesses(Exception):
    """The client must wait ``retry_after`` seconds before its next guess."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"try again in {retry_after} s")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Attempt:
    """A guess let through and counted: the keys it was counted against, and when."""

    keys: tuple[str, ...]
    at: float
    clearable: tuple[str, ...]
    """The keys a right guess clears (the address, the device: not the whole block)."""


@functools.lru_cache(maxsize=4096)  # asked at every request that carries a token: parsed once per address
def address_keys(address: str) -> tuple[str, str]:
    """The address and its block as keys ("a:192.0.2.7", "b:192.0.2.0/24")."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return f"a:{address}", f"b:{address}"  # not an IP (a test client, a socket): its own block
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:192.0.2.7 is 192.0.2.7
    prefix = IPV4_BLOCK if ip.version == 4 else IPV6_BLOCK
    block = ipaddress.ip_network(f"{ip}/{prefix}", strict=False)
    return f"a:{ip}", f"b:{block}"


class GuessLimiter:
    """Guesses per address, per address block and per known device, each with its policy.

    A request from a known device (one that logged in before, see
    :mod:`webpanel.auth`) is limited as that device only: a guesser on the same
    network cannot make it wait.
    """

    def __init__(
        self,
        *,
        address: GuessPolicy,
        block: GuessPolicy,
        device: GuessPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.policies = {"a": address, "b": block, "d": device or address}
        self.clock = clock
        self.max_keys = max_keys
        self._guesses: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def attempt(self, address: str, *, device: str | None = None) -> Attempt:
        """Count a guess from *address* (or the known *device*) now, or raise :class:`TooManyGuesses`."""
        if device is not None:
            keys: tuple[str, ...] = (f"d:{device}",)
            clearable = keys
        else:
            address_key, block_key = address_keys(address)
            keys, clearable = (address_key, block_key), (address_key,)
        with self._lock:
            now = self.clock()
            wait = max(self._wait(key, now) for key in keys)
            if wait > 0:
                raise TooManyGuesses(max(1, math.ceil(wait)))
            for key in keys:
                self._guesses.setdefault(key, deque()).append(now)
                self._guesses.move_to_end(key)
            while len(self._guesses) > self.max_keys:
                self._guesses.popitem(last=False)
        return Attempt(keys=keys, at=now, clearable=clearable)

    def forgive(self, attempt: Attempt) -> None:
        """A right guess: it does not count, and its address's (device's) earlier misses are cleared."""
        with self._lock:
            for key in attempt.keys:
                if key in attempt.clearable:
                    self._guesses.pop(key, None)
                    continue
                times = self._guesses.get(key)
                if times is not None:
                    with contextlib.suppress(ValueError):  # already out of the window
                        times.remove(attempt.at)

    def retry_after(self, address: str, *, device: str | None = None) -> int:
        """Seconds before *address* (or *device*) may guess again (0: now); counts nothing."""
        keys = (f"d:{device}",) if device is not None else address_keys(address)
        with self._lock:
            now = self.clock()
            wait = max(self._wait(key, now) for key in keys)
        return max(1, math.ceil(wait)) if wait > 0 else 0

    def _wait(self, key: str, now: float) -> float:
        times = self._guesses.get(key)
        if not times:
            return 0.0
        policy = self.policies[key[0]]
        while times and times[0] <= now - policy.window:
            times.popleft()
        if not times:
            del self._guesses[key]
            return 0.0
        return times[-1] + policy.delay(len(times)) - now
