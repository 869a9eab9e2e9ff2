"""The guess limiter: per address, per address block and per device, never global; counted before
checked; a right guess forgiven."""

from __future__ import annotations

import pytest

from webpanel.config import PanelSettings
from webpanel.guesses import GuessLimiter, GuessPolicy, TooManyGuesses, address_keys


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def limiter(clock: Clock, **kwargs: int) -> GuessLimiter:
    return GuessLimiter(
        address=GuessPolicy(free=3, window=3600, max_delay=900),
        block=GuessPolicy(free=6, window=3600, max_delay=900),
        clock=clock,
        **kwargs,
    )


def refused(limits: GuessLimiter, address: str, device: str | None = None) -> int:
    with pytest.raises(TooManyGuesses) as caught:
        limits.attempt(address, device=device)
    return caught.value.retry_after


def test_the_delay_doubles_after_the_free_guesses_up_to_its_cap() -> None:
    policy = GuessPolicy(free=3, window=3600, max_delay=900)
    assert [policy.delay(n) for n in range(3)] == [0, 0, 0]
    assert [policy.delay(n) for n in range(3, 8)] == [1, 2, 4, 8, 16]
    assert policy.delay(13) == 900 and policy.delay(10**6) == 900


def test_an_address_waits_after_its_free_guesses(clock: Clock) -> None:
    limits = limiter(clock)
    for _ in range(3):
        limits.attempt("192.0.2.7")
    assert refused(limits, "192.0.2.7") == 1
    clock.now += 1
    limits.attempt("192.0.2.7")
    assert refused(limits, "192.0.2.7") == 2
    assert limits.retry_after("192.0.2.7") == 2
    clock.now += 3600  # the window passes: the guesses no longer count
    assert limits.retry_after("192.0.2.7") == 0


def test_other_addresses_are_never_held_back_by_one_guesser(clock: Clock) -> None:
    limits = limiter(clock)
    for _ in range(3):
        limits.attempt("192.0.2.7")
    refused(limits, "192.0.2.7")
    # Another address of the block, and any address of another block, guess at once.
    limits.attempt("192.0.2.8")
    limits.attempt("198.51.100.1")


def test_no_global_limit_however_many_blocks_guess(clock: Clock) -> None:
    limits = limiter(clock)
    for block in range(500):
        for _ in range(3):
            limits.attempt(f"10.{block // 250}.{block % 250}.1")
    limits.attempt("203.0.113.9")  # the staff's address: 1,500 wrong guesses elsewhere change nothing


def test_a_block_holds_back_a_guesser_that_turns_up_with_new_addresses(clock: Clock) -> None:
    limits = limiter(clock)
    for host in range(1, 7):
        limits.attempt(f"192.0.2.{host}")
    assert refused(limits, "192.0.2.200") == 1  # the block's six are spent


def test_ipv6_addresses_are_grouped_by_their_64(clock: Clock) -> None:
    assert address_keys("2001:db8:1:2::a") == ("a:2001:db8:1:2::a", "b:2001:db8:1:2::/64")
    assert address_keys("::ffff:192.0.2.7") == ("a:192.0.2.7", "b:192.0.2.0/24")
    assert address_keys("unknown") == ("a:unknown", "b:unknown")
    limits = limiter(clock)
    for host in range(1, 7):
        limits.attempt(f"2001:db8:1:2::{host:x}")
    refused(limits, "2001:db8:1:2:ffff::1")
    limits.attempt("2001:db8:1:3::1")


def test_a_right_guess_clears_its_address_but_not_its_block(clock: Clock) -> None:
    limits = limiter(clock)
    for _ in range(3):
        limits.attempt("192.0.2.9")
    refused(limits, "192.0.2.9")
    clock.now += 1
    limits.forgive(limits.attempt("192.0.2.9"))
    assert limits.retry_after("192.0.2.9") == 0  # the address starts afresh
    for host in (1, 2, 3):
        limits.attempt(f"192.0.2.{host}")
    # The block still counts the three misses (and not the forgiven try): 3 + 3 = its six.
    assert refused(limits, "192.0.2.77") == 1


def test_a_known_device_is_limited_as_itself_not_as_its_network(clock: Clock) -> None:
    limits = limiter(clock)
    for host in range(1, 7):
        limits.attempt(f"192.0.2.{host}")
    refused(limits, "192.0.2.50")
    limits.attempt("192.0.2.50", device="tablet-1")  # the block is spent; the staff tablet is not
    for _ in range(2):
        limits.attempt("192.0.2.50", device="tablet-1")
    assert refused(limits, "192.0.2.50", device="tablet-1") == 1
    limits.attempt("192.0.2.50", device="tablet-2")


def test_memory_is_bounded_however_many_addresses_guess(clock: Clock) -> None:
    limits = limiter(clock, max_keys=100)
    for host in range(1000):
        limits.attempt(f"2001:db8:{host:x}::1")
    assert len(limits._guesses) <= 100


def test_the_default_limits_keep_a_six_digit_pin_out_of_reach_for_years() -> None:
    settings = PanelSettings()
    address = GuessPolicy(
        free=settings.login_attempts, window=settings.login_window_seconds,
        max_delay=settings.login_max_delay_seconds,
    )
    block = GuessPolicy(
        free=4 * settings.login_attempts, window=settings.login_window_seconds,
        max_delay=settings.login_max_delay_seconds,
    )
    day = 86400
    per_address, per_block = address.most_guesses(day), block.most_guesses(day)
    assert per_address <= 400 and per_block <= 700, (per_address, per_block)
    # Half of a million PINs, at the pace of a whole block of addresses:
    assert 10**6 / 2 / per_block > 365
    # The staff never notice: five mistakes in a row go through at once.
    assert [address.delay(n) for n in range(settings.login_attempts)] == [0] * settings.login_attempts
