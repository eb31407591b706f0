"""The grid: distinct cells, ignored axes, literal cell ids, per-cell seeds."""

from dataclasses import replace

import numpy as np
import pytest

from straggler.study.config import ResolvedConfig, resolve_config
from straggler.study.grid import build_grid, cell_spec, literal, seed_sequence, workload_id


def config(**grid):
    base = {
        "policy": ["ZRed", "CoC"],
        "distribution": ["exp"],
        "dependence": ["iid"],
        "r_slow": [0.5, 1],
        "d": [2, 3],
        "N": [10],
    }
    base.update(grid)
    return resolve_config(
        {
            "study": "t",
            "grid": base,
            "load": [0.3],
            "distributions": {
                "exp": {"family": "exponential", "mean": 1},
                "par": {"family": "pareto", "xm": 1, "alpha": 2.5},
            },
            "evaluate": ["analytic"],
        }
    )


def test_ignored_axis_is_not_fanned_out():
    grid = build_grid(config())
    policies = [c.policy for c in grid.cells.values()]
    assert policies.count("ZRed") == 2  # two r_slow, d ignored
    assert policies.count("CoC") == 4  # two r_slow x two d
    assert all("d=" not in cid for cid in grid.cells if "ZRed" in cid)


def test_every_point_maps_to_a_cell_or_a_reason():
    grid = build_grid(config(d=[2, 30]))
    assert len(grid.point_cells) == np.prod([len(v) for v in grid.axes.values()])
    for point, cid in grid.point_cells.items():
        assert (cid is None) == (point in grid.impossible)
    reasons = set(grid.impossible.values())
    assert reasons == {"d = 30 > N = 10"}


def test_cell_ids_keep_literals():
    ids = " ".join(build_grid(config(r_slow=[0.3, 1])).cells)
    assert "r_slow=0.3__" in ids and "r_slow=1__" in ids
    assert "r_slow=1.0__" in " ".join(build_grid(config(r_slow=[1.0])).cells)
    assert "0.30000000000000004" not in ids
    assert literal(0.1 + 0.2) == "0.30000000000000004"  # arithmetic is not a literal


def test_adding_axis_values_keeps_cell_ids_and_seeds():
    small = build_grid(config())
    large = build_grid(config(r_slow=[0.5, 0.7, 1], d=[2, 3, 4]))
    assert set(small.cells) <= set(large.cells)
    for cid in small.cells:
        a = seed_sequence(12345, cid).generate_state(4)
        b = seed_sequence(12345, cid).generate_state(4)
        assert np.array_equal(a, b)
    states = {tuple(seed_sequence(12345, cid).generate_state(2)) for cid in large.cells}
    assert len(states) == len(large.cells)


def test_distribution_axis_applies_only_to_its_distribution():
    grid = build_grid(config(distribution=["exp", "par"], **{"par.alpha": [2.5, 3.0]}))
    for cell in grid.cells.values():
        assert ("par.alpha" in dict(cell.coords)) == (cell["distribution"] == "par")


def test_cell_spec_is_self_contained():
    resolved = config(distribution=["exp", "par"])
    grid = build_grid(resolved)
    for cid, cell in grid.cells.items():
        spec = cell_spec(resolved, cell)
        assert list(spec["distributions"]) == [cell["distribution"]]
        assert list(build_grid(ResolvedConfig.from_dict(spec)).cells) == [cid]


def test_odd_N_needs_two_pools_only_for_pool_policies():
    grid = build_grid(config(policy=["ZRed", "FRed"], r_slow=[1.0], N=[5]))
    assert [c.policy for c in grid.cells.values()] == ["ZRed"]
    assert all("FRed needs two pools" in r for r in grid.impossible.values())


def _with(resolved, **system):
    return replace(resolved, system=replace(resolved.system, **system))


def test_d_of_n_policies_are_impossible_with_central_queueing():
    resolved = config(policy=["ZRed", "FRed", "CoC", "CoS", "RIQ", "FJ"], r_slow=[0.5], d=[2])
    grid = build_grid(_with(resolved, queueing="central"))
    assert sorted(c.policy for c in grid.cells.values()) == ["FRed", "ZRed"]
    assert len(grid.impossible) == 4
    for point, reason in grid.impossible.items():
        assert point[0] in ("CoC", "CoS", "RIQ", "FJ")
        assert f"{point[0]} picks d of the N servers" in reason and "central" in reason
    # per-server queueing: all possible
    assert not build_grid(resolved).impossible


def test_swept_queueing_and_discipline_mark_central_ps_impossible():
    resolved = config(
        policy=["ZRed", "CoC"],
        r_slow=[1],
        d=[2],
        **{"system.queueing": ["per_server", "central"], "system.discipline": ["FCFS", "PS"]},
    )
    grid = build_grid(resolved)
    names = list(grid.axes)
    reasons = {
        tuple((a, v) for a, v in zip(names, p) if a in ("policy", "system.queueing", "system.discipline")): r
        for p, r in grid.impossible.items()
    }
    assert set(reasons) == {
        (("policy", "ZRed"), ("system.queueing", "central"), ("system.discipline", "PS")),
        (("policy", "CoC"), ("system.queueing", "central"), ("system.discipline", "FCFS")),
        (("policy", "CoC"), ("system.queueing", "central"), ("system.discipline", "PS")),
    }
    assert (
        "no central processor-sharing model"
        in reasons[(("policy", "ZRed"), ("system.queueing", "central"), ("system.discipline", "PS"))]
    )
    assert len(grid.cells) == 5


@pytest.mark.parametrize("alias,canonical", [("RND", "ZRed"), ("SLB", "Rer"), ("LLW", "CoS")])
def test_aliases_are_reported_by_canonical_name(alias, canonical):
    grid = build_grid(config(policy=[alias]))
    assert all(c.policy == canonical for c in grid.cells.values())


def test_cells_of_one_workload_share_its_id():
    """The workload is the setting without the policy, d and the policy's parameters:
    ZRed, CoC at d = 2 and 3, and Rer at every swept tau share one stream per setting."""
    cfg = config(policy=["ZRed", "CoC", "Rer"], **{"Rer.tau": [1, 2]})
    grid = build_grid(cfg)
    by_workload: dict = {}
    for cell in grid.cells.values():
        by_workload.setdefault(workload_id(cell), set()).add(cell.id)
    assert sorted(by_workload) == ["distribution=exp__dependence=iid__r_slow=0.5__N=10"] + [
        "distribution=exp__dependence=iid__r_slow=1__N=10"
    ]
    for cells in by_workload.values():
        assert len(cells) == 1 + 2 + 2  # ZRed; CoC d = 2, 3; Rer tau = 1, 2
