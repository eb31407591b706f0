"""Classic single-station results (docs: reference results, section 5): M/G/1
(Pollaczek-Khinchine), M/G/1-PS, M/M/c (Erlang C) and the M/G/c approximation of
Lee-Longton and Allen-Cunneen.

Pure functions of rates and moments; ``inf`` when the station is overloaded or a
needed moment is infinite, never an exception.
"""

from __future__ import annotations

import math


def mg1_waiting_time(lam: float, m1: float, m2: float) -> float:
    """Pollaczek-Khinchine mean waiting time of an M/G/1 FCFS queue:
    W = lambda E[S^2] / (2 (1 - lambda E[S]))."""
    rho = lam * m1
    if rho >= 1.0 or math.isinf(m2):
        return math.inf
    return lam * m2 / (2.0 * (1.0 - rho))


def mg1_fcfs_response_time(lam: float, m1: float, m2: float) -> float:
    """E[T] = E[S] + W for an M/G/1 FCFS queue (Pollaczek-Khinchine)."""
    return m1 + mg1_waiting_time(lam, m1, m2)


def mg1_fcfs_latency(lam: float, m1: float, m2: float) -> float:
    """Pollaczek-Khinchine E[T] (``inf`` when overloaded or ``m2`` infinite), and
    E[S] with no arrivals (``lam <= 0``: no job waits, whatever ``m2``)."""
    if lam <= 0.0:
        return m1
    return mg1_fcfs_response_time(lam, m1, m2)


def mg1_ps_slowdown(lam: float, m1: float) -> float:
    """E[T | S = s] / s = 1 / (1 - rho) for M/G/1-PS, insensitive to the law of S."""
    rho = lam * m1
    return math.inf if rho >= 1.0 else 1.0 / (1.0 - rho)


def erlang_c(c: int, offered: float) -> float:
    """Probability of waiting in M/M/c with offered load a = lambda / mu: Erlang's C
    formula (Erlang 1917; Kleinrock, Queueing Systems vol. 1, 1975, section 3.5),
    ``C(c, a) = c B(c, a) / (c - a (1 - B(c, a)))`` with Erlang's loss formula B from
    its recursion ``B(k, a) = a B(k-1, a) / (k + a B(k-1, a))``, ``B(0, a) = 1``: every
    term is a probability, so it neither overflows nor loses precision at large c (the
    direct sum of a^k / k! overflows beyond a ~ 700). 1 when ``a >= c`` (every arrival
    waits: the queue is unstable)."""
    if offered >= c:
        return 1.0
    if offered <= 0.0:
        return 0.0
    b = 1.0
    for k in range(1, int(c) + 1):
        b = offered * b / (k + offered * b)
    return c * b / (c - offered * (1.0 - b))


def mmc_waiting_time(lam: float, mu: float, c: int) -> float:
    """E[W] of an M/M/c FCFS queue: ``C(c, lambda/mu) / (c mu - lambda)`` (Kleinrock,
    vol. 1, section 3.5); ``inf`` when ``lambda >= c mu``, 0 without arrivals."""
    if lam >= c * mu:
        return math.inf
    if lam <= 0.0:
        return 0.0
    return erlang_c(c, lam / mu) / (c * mu - lam)


def mmc_response_time(lam: float, mu: float, c: int) -> float:
    """E[T] of an M/M/c queue: 1/mu + C(c, lambda/mu) / (c mu - lambda)."""
    return 1.0 / mu + mmc_waiting_time(lam, mu, c)


def mgc_waiting_time(lam: float, m1: float, m2: float, c: int) -> float:
    """Approximate E[W] of an M/G/c FCFS queue with service moments (m1, m2): the M/M/c
    waiting time at the same mean scaled by ``(1 + c_s^2) / 2 = m2 / (2 m1^2)``, c_s the
    service time's coefficient of variation (Lee and Longton 1959, Operational Research
    Quarterly 10(1); the Allen-Cunneen approximation with Poisson arrivals, c_a = 1:
    Allen, Probability, Statistics and Queueing Theory, 2nd ed., 1990).
    Exact for exponential service (M/M/c) and for c = 1, where it is the
    Pollaczek-Khinchine formula; ``inf`` when overloaded or ``m2`` is infinite."""
    if lam <= 0.0:
        return 0.0
    if lam * m1 >= c or math.isinf(m2):
        return math.inf
    return m2 / (2.0 * m1 * m1) * mmc_waiting_time(lam, 1.0 / m1, c)


def mg1_response(lam: float, m1: float, m2: float, job_mean: float, discipline: str) -> float:
    """Mean response time of a job with mean size ``job_mean`` at an M/G/1 station
    whose service times have moments (m1, m2)."""
    if discipline == "PS":
        return job_mean * mg1_ps_slowdown(lam, m1)
    return job_mean + mg1_waiting_time(lam, m1, m2)
