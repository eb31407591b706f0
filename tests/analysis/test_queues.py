"""Classic single-station formulas against independent evaluations."""

import math

import numpy as np
import pytest

from straggler.analysis import queues


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
