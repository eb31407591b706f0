"""One copy of each job, never moved or copied: on per-server queues, N M/G/1 queues;
on central queues, one M/G/c queue per pool.

With central queueing (``system.queueing: central``) a pool of c servers is one FCFS
queue that its servers serve in order. Random dispatch with fixed probabilities
thins the Poisson arrivals, so each pool's queue sees Poisson arrivals, and its
service times are i.i.d. (a job's type and size are drawn independently of the
queue): the queue is an M/G/c queue. It is an M/M/c queue, whose mean response time
Erlang's C formula gives exactly (:func:`.queues.mmc_waiting_time`), when every job
it serves has an exponential service time of one mean (exponential replica sizes, and
one speed for every type sent to the pool); a queue of one server is M/G/1, exact by
Pollaczek-Khinchine. Otherwise the M/G/c mean has no closed form, and the
Lee-Longton (Allen-Cunneen) approximation (:func:`.queues.mgc_waiting_time`) stands
in for it, labelled ``approximation``. In FCFS order a job's wait does not depend on
its own type (Poisson arrivals see time averages), so a type-j job in pool i takes
``E[W_i] + E[X_j] / r_ij``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model.cell_model import CellModel
from ...model.dependence import SX, Dependence
from ...model.distributions import Deterministic, Distribution, Exponential
from . import queues
from .result import AnalyticResult


def homogeneous_single_copy(model: CellModel) -> AnalyticResult:
    """One copy on a random one of N identical servers: N M/G/1 queues, or, with
    central queueing, one M/G/N queue (:func:`central_latency`)."""
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    rates = model.rates()
    result = AnalyticResult(
        model.loads, lambda_max=1.0, lambda_max_kind="exact", rho=rates * m1 / model.N, cost=m1, cost_kind="exact"
    )
    if model.queueing == "per_server":
        result.latency_approx = np.array(
            [queues.mg1_response(lam / model.N, m1, m2, m1, model.discipline) for lam in rates]
        )
        result.latency_approx_kind = "exact"
    else:
        # a law per job type is one mixture here (its types are of laws that are never
        # exponential, and all run at speed 1)
        queue = CentralQueue.of("all N servers", model.N, 1.0, [(1.0, model.size, 1.0)], model.dependence)
        central_latency(model, result, [queue])
    return result


@dataclass(frozen=True)
class CentralQueue:
    """One central FCFS queue of ``servers`` identical servers that receives the fraction
    ``share`` of all arrivals (a Poisson stream, by thinning), and the moments of its
    jobs' service times by class (a type at the pool's speed for it)."""

    name: str
    """The queue in a note (``all N servers``, ``pool 1``)."""
    servers: int
    share: float
    weights: np.ndarray
    """P(an arrival at the queue is of the class); they sum to 1."""
    means: np.ndarray
    """E[S | class]."""
    seconds: np.ndarray
    """E[S^2 | class]."""
    markovian: bool
    """Every class's service time is exponential with one mean: an M/M/c queue."""

    @classmethod
    def of(cls, name: str, servers: int, share: float, classes, dep: Dependence) -> CentralQueue:
        """The queue from its classes ``(weight, replica size law, speed)``; weights
        relative to each other (normalised here), classes of weight 0 dropped."""
        used = [(float(w), X, float(r)) for w, X, r in classes if w > 0]
        total = sum(w for w, _, _ in used)
        moments = [dep.replica_marginal_moments(X) for _, X, _ in used]
        means = np.array([m1 / r for (m1, _), (_, _, r) in zip(moments, used)])
        seconds = np.array([m2 / (r * r) for (_, m2), (_, _, r) in zip(moments, used)])
        exponential = all(exponential_replica(dep, X) for _, X, _ in used)
        return cls(
            name=name,
            servers=int(servers),
            share=float(share),
            weights=np.array([w / total for w, _, _ in used]),
            means=means,
            seconds=seconds,
            markovian=exponential and bool(np.all(means == means[0])),
        )

    @property
    def service_moments(self) -> tuple[float, float]:
        """(E[S], E[S^2]) of a job's service time at the queue (the classes' mixture)."""
        return float(self.weights @ self.means), float(self.weights @ self.seconds)

    @property
    def label(self) -> str:
        """Its Kendall notation: M/M/c, M/G/1 or M/G/c."""
        return f"M/{'M' if self.markovian else 'G'}/{self.servers}"

    @property
    def exact(self) -> bool:
        """Is its mean waiting time known exactly: M/M/c (Erlang C) or M/G/1 (P-K)?"""
        return self.markovian or self.servers == 1

    def response_time(self, lam: float) -> float:
        """E[T] of an arrival at the queue when the whole system receives ``lam``: its
        wait (Erlang C, Pollaczek-Khinchine, or Lee-Longton) plus its mean service."""
        m1, m2 = self.service_moments
        rate = lam * self.share
        if self.markovian:
            wait = queues.mmc_waiting_time(rate, 1.0 / m1, self.servers)
        elif self.servers == 1:
            wait = queues.mg1_waiting_time(rate, m1, m2) if rate > 0 else 0.0
        else:
            wait = queues.mgc_waiting_time(rate, m1, m2, self.servers)
        return wait + m1


def exponential_replica(dep: Dependence, X: Distribution) -> bool:
    """Is a replica's size exponential? X exponential, and the replica X itself
    (identical, i.i.d.) or X times a constant slowdown (S&X with a deterministic one).
    Other laws are not recognised as exponential even where they are (a one-phase
    hyperexponential): the answer is then an approximation, never a wrong exact."""
    if isinstance(dep, SX) and not isinstance(dep.slowdown, Deterministic):
        return False
    return isinstance(X, Exponential)


def central_latency(model: CellModel, result: AnalyticResult, pool_queues: list[CentralQueue]) -> None:
    """Fill ``result``'s mean response time from the central ``pool_queues`` (those of
    share 0 dropped): ``sum_i share_i E[T_i]``, exact where every queue is M/M/c or
    M/G/1, the Lee-Longton approximation otherwise; NaN, with a note, where a queue
    of several servers has an infinite second moment (the approximation is +inf there,
    but the M/G/c mean can be finite: Scheller-Wolf and Sigman 1997, Queueing Systems
    26)."""
    used = [q for q in pool_queues if q.share > 0]
    heavy = [q for q in used if q.servers > 1 and not q.markovian and math.isinf(q.service_moments[1])]
    if heavy:
        result.add_note(
            f"latency_approx is NaN: {heavy[0].name} is M/G/{heavy[0].servers} with an infinite second moment "
            "of the service time; its mean has no closed form, and the Lee-Longton approximation needs "
            "E[S^2] < inf",
            about="latency_approx",
        )
        return
    result.latency_approx = np.array([sum(q.share * q.response_time(lam) for q in used) for lam in model.rates()])
    exact = all(q.exact for q in used)
    result.latency_approx_kind = "exact" if exact else "approximation"
    shown = "; ".join(f"{q.name}: {q.label}" for q in used)
    result.add_note(
        f"latency_approx {'exact' if exact else 'approximation'}: central FCFS queues, {shown}. "
        + ". ".join(_method_words(used)),
        about="latency_approx",
    )


def _method_words(used: list[CentralQueue]) -> list[str]:
    """How the mean waiting time of each kind of queue among ``used`` is found."""
    words = []
    if any(q.markovian for q in used):
        words.append(
            "M/M/c (Poisson arrivals, exponential service of one mean) by Erlang C, exact: "
            "E[W] = C(c, a) / (c mu - lambda), a = lambda / mu (Erlang 1917; Kleinrock, Queueing Systems "
            "vol. 1, section 3.5)"
        )
    if any(q.servers == 1 and not q.markovian for q in used):
        words.append("M/G/1 by Pollaczek-Khinchine, exact")
    general = [q for q in used if not q.exact]
    if general:
        words.append(
            "M/G/c ("
            + "; ".join(_why_not_markovian(q) for q in general)
            + ") has no closed-form mean: the Lee-Longton (Allen-Cunneen) approximation E[W] ~ (1 + c_s^2) / 2 "
            "C(c, a) / (c mu - lambda), c_s the service time's coefficient of variation (Lee and Longton 1959; "
            "Allen 1990)"
        )
    return words


def _why_not_markovian(q: CentralQueue) -> str:
    """Why a queue of several servers is not an M/M/c queue."""
    if len(q.means) > 1 and not np.all(q.means == q.means[0]):
        shown = ", ".join(f"{m:.4g}" for m in q.means)
        return f"{q.name} mixes mean service times {shown}: types at different speeds or of different sizes"
    return f"{q.name}'s service time is not exponential"
