"""The shipped study fleet_sizes (config/studies/fleet_sizes.yaml), run: a fleet of any size is
decided at every load, its simulation meets the mean-field limit where the tier solves the
policy, and a fleet started from 100 servers' end state is not biased by it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from runs import snakemake

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.workflow, pytest.mark.slow]


@pytest.fixture(scope="module")
def fleet_sizes(tmp_path_factory) -> xr.Dataset:
    work = tmp_path_factory.mktemp("fleet")
    (work / "config" / "data").mkdir(parents=True)
    shutil.copy(ROOT / "config" / "data" / "requests_ms.csv", work / "config" / "data")
    run = snakemake(work, ROOT / "config" / "studies" / "fleet_sizes.yaml", "--cores", "2", timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    assert (work / "results" / "fleet_sizes" / "figures" / "fleet.png").is_file()
    return xr.load_dataset(work / "results" / "fleet_sizes" / "fleet_sizes.nc")


def _cell(ds, policy):
    return ds.sel(policy=policy, distribution="requests", dependence="iid", r_slow=1, d=2)


def test_every_policy_is_decided_at_every_n_and_load(fleet_sizes):
    for policy in fleet_sizes["policy"].values:
        c = _cell(fleet_sizes, str(policy))
        assert (c["stable"].values == 1).all(), (policy, c["verdict_evidence"].values)
        assert (c["ci_reliable"].values == 1).all(), (policy, c["ci_reliable_reason"].values)
    evidence = _cell(fleet_sizes, "Hedge")["verdict_evidence"].sel(N=10000).values
    assert set(evidence) <= {"N = 100", "sufficient bound", "monotone"}


@pytest.mark.parametrize("policy", ["ZRed", "CoC", "RIQ"])
def test_the_fleet_meets_its_mean_field_limit(fleet_sizes, policy):
    """At N >= 1000 the simulated E[T] is the limit's within four CI half-widths (the
    replications' t interval: a 1e-4 chance each to miss) plus 5/N of it (the finite fleet's
    O(1/N) gap; the tier's own tests found N x gap below 1.7) and the solver's tolerance."""
    c = _cell(fleet_sizes, policy)
    assert (c["latency_approx_kind"].values.ravel() != "").all()
    for N in (1000, 10000):
        at = c.sel(N=N)
        sim, ci, limit = at["latency_mean"].values, at["latency_mean_ci"].values, at["latency_approx"].values
        assert np.all(np.abs(sim - limit) <= 4 * ci + (5.0 / N + 1e-3) * limit), (policy, N, sim, ci, limit)


def test_a_fleet_from_a_hundred_servers_end_state_is_not_biased_by_it(fleet_sizes):
    """Hedge (no mean-field form): its fleets start from the end state of N = 100; E[T] at
    N = 10^4 (2 jobs of warm-up a server) agrees with N = 1000 (20) within their CIs' reach."""
    c = _cell(fleet_sizes, "Hedge")
    a, b = c.sel(N=1000), c.sel(N=10000)
    gap = np.abs(a["latency_mean"].values - b["latency_mean"].values)
    reach = 4 * np.hypot(a["latency_mean_ci"].values, b["latency_mean_ci"].values)
    assert np.all(gap <= reach), (gap, reach)
