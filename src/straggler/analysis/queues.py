"""Classic single-station results (docs: reference results, section 5).

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
    """Probability of waiting in M/M/c with offered load a = lambda / mu (Erlang C)."""
    if offered >= c:
        return 1.0
    term = 1.0
    total = 1.0
    for k in range(1, c):
        term *= offered / k
        total += term
    last = term * offered / c * c / (c - offered)
    return last / (total + last)


def mmc_response_time(lam: float, mu: float, c: int) -> float:
    """E[T] of an M/M/c queue: 1/mu + C(c, lambda/mu) / (c mu - lambda)."""
    if lam >= c * mu:
        return math.inf
    return 1.0 / mu + erlang_c(c, lam / mu) / (c * mu - lam)


def mg1_response(lam: float, m1: float, m2: float, job_mean: float, discipline: str) -> float:
    """Mean response time of a job with mean size ``job_mean`` at an M/G/1 station
    whose service times have moments (m1, m2)."""
    if discipline == "PS":
        return job_mean * mg1_ps_slowdown(lam, m1)
    return job_mean + mg1_waiting_time(lam, m1, m2)
