"""Classic single-station formulas against independent evaluations."""

import math

import numpy as np
import pytest

from straggler.engines.analysis import queues


def test_mm1_from_pollaczek_khinchine():
    lam, mu = 0.7, 1.0
    t = queues.mg1_fcfs_response_time(lam, 1 / mu, 2 / mu**2)
    assert t == pytest.approx(1 / (mu - lam), rel=1e-12)


def test_md1_waiting_time():
    lam = 0.5
    assert queues.mg1_waiting_time(lam, 1.0, 1.0) == pytest.approx(lam / (2 * (1 - lam)))


def test_overload_and_infinite_moment_give_inf():
    assert math.isinf(queues.mg1_waiting_time(1.2, 1.0, 2.0))
    assert math.isinf(queues.mg1_waiting_time(0.5, 1.0, math.inf))
    assert math.isinf(queues.mg1_ps_slowdown(1.0, 1.0))


def _erlang_c_direct(c, a):
    """Erlang C from the stationary distribution of the M/M/c birth-death chain."""
    n = 3000  # truncation error ~ (a/c)^n
    w = np.empty(n)
    w[0] = 1.0
    for k in range(1, n):
        w[k] = w[k - 1] * a / min(k, c)
    w /= w.sum()
    return w[c:].sum()


@pytest.mark.parametrize("c,a", [(1, 0.5), (2, 1.5), (5, 3.5), (5, 4.8), (10, 7.0)])
def test_erlang_c_against_birth_death_chain(c, a):
    assert queues.erlang_c(c, a) == pytest.approx(_erlang_c_direct(c, a), rel=1e-9)


def test_mmc_with_one_server_is_mm1():
    assert queues.mmc_response_time(0.6, 1.0, 1) == pytest.approx(1 / 0.4)
    assert queues.erlang_c(1, 0.6) == pytest.approx(0.6, rel=1e-15)  # M/M/1 waits w.p. rho
    assert queues.mmc_waiting_time(0.6, 1.0, 1) == pytest.approx(0.6 / 0.4)


def _chain_law(a, c, n=20_000):
    """The stationary law of the M/M/c birth-death chain (offered load a), solved in log
    space (so that large c does not overflow) and truncated at n states, where
    (a / c)^n is negligible."""
    log_w = np.zeros(n)
    for k in range(1, n):
        log_w[k] = log_w[k - 1] + math.log(a / min(k, c))
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


def _mmc_chain_response_time(lam, mu, c):
    """E[T] of M/M/c by Little's law on the chain: E[N] / lambda."""
    w = _chain_law(lam / mu, c)
    return float(np.arange(len(w)) @ w) / lam


@pytest.mark.parametrize("lam,mu,c", [(0.9, 1.0, 3), (2.1, 0.7, 4), (6.0, 1.0, 10), (900.0, 1.0, 1000)])
def test_mmc_response_time_against_birth_death_chain(lam, mu, c):
    assert queues.mmc_response_time(lam, mu, c) == pytest.approx(_mmc_chain_response_time(lam, mu, c), rel=1e-9)


def test_mm3_value_quoted_by_the_issue():
    # M/M/3, mean size 1, load 0.3 (lambda = 0.9): the simulation measured 1.03314
    assert queues.mmc_response_time(0.9, 1.0, 3) == pytest.approx(1.0333470564, rel=1e-10)


def test_erlang_c_stays_finite_at_many_servers():
    # the direct sum of a^k / k! overflows here; Erlang B's recursion does not
    for c, a in [(1000, 900.0), (10_000, 9900.0)]:
        value = queues.erlang_c(c, a)
        assert 0.0 < value < 1.0
    assert queues.erlang_c(1000, 900.0) == pytest.approx(_chain_law(900.0, 1000)[1000:].sum(), rel=1e-9)


def test_erlang_c_edges():
    assert queues.erlang_c(4, 4.0) == 1.0 and queues.erlang_c(4, 5.0) == 1.0  # unstable: every arrival waits
    assert queues.erlang_c(4, 0.0) == 0.0
    assert math.isinf(queues.mmc_waiting_time(4.0, 1.0, 4))
    assert queues.mmc_waiting_time(0.0, 1.0, 4) == 0.0


@pytest.mark.parametrize("c", [1, 2, 5, 20])
@pytest.mark.parametrize("load", [0.2, 0.7, 0.95])
def test_lee_longton_is_erlang_c_for_exponential_service(c, load):
    m1 = 2.5
    lam = load * c / m1
    assert queues.mgc_waiting_time(lam, m1, 2 * m1 * m1, c) == pytest.approx(
        queues.mmc_waiting_time(lam, 1 / m1, c), rel=1e-12
    )


@pytest.mark.parametrize("m2", [1.0, 2.0, 10.0, 37.5])  # deterministic, exponential, H2, ...
@pytest.mark.parametrize("lam", [0.1, 0.5, 0.9])
def test_lee_longton_is_pollaczek_khinchine_with_one_server(lam, m2):
    assert queues.mgc_waiting_time(lam, 1.0, m2, 1) == pytest.approx(queues.mg1_waiting_time(lam, 1.0, m2), rel=1e-12)


def test_lee_longton_scales_the_mmc_wait_by_the_squared_coefficient_of_variation():
    lam, m1, c = 3.0, 1.0, 4
    wait = queues.mmc_waiting_time(lam, 1 / m1, c)
    assert queues.mgc_waiting_time(lam, m1, 1.0, c) == pytest.approx(wait / 2)  # deterministic: c_s = 0
    assert queues.mgc_waiting_time(lam, m1, 5.0, c) == pytest.approx(wait * 5 / 2)  # c_s^2 = 4
    assert math.isinf(queues.mgc_waiting_time(lam, m1, math.inf, c))
    assert math.isinf(queues.mgc_waiting_time(4.0, m1, 2.0, c))
    assert queues.mgc_waiting_time(0.0, m1, math.inf, c) == 0.0
