"""straggler.study.config: schema, defaults, normalisation and every refused value (the config contract)."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest
import yaml

from straggler.model.policies import POLICIES, all_policy_names
from straggler.study import config as C
from straggler.study.config import ConfigError, apply_override, dump_config, load_config, resolve_config

REPO = Path(__file__).resolve().parents[3]

# A complete study with every section given, commented as a person writes one.
EXAMPLE = """\
study: default                  # results go to results/<study>/
seed: 12345                     # master seed; every cell derives its own stream from it
grid:                           # Cartesian product; one evaluation per distinct cell
  policy: [ZRed, FRed, Rer, Rep, CoC, CoS]
  distribution: [exp, pareto]
  dependence: [identical, iid]
  r_slow: [0.1, 0.5, 1.0]
  d: [2]
  N: [10]
load: [0.1, 0.3, 0.5, 0.7, 0.9] # swept inside each cell
policies:                       # per-policy parameters (optional)
  Rer: {tau: opt}
  Rep: {tau: opt}
  FJ:  {k: 2, early: false}
distributions:                  # named job-size distributions used by grid.distribution
  exp:    {family: exponential, mean: 1}
  pareto: {family: pareto, xm: 1, alpha: 2.2}
dependences:                    # named; identical and iid exist by default
  sx_bimodal: {kind: sx, slowdown: bimodal}
system:
  discipline: FCFS              # FCFS | PS
  queueing: per_server          # per_server | central (one queue per pool)
  pools: [5, 5]                 # optional; default N/2 each
  types: {p: [0.5, 0.5], knowledge: unknown, belief: 1.0}   # knowledge: unknown | partial | known
evaluate: [analytic, simulation]
simulation: {jobs: 200000, warmup: 20000, replications: 4, confidence: 0.95}
"""

# The example refers to a slowdown distribution ``bimodal`` that it does not define.
BIMODAL = {"family": "discrete", "values": [1, 10], "p": [0.9, 0.1]}


def example() -> dict:
    raw = yaml.safe_load(EXAMPLE)
    raw["distributions"]["bimodal"] = copy.deepcopy(BIMODAL)
    return raw


def minimal() -> dict:
    return {
        "grid": {"policy": ["ZRed", "Rer", "CoC"], "distribution": ["exp", "pareto"], "r_slow": [0.5, 1.0]},
        "load": [0.1, 0.5],
        "distributions": {
            "exp": {"family": "exponential", "mean": 1},
            "pareto": {"family": "pareto", "xm": 1, "alpha": 2.2},
        },
    }


def errors_of(raw) -> list[str]:
    with pytest.raises(ConfigError) as info:
        resolve_config(raw)
    assert info.value.errors, "a ConfigError must list its errors"
    assert str(info.value) == "\n".join(info.value.errors)
    return info.value.errors


# --------------------------------------------------------------------------- good configs


def test_design_example_resolves():
    resolved = resolve_config(example()).to_dict()
    assert resolved["grid"]["policy"] == ["ZRed", "FRed", "Rer", "Rep", "CoC", "CoS"]
    assert resolved["system"]["pools"] == [5, 5]
    assert resolved["dependences"]["sx_bimodal"] == {"kind": "sx", "slowdown": "bimodal"}
    assert resolved["policies"]["FJ"] == {"k": 2, "early": False, "keep": "d", "split": "none", "cost_limit": math.inf}
    assert list(resolved) == list(C.TOP_LEVEL_ORDER)


def test_design_example_verbatim_names_its_undefined_slowdown():
    errors = errors_of(yaml.safe_load(EXAMPLE))
    assert len(errors) == 1
    assert "dependences.sx_bimodal.slowdown" in errors[0] and "'bimodal'" in errors[0]


def test_defaults_filled():
    resolved = resolve_config(minimal()).to_dict()
    assert resolved["study"] == "default"
    assert resolved["seed"] == 12345
    grid = resolved["grid"]
    assert list(grid) == list(C.NAMED_AXES)
    assert grid["dependence"] == ["identical"]
    assert grid["d"] == [2] and grid["N"] == [10]
    assert minimal()["grid"]["r_slow"] == grid["r_slow"]
    assert resolve_config({**minimal(), "grid": {"policy": ["ZRed"], "distribution": ["exp"]}}).to_dict()["grid"][
        "r_slow"
    ] == [1.0]
    # policies of the grid get their defaults from POLICIES
    assert resolved["policies"] == {"ZRed": {}, "Rer": {"tau": "opt", "resume": False}, "CoC": {"ps_bound": None}}
    for name in resolved["grid"]["policy"]:
        assert set(resolved["policies"][name]) == set(POLICIES[name].parameters)
    assert resolved["dependences"] == {"identical": {"kind": "identical"}, "iid": {"kind": "iid"}}
    assert resolved["system"] == {
        "discipline": "FCFS",
        "queueing": "per_server",
        "pools": None,
        "speeds": None,
        "types": {"p": [0.5, 0.5], "knowledge": "unknown", "belief": 1.0},
    }
    assert resolved["evaluate"] == ["analytic", "simulation"]
    assert resolved["simulation"] == {"jobs": 200000, "warmup": 20000, "replications": 4, "confidence": 0.95}


def test_input_not_modified_and_resolution_idempotent():
    raw = example()
    before = copy.deepcopy(raw)
    resolved = resolve_config(raw)
    assert raw == before
    assert resolve_config(resolved.to_dict()) == resolved


@pytest.mark.parametrize(
    "alias, canonical", [("RND", "ZRed"), ("SLB", "Rer"), ("LLW", "CoS"), ("Red", "CoC"), ("redundancy-d", "CoC")]
)
def test_alias_mapped(alias, canonical):
    raw = minimal()
    raw["grid"]["policy"] = [alias]
    resolved = resolve_config(raw).to_dict()
    assert resolved["grid"]["policy"] == [canonical]
    assert set(resolved["policies"]) == {canonical}


def test_aliases_keep_order_and_drop_duplicates():
    raw = minimal()
    raw["grid"]["policy"] = ["SLB", "RND", "Rer", "LLW", "ZRed", "Red", "CoS"]
    raw["policies"] = {"SLB": {"tau": 2}}
    resolved = resolve_config(raw).to_dict()
    assert resolved["grid"]["policy"] == ["Rer", "ZRed", "CoS", "CoC"]
    assert resolved["policies"]["Rer"] == {"tau": 2, "resume": False}


def test_literals_kept():
    raw = minimal()
    raw["grid"]["r_slow"] = [0.3, 1]
    raw["load"] = [0.3, 1, 0.1]
    raw["policies"] = {"Rer": {"tau": [1, 2.5, 5]}}
    resolved = resolve_config(raw).to_dict()
    for values, expected in (
        (resolved["grid"]["r_slow"], [0.3, 1]),
        (resolved["load"], [0.3, 1, 0.1]),
        (resolved["policies"]["Rer"]["tau"], [1, 2.5, 5]),
    ):
        assert values == expected
        assert [type(v) for v in values] == [type(v) for v in expected]
    assert type(resolved["distributions"]["exp"]["mean"]) is int


def test_policy_parameter_list_allowed():
    raw = minimal()
    raw["policies"] = {"Rer": {"tau": [1, 2, 5, "opt"]}, "FJ": {"k": [1, 2], "early": [False, True]}}
    resolved = resolve_config(raw).to_dict()
    assert resolved["policies"]["Rer"]["tau"] == [1, 2, 5, "opt"]
    assert resolved["policies"]["FJ"] == {
        "k": [1, 2],
        "early": [False, True],
        "keep": "d",
        "split": "none",
        "cost_limit": math.inf,
    }


def test_fj_k_larger_than_d_is_not_an_error():
    raw = minimal()
    raw["grid"]["policy"] = ["FJ"]
    raw["policies"] = {"FJ": {"k": 5}}
    assert resolve_config(raw).to_dict()["policies"]["FJ"]["k"] == 5


def test_central_fcfs_and_per_server_ps_resolve():
    for system in ({"queueing": "central", "discipline": "FCFS"}, {"queueing": "per_server", "discipline": "PS"}):
        raw = minimal()
        raw["system"] = system
        assert resolve_config(raw).to_dict()["system"]["queueing"] == system["queueing"]
    raw = minimal()  # d-of-N policies with central queueing: grid points left NaN, not an error
    raw["system"] = {"queueing": "central"}
    assert resolve_config(raw).to_dict()["grid"]["policy"] == ["ZRed", "Rer", "CoC"]


def test_odd_n_fine_on_homogeneous_system_and_with_pools():
    raw = minimal()
    raw["grid"]["r_slow"] = [1.0]
    raw["grid"]["N"] = [5]
    assert resolve_config(raw).to_dict()["grid"]["N"] == [5]
    raw["grid"]["r_slow"] = [0.5]
    raw["system"] = {"pools": [2, 3]}
    assert resolve_config(raw).to_dict()["system"]["pools"] == [2, 3]


def test_one_pool_is_one_queue_of_n_servers():
    from straggler.study.cell_build import build_model
    from straggler.study.grid import build_grid, central_queues

    raw = minimal()
    raw["grid"].update(r_slow=[1.0], N=[10, 7])
    raw["system"] = {"pools": 1.0, "queueing": "central"}  # an integral float is the integer
    resolved = resolve_config(raw)
    assert resolved.to_dict()["system"]["pools"] == 1
    grid = build_grid(resolved)
    models = {cell.id: build_model(resolved, cell) for cell in grid.cells.values()}
    assert {m.policy for m in models.values()} == {"ZRed"}  # Rer needs two pools, CoC d of N
    assert all(m.system is None and m.queueing == "central" for m in models.values())
    assert any(
        "Rer needs two pools and system.pools is 1 (one pool of N = 10 servers)" in r for r in grid.impossible.values()
    )
    assert (
        central_queues(resolved, grid)
        == "queueing: central, N = 10: 1 queue of 10 servers; N = 7: 1 queue of 7 servers"
    )
    raw["system"] = {"queueing": "central"}  # the default: two pools when N is even
    resolved = resolve_config(raw)
    assert central_queues(resolved, build_grid(resolved)) == (
        "queueing: central, N = 10: 2 queues (one per pool) of 5 servers; N = 7: 1 queue of 7 servers "
        "(system.pools: 1 makes one queue of N servers)"
    )


def test_every_distribution_family_accepted():
    raw = minimal()
    raw["distributions"] = {
        "exp": {"family": "exponential", "mean": 1},
        "det": {"family": "deterministic", "value": 2},
        "pareto": {"family": "pareto", "xm": 1, "alpha": 2.2},
        "bp": {"family": "bounded_pareto", "low": 1, "high": 1000, "alpha": 1.1},
        "sexp": {"family": "shifted_exponential", "shift": 1, "mean": 3},
        "hyper": {"family": "hyperexponential", "p": [0.99, 0.01], "rates": [1, 0.0101010101]},
        "erl": {"family": "erlang", "k": 3, "mean": 1},
        "wei": {"family": "weibull", "shape": 0.5, "scale": 1},
        "uni": {"family": "uniform", "low": 0, "high": 2},
        "bimodal": {"family": "discrete", "values": [1, 10], "p": [0.9, 0.1]},
        "logn": {"family": "lognormal", "mean": 1, "cv": 2, "scale_to_mean": 3},
    }
    raw["grid"]["distribution"] = list(raw["distributions"])
    raw["dependences"] = {
        "sx": {"kind": "sx", "slowdown": "bimodal"},
        "sx_inline": {"kind": "sx", "slowdown": {"family": "pareto", "xm": 1, "alpha": 1.5}},
    }
    raw["grid"]["dependence"] = ["identical", "iid", "sx", "sx_inline"]
    resolved = resolve_config(raw).to_dict()
    assert list(resolved["distributions"]) == list(raw["distributions"])
    assert list(resolved["dependences"]) == ["identical", "iid", "sx", "sx_inline"]


def test_extra_axes_resolved():
    raw = minimal()
    raw["grid"].update(
        {"SLB.tau": [1, 2, 5], "pareto.alpha": [1.5, 2.2], "types.p1": [0.1, 0.5, 0.9], "types.belief": [0.5, 0.75, 1]}
    )
    resolved = resolve_config(raw).to_dict()
    assert list(resolved["grid"])[6:] == ["Rer.tau", "pareto.alpha", "types.p1", "types.belief"]
    assert resolved["grid"]["Rer.tau"] == [1, 2, 5]
    # the base value of a swept policy parameter stays its default
    assert resolved["policies"]["Rer"]["tau"] == "opt"


def test_swept_distribution_parameter_needs_no_base_value():
    raw = minimal()
    del raw["distributions"]["pareto"]["alpha"]
    raw["grid"]["pareto.alpha"] = [1.5, 2.2]
    resolved = resolve_config(raw).to_dict()
    assert resolved["distributions"]["pareto"]["alpha"] == 1.5


def test_swept_value_overrides_a_bad_base_value():
    raw = minimal()
    raw["distributions"]["pareto"]["alpha"] = 0.5  # never used: every cell sets alpha
    raw["grid"]["pareto.alpha"] = [1.5, 2.2]
    assert resolve_config(raw).to_dict()["grid"]["pareto.alpha"] == [1.5, 2.2]


# --------------------------------------------------------------------------- refused values


def _set(path, value):
    def mod(raw):
        node = raw
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value

    return mod


def _add_dist(name, spec):
    return _set(("distributions", name), spec)


BAD = [
    # (id, modification, substrings that the message must contain)
    ("unknown-policy", _set(("grid", "policy"), ["ZRed", "Rerr"]), ["grid.policy[1]", "'Rerr'", "did you mean 'Rer'"]),
    ("unknown-policy-key", _set(("policies", "Rerr"), {"tau": 1}), ["policies.Rerr", "'Rerr'", "did you mean 'Rer'"]),
    (
        "unknown-family",
        _set(("distributions", "exp", "family"), "exponental"),
        ["distributions.exp.family", "'exponental'", "did you mean 'exponential'"],
    ),
    (
        "unknown-discipline",
        _set(("system", "discipline"), "fcfs"),
        ["system.discipline", "'fcfs'", "did you mean 'FCFS'"],
    ),
    (
        "unknown-queueing",
        _set(("system", "queueing"), "centrl"),
        ["system.queueing", "'centrl'", "did you mean 'central'"],
    ),
    (
        "unknown-knowledge",
        _set(("system", "types", "knowledge"), "partal"),
        ["system.types.knowledge", "'partal'", "did you mean 'partial'"],
    ),
    (
        "unknown-evaluate",
        _set(("evaluate",), ["analytic", "simulaton"]),
        ["evaluate[1]", "'simulaton'", "did you mean 'simulation'"],
    ),
    ("unknown-top-level-key", _set(("studdy",), "x"), ["studdy", "did you mean 'study'"]),
    ("unknown-grid-key", _set(("grid", "polcy"), ["ZRed"]), ["grid.polcy", "did you mean 'policy'"]),
    (
        "undefined-distribution",
        _set(("grid", "distribution"), ["exp", "expo"]),
        ["grid.distribution[1]", "'expo'", "distributions", "did you mean 'exp'"],
    ),
    (
        "undefined-dependence",
        _set(("grid", "dependence"), ["iid", "sx"]),
        ["grid.dependence[1]", "'sx'", "dependences"],
    ),
    (
        "undefined-slowdown",
        _set(("dependences", "s"), {"kind": "sx", "slowdown": "bimodl"}),
        ["dependences.s.slowdown", "'bimodl'"],
    ),
    ("sx-without-slowdown", _set(("dependences", "s"), {"kind": "sx"}), ["dependences.s.slowdown", "missing"]),
    (
        "unknown-dependence-kind",
        _set(("dependences", "s"), {"kind": "xs"}),
        ["dependences.s.kind", "'xs'", "did you mean 'sx'"],
    ),
    (
        "bad-inline-slowdown",
        _set(("dependences", "s"), {"kind": "sx", "slowdown": {"family": "pareto", "xm": 1, "alpha": 0.9}}),
        ["dependences.s.slowdown.alpha", "0.9", "> 1"],
    ),
    ("zero-mean", _set(("distributions", "exp", "mean"), 0), ["distributions.exp.mean", "value 0", "> 0"]),
    (
        "negative-scale",
        _add_dist("w", {"family": "weibull", "shape": 1, "scale": -2}),
        ["distributions.w.scale", "-2", "> 0"],
    ),
    ("negative-xm", _set(("distributions", "pareto", "xm"), -1), ["distributions.pareto.xm", "-1", "> 0"]),
    (
        "zero-scale-to-mean",
        _set(("distributions", "exp", "scale_to_mean"), 0),
        ["distributions.exp.scale_to_mean", "value 0"],
    ),
    ("pareto-alpha-1", _set(("distributions", "pareto", "alpha"), 1), ["distributions.pareto.alpha", "value 1", "> 1"]),
    ("pareto-alpha-below-1", _set(("distributions", "pareto", "alpha"), 0.8), ["distributions.pareto.alpha", "0.8"]),
    ("missing-parameter", _add_dist("u", {"family": "pareto", "xm": 1}), ["distributions.u.alpha", "missing"]),
    (
        "unknown-parameter",
        _add_dist("u", {"family": "pareto", "xm": 1, "alpha": 2, "mean": 3}),
        ["distributions.u.mean", "'mean'", "xm and alpha", "scale_to_mean: m"],
    ),
    (
        "uniform-high-below-low",
        _add_dist("u", {"family": "uniform", "low": 2, "high": 1}),
        ["distributions.u.high", "value 1", "low"],
    ),
    (
        "erlang-k-not-integer",
        _add_dist("e", {"family": "erlang", "k": 1.5, "mean": 1}),
        ["distributions.e.k", "1.5", "integer"],
    ),
    ("non-positive-load", _set(("load",), [0.1, 0]), ["load[1]", "value 0", "> 0"]),
    ("negative-load", _set(("load",), [0.1, -0.5]), ["load[1]", "-0.5"]),
    ("non-numeric-load", _set(("load",), [0.1, "fast"]), ["load[1]", "'fast'", "a number"]),
    ("nan-load", _set(("load",), [float("nan")]), ["load[0]", "nan", "finite"]),
    ("empty-load", _set(("load",), []), ["load", "[]", "non-empty"]),
    ("repeated-load", _set(("load",), [0.1, 0.1]), ["load", "0.1", "repeated"]),
    ("empty-policy-axis", _set(("grid", "policy"), []), ["grid.policy", "[]", "non-empty"]),
    ("empty-distribution-axis", _set(("grid", "distribution"), []), ["grid.distribution", "[]"]),
    ("empty-dependence-axis", _set(("grid", "dependence"), []), ["grid.dependence", "[]"]),
    ("empty-r_slow-axis", _set(("grid", "r_slow"), []), ["grid.r_slow", "[]"]),
    ("empty-d-axis", _set(("grid", "d"), []), ["grid.d", "[]"]),
    ("empty-N-axis", _set(("grid", "N"), []), ["grid.N", "[]"]),
    ("empty-extra-axis", _set(("grid", "Rer.tau"), []), ["grid.Rer.tau", "[]"]),
    ("grid-missing-policy", lambda raw: raw["grid"].pop("policy"), ["grid.policy", "missing"]),
    ("d-zero", _set(("grid", "d"), [0, 2]), ["grid.d[0]", "value 0", "integer >= 1"]),
    ("d-not-integer", _set(("grid", "d"), [2.5]), ["grid.d[0]", "2.5", "integer"]),
    # an integral float is an integer (2.0, 2e0: tests/study/config/test_spellings.py); 2.5e0 is not
    ("d-exponent-not-integral", _set(("grid", "d"), ["2.5e0"]), ["grid.d[0]", "2.5", "integer"]),
    ("d-string", _set(("grid", "d"), ["two"]), ["grid.d[0]", "'two'", "integer"]),
    ("N-zero", _set(("grid", "N"), [0]), ["grid.N[0]", "value 0", ">= 1"]),
    ("N-negative", _set(("grid", "N"), [10, -4]), ["grid.N[1]", "-4"]),
    ("N-odd-with-slow-pool", _set(("grid", "N"), [10, 9]), ["grid.N[1]", "value 9", "even", "system.pools"]),
    ("pools-sum-not-N", _set(("system", "pools"), [4, 5]), ["system.pools", "[4, 5]", "10"]),
    ("pools-zero", _set(("system", "pools"), [0, 10]), ["system.pools[0]", "value 0"]),
    ("pools-three", _set(("system", "pools"), 3), ["system.pools", "value 3", "null, 1 or a list of 2"]),
    ("pools-true", _set(("system", "pools"), True), ["system.pools", "value true", "null, 1 or a list of 2"]),
    (
        "one-pool-with-slow-pool",  # minimal() has r_slow 0.5: affinity needs two pools
        _set(("system", "pools"), 1),
        ["system.pools", "value 1", "null or [n_1, n_2]", "grid.r_slow has 0.5", "identical servers"],
    ),
    (
        "one-pool-with-speeds",
        lambda raw: raw["grid"].update(r_slow=[1.0]) or raw.update(system={"pools": 1, "speeds": [[1, 2], [2, 1]]}),
        ["system.pools", "value 1", "system.speeds is given"],
    ),
    (
        "one-pool-and-only-pool-policies",
        lambda raw: raw["grid"].update(r_slow=[1.0], policy=["FRed", "Rer"]) or raw.update(system={"pools": 1}),
        ["grid: no cell can be evaluated", "system.pools 1"],
    ),
    ("r_slow-zero", _set(("grid", "r_slow"), [0, 1]), ["grid.r_slow[0]", "value 0", "(0, 1]"]),
    ("r_slow-above-1", _set(("grid", "r_slow"), [1.5]), ["grid.r_slow[0]", "1.5", "(0, 1]"]),
    ("tau-negative", _set(("policies", "Rep"), {"tau": -0.5}), ["policies.Rep.tau", "value -0.5", ">= 0", "'opt'"]),
    ("tau-negative-in-list", _set(("policies", "Rer"), {"tau": [1, -2]}), ["policies.Rer.tau[1]", "-2", ">= 0"]),
    ("tau-not-a-number", _set(("policies", "Rep"), {"tau": "zero"}), ["policies.Rep.tau", "'zero'", ">= 0", "'opt'"]),
    ("tau-negative-axis", _set(("grid", "Rep.tau"), [0, -1]), ["grid.Rep.tau[1]", "-1"]),
    ("tau-unknown-word", _set(("policies", "Rep"), {"tau": "optimal"}), ["policies.Rep.tau", "'optimal'", "'opt'"]),
    ("tau-empty-list", _set(("policies", "Rer"), {"tau": []}), ["policies.Rer.tau", "[]"]),
    ("unknown-policy-parameter", _set(("policies", "Rer"), {"taux": 1}), ["policies.Rer.taux", "did you mean 'tau'"]),
    ("fj-k-zero", _set(("policies", "FJ"), {"k": 0}), ["policies.FJ.k", "value 0", ">= 1"]),
    ("fj-k-zero-in-list", _set(("policies", "FJ"), {"k": [2, 0]}), ["policies.FJ.k[1]", "value 0"]),
    ("fj-early-not-bool", _set(("policies", "FJ"), {"early": "yes"}), ["policies.FJ.early", "'yes'", "true or false"]),
    ("policy-twice", _set(("policies",), {"Rer": {"tau": 1}, "SLB": {"tau": 2}}), ["policies.SLB", "Rer"]),
    ("types-p-sum", _set(("system", "types", "p"), [0.5, 0.6]), ["system.types.p", "[0.5, 0.6]", "sum"]),
    ("types-p-negative", _set(("system", "types", "p"), [1.5, -0.5]), ["system.types.p[1]", "-0.5"]),
    (
        "types-p-three-types",
        _set(("system", "types", "p"), [0.2, 0.3, 0.5]),
        ["system.types.p", "[0.2, 0.3, 0.5]", "system.speeds"],
    ),
    (
        "discrete-p-sum",
        _add_dist("b", {"family": "discrete", "values": [1, 10], "p": [0.9, 0.2]}),
        ["distributions.b.p", "[0.9, 0.2]", "sum"],
    ),
    (
        "discrete-p-negative",
        _add_dist("b", {"family": "discrete", "values": [1, 10], "p": [1.1, -0.1]}),
        ["distributions.b.p[1]", "-0.1"],
    ),
    (
        "discrete-lengths",
        _add_dist("b", {"family": "discrete", "values": [1, 10, 100], "p": [0.5, 0.5]}),
        ["distributions.b.values", "[1, 10, 100]"],
    ),
    (
        "hyperexponential-p-sum",
        _add_dist("h", {"family": "hyperexponential", "p": [0.5, 0.4], "rates": [1, 2]}),
        ["distributions.h.p", "[0.5, 0.4]", "sum"],
    ),
    (
        "hyperexponential-p-negative",
        _add_dist("h", {"family": "hyperexponential", "p": [1.5, -0.5], "rates": [1, 2]}),
        ["distributions.h.p[1]", "-0.5"],
    ),
    ("belief-above-1", _set(("system", "types", "belief"), 1.5), ["system.types.belief", "1.5", "[0, 1]"]),
    ("belief-negative", _set(("system", "types", "belief"), -0.1), ["system.types.belief", "-0.1"]),
    (
        "belief-matrix-rows",
        _set(("system", "types", "belief"), [[0.9, 0.2], [0.1, 0.9]]),
        ["system.types.belief[0]", "[0.9, 0.2]", "sum"],
    ),
    ("confidence-1", _set(("simulation", "confidence"), 1), ["simulation.confidence", "value 1", "(0, 1)"]),
    ("confidence-0", _set(("simulation", "confidence"), 0), ["simulation.confidence", "value 0"]),
    ("jobs-0", _set(("simulation", "jobs"), 0), ["simulation.jobs", "value 0", ">= 1"]),
    ("replications-0", _set(("simulation", "replications"), 0), ["simulation.replications", "value 0", ">= 1"]),
    ("warmup-negative", _set(("simulation", "warmup"), -1), ["simulation.warmup", "-1", ">= 0"]),
    ("jobs-not-integer", _set(("simulation", "jobs"), 1000.5), ["simulation.jobs", "1000.5", "integer"]),
    ("unknown-simulation-key", _set(("simulation", "job"), 10), ["simulation.job", "did you mean 'jobs'"]),
    ("seed-negative", _set(("seed",), -1), ["seed", "-1"]),
    ("study-name", _set(("study",), "my study"), ["study", "'my study'"]),
    (
        "distribution-name-with-dot",
        _add_dist("my.exp", {"family": "exponential", "mean": 1}),
        ["distributions.my.exp", "'my.exp'"],
    ),
    (
        "builtin-dependence-redefined",
        _set(("dependences", "identical"), {"kind": "iid"}),
        ["dependences.identical", "iid"],
    ),
    ("no-possible-cell", lambda raw: raw["grid"].update(policy=["CoC"], d=[20]), ["grid", "d > N"]),
    (
        "central-with-ps",
        lambda raw: raw.update(system={"queueing": "central", "discipline": "PS"}),
        ["system.queueing", "'central'", "per_server", "'PS'", "no central processor-sharing model"],
    ),
    (
        "extra-axis-central-with-ps",
        lambda raw: (
            raw.update(system={"discipline": "PS"})
            or raw["grid"].update({"system.queueing": ["per_server", "central"]})
        ),
        ["grid.system.queueing[1]", "'central'", "per_server", "'PS'"],
    ),
    (
        "extra-axis-ps-with-central",
        lambda raw: (
            raw.update(system={"queueing": "central"}) or raw["grid"].update({"system.discipline": ["FCFS", "PS"]})
        ),
        ["grid.system.discipline[1]", "'central'", "'PS'"],
    ),
    (
        "no-possible-cell-central",
        lambda raw: raw["grid"].update(policy=["CoC", "FJ"]) or raw.update(system={"queueing": "central"}),
        ["grid", "no cell", "central"],
    ),
    # extra axes
    ("extra-axis-bad-tau", _set(("grid", "Rer.tau"), [1, -1]), ["grid.Rer.tau[1]", "-1", "policies.Rer.tau"]),
    ("extra-axis-pareto-alpha", _set(("grid", "pareto.alpha"), [0.5, 2]), ["grid.pareto.alpha[0]", "0.5", "> 1"]),
    ("extra-axis-p1", _set(("grid", "types.p1"), [0.5, 2]), ["grid.types.p1[1]", "2", "system.types.p"]),
    ("extra-axis-p1-text", _set(("grid", "types.p1"), ["half"]), ["grid.types.p1[0]", "'half'", "number"]),
    ("extra-axis-belief", _set(("grid", "types.belief"), [0.5, 1.2]), ["grid.types.belief[1]", "1.2", "[0, 1]"]),
    (
        "extra-axis-knowledge",
        _set(("grid", "types.knowledge"), ["known", "psychic"]),
        ["grid.types.knowledge[1]", "'psychic'"],
    ),
    (
        "extra-axis-discipline",
        _set(("grid", "system.discipline"), ["FCFS", "LIFO"]),
        ["grid.system.discipline[1]", "'LIFO'"],
    ),
    ("extra-axis-fj-k", _set(("grid", "FJ.k"), [1, 0]), ["grid.FJ.k[1]", "value 0"]),
    ("extra-axis-unknown-head", _set(("grid", "Rre.tau"), [1]), ["grid.Rre.tau", "did you mean 'Rer'"]),
    ("extra-axis-unknown-policy-param", _set(("grid", "Rer.tua"), [1]), ["grid.Rer.tua", "did you mean 'tau'"]),
    ("extra-axis-no-params", _set(("grid", "ZRed.tau"), [1]), ["grid.ZRed.tau", "no parameters"]),
    ("extra-axis-unknown-dist-param", _set(("grid", "pareto.alfa"), [2]), ["grid.pareto.alfa", "did you mean 'alpha'"]),
    (
        "extra-axis-unknown-system",
        _set(("grid", "types.beleif"), [1]),
        ["grid.types.beleif", "did you mean 'types.belief'"],
    ),
    (
        "extra-axis-twice",
        lambda raw: raw["grid"].update({"Rer.tau": [1], "SLB.tau": [2]}),
        ["grid.SLB.tau", "grid.Rer.tau"],
    ),
    (
        "extra-axis-and-policy-list",
        lambda raw: raw["grid"].update({"Rer.tau": [1]}) or raw.update(policies={"Rer": {"tau": [1, 2]}}),
        ["grid.Rer.tau", "policies.Rer.tau"],
    ),
    ("extra-axis-not-list", _set(("grid", "Rer.tau"), 3), ["grid.Rer.tau", "value 3", "list"]),
]


@pytest.mark.parametrize("modify, expected", [pytest.param(m, e, id=i) for i, m, e in BAD])
def test_bad_value_refused(modify, expected):
    raw = minimal()
    modify(raw)
    errors = errors_of(raw)
    assert any(all(s in err for s in expected) for err in errors), "\n".join(errors)


def test_multiple_errors_reported_together():
    raw = minimal()
    raw["load"] = [0.1, "fast"]
    raw["system"] = {"discipline": "fifo", "types": {"p": [0.5, 0.6]}}
    raw["grid"]["N"] = [9]
    raw["grid"]["policy"] = ["ZRed", "Rerr"]
    raw["distributions"]["pareto"]["alpha"] = 0.9
    raw["simulation"] = {"confidence": 2}
    errors = errors_of(raw)
    for key in (
        "load[1]",
        "system.discipline",
        "system.types.p",
        "grid.N[0]",
        "grid.policy[1]",
        "distributions.pareto.alpha",
        "simulation.confidence",
    ):
        assert any(err.startswith(key) for err in errors), (key, errors)
    assert len(errors) == len(set(errors)) == 7


def test_shifted_exponential_old_mean_spelling_is_refused_naming_the_key():
    raw = minimal()
    raw["distributions"]["se"] = {"family": "shifted_exponential", "shift": 1, "mean": 1}
    raw["grid"]["distribution"] = ["se"]
    (error,) = errors_of(raw)
    assert error.startswith("distributions.se.mean: shifted_exponential: mean 1 is not allowed")
    assert "mean: 2" in error  # the law the old spelling meant


def test_not_a_mapping():
    assert "mapping" in errors_of([1, 2])[0]


# --------------------------------------------------------------------------- apply_override


@pytest.fixture(scope="module")
def resolved():
    return resolve_config(example())


def test_apply_override_types_p1(resolved):
    out = apply_override(resolved, "types.p1", 0.7)
    assert out.system.types.p == (0.7, 0.3)  # the decimal complement, not 0.30000000000000004
    assert apply_override(resolved, "types.p1", 1).to_dict()["system"]["types"]["p"] == [1, 0]
    assert resolved.system.types.p == (0.5, 0.5)  # the input is untouched


def test_apply_override_types_belief_and_system(resolved):
    assert apply_override(resolved, "types.belief", 0.75).to_dict()["system"]["types"]["belief"] == 0.75
    assert apply_override(resolved, "types.knowledge", "partial").to_dict()["system"]["types"]["knowledge"] == "partial"
    assert apply_override(resolved, "system.discipline", "PS").to_dict()["system"]["discipline"] == "PS"
    assert apply_override(resolved, "system.queueing", "central").to_dict()["system"]["queueing"] == "central"


def test_apply_override_policy_parameter(resolved):
    out = apply_override(resolved, "Rer.tau", 2)
    assert out.policies["Rer"] == {"tau": 2, "resume": False}
    assert apply_override(resolved, "SLB.tau", 5).to_dict()["policies"]["Rer"]["tau"] == 5
    # a policy that the resolved config does not list gets its defaults first
    assert apply_override(resolved, "FJ.early", True).to_dict()["policies"]["FJ"] == {
        "k": 2,
        "early": True,
        "keep": "d",
        "split": "none",
        "cost_limit": math.inf,
    }
    assert apply_override(resolve_config(minimal()), "FJ.k", 3).to_dict()["policies"]["FJ"] == {
        "k": 3,
        "early": False,
        "keep": "d",
        "split": "none",
        "cost_limit": math.inf,
    }
    assert resolved.policies["Rer"]["tau"] == "opt"


def test_apply_override_distribution_parameter(resolved):
    out = apply_override(resolved, "pareto.alpha", 1.5)
    assert out.distributions["pareto"] == {"family": "pareto", "xm": 1, "alpha": 1.5}
    assert resolved.distributions["pareto"]["alpha"] == 2.2


@pytest.mark.parametrize("path", ["Rer.taux", "nosuch.param", "pareto.mean", "types.q", "ZRed.tau"])
def test_apply_override_unknown_path(resolved, path):
    with pytest.raises(ValueError):
        apply_override(resolved, path, 1)


# --------------------------------------------------------------------------- files and dumping


def test_load_config_bad_yaml(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("grid:\n  policy: [ZRed, Rer\nload: [0.1]\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value) and "line" in str(info.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("- 1\n- 2\n", "mapping"),
        ("", "empty"),
        ("just text\n", "mapping"),
        ("load: [0.1]\nload: [0.2]\n", "duplicate key 'load'"),
    ],
)
def test_load_config_refuses(tmp_path, text, expected):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value) and expected in str(info.value)


def test_load_config_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.yaml")


def test_load_config_reads_exponents_as_floats(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("load: [1e-1, 0.5, 2E-1]\n")
    assert load_config(path)["load"] == [0.1, 0.5, 0.2]


def test_dump_round_trip(tmp_path, resolved):
    text = dump_config(resolved)
    assert text.splitlines()[0] == "study: default"
    path = tmp_path / "resolved.yaml"
    path.write_text(text)
    assert load_config(path) == resolved.to_dict()
    assert dump_config(resolve_config(load_config(path))) == text
    assert C.read_config(path) == resolved


# --------------------------------------------------------------------------- the schema file


def test_the_workflow_s_schema_file_is_the_generated_schema():
    """workflow/schemas/config.schema.yaml is `straggler schema`'s output, read back as the schema."""
    from straggler.study.config.schema import SCHEMA_FILE, schema_text

    text = (REPO / SCHEMA_FILE).read_text(encoding="utf-8")
    assert text == schema_text(), "regenerate it: straggler schema > " + SCHEMA_FILE
    assert yaml.safe_load(text) == C.schema()


def test_the_schema_s_defaults_are_the_typed_config_s():
    """A section built from nothing but its dataclass defaults is what the schema fills in."""
    from straggler.study.config import resolved as R

    filled = resolve_config(minimal())
    assert R.SystemConfig() == filled.system
    assert R.SimulationConfig() == filled.simulation
    assert R.ExecutionConfig() == filled.execution


def test_schema_is_valid_draft_2020_12():
    from jsonschema import Draft202012Validator

    schema = C.schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_schema_policies_match_policy_table():
    schema = C.schema()
    assert sorted(schema["$defs"]["policy_name"]["enum"]) == sorted(all_policy_names())
    props = schema["properties"]["policies"]["properties"]
    assert sorted(props) == sorted(all_policy_names())
    for name, sub in props.items():
        spec = POLICIES[C.canonical_policy(name)]
        params = C.deref(sub).get("properties", {})
        assert sorted(params) == sorted(spec.parameters), name
        for param, default in spec.parameters.items():
            assert params[param].get("default") == default, (name, param)


def test_schema_families_match_distributions():
    from straggler.model import distributions

    assert sorted(C.family_parameters()) == sorted(distributions.FAMILIES)
    for family, params in C.family_parameters().items():
        optional = [p for p in distributions.OPTIONAL_PARAMETERS[family] if p != "scale_to_mean"]
        assert sorted(params) == sorted([*distributions.PARAMETERS[family], *optional]), family


def test_schema_describes_every_key():
    schema = C.schema()
    missing = []

    def visit(node, where):
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                target = C.deref(sub) if isinstance(sub, dict) else sub
                if not (isinstance(sub, dict) and ("description" in sub or "description" in target)):
                    missing.append(f"{where}.{key}")
            for key, sub in node.items():
                if key != "if":  # the family / kind tests of the conditional branches
                    visit(sub, f"{where}.{key}")
        elif isinstance(node, list):
            for i, sub in enumerate(node):
                visit(sub, f"{where}[{i}]")

    visit(schema, "schema")
    assert not missing


def test_schema_defaults_match_resolved_defaults():
    props = C.schema()["properties"]
    raw = minimal()
    del raw["grid"]["r_slow"]
    resolved = resolve_config(raw).to_dict()
    assert props["study"]["default"] == resolved["study"]
    assert props["seed"]["default"] == resolved["seed"]
    for key in ("dependence", "r_slow", "d", "N"):
        assert props["grid"]["properties"][key]["default"] == resolved["grid"][key]
    for key, sub in props["simulation"]["properties"].items():
        if key in ("precision", "max_jobs"):  # optional, no default: absent unless given
            assert "default" not in sub and key not in resolved["simulation"]
            continue
        assert sub["default"] == resolved["simulation"][key]


def test_snakemake_validate_accepts_the_example_and_fills_defaults():
    from snakemake.utils import validate

    raw = example()
    del raw["simulation"]
    validate(raw, str(REPO / "workflow" / "schemas" / "config.schema.yaml"))
    assert raw["simulation"]["jobs"] == 200000


def test_a_scale_merges_its_overrides_and_keeps_its_own_results():
    raw = dict(
        minimal(),
        study="s",
        scales={"paper": {"simulation": {"jobs": 10**7, "replications": 50}, "load": [0.1, 0.3, 0.5]}},
    )
    quick = resolve_config(raw).to_dict()
    assert quick["study"] == "s" and quick["scale"] == "quick"
    assert quick["simulation"]["jobs"] == 200000 and quick["load"] == [0.1, 0.5]
    paper = resolve_config(dict(raw, scale="paper")).to_dict()
    assert paper["study"] == "s-paper" and paper["scale"] == "paper"
    assert paper["simulation"]["jobs"] == 10**7 and paper["simulation"]["warmup"] == 20000
    assert paper["load"] == [0.1, 0.3, 0.5] and "scales" not in paper
    # a study without scales resolves exactly as before
    assert resolve_config(minimal()).scale is None
    assert resolve_config(dict(minimal(), scale="quick")) == resolve_config(minimal())


def test_scale_errors_name_the_key():
    assert errors_of(dict(minimal(), scale="paper")) == [
        "scale: value 'paper' is not allowed; expected quick: this study defines no other "
        "scale (a study file lists them under scales)"
    ]
    errs = errors_of(dict(minimal(), scale="papr", scales={"paper": {}}))
    assert any(e.startswith("scale: value 'papr' is not allowed") and "did you mean 'paper'" in e for e in errs)
    errs = errors_of(dict(minimal(), scales={"huge": {}, "paper": {"seed": 1}}))
    assert any(e.startswith("scales.huge: key 'huge' is not allowed") for e in errs)
    assert any(e.startswith("scales.paper.seed: value 1 is not allowed") for e in errs)
    errs = errors_of(dict(minimal(), scale="paper", scales={"paper": {"simulation": {"jobs": 0}}}))
    # a key set under scales.paper is named by its full path there
    assert any(e.startswith("scales.paper.simulation.jobs: value 0") for e in errs)


@pytest.mark.parametrize("study", sorted(p.stem for p in (REPO / "config" / "studies").glob("*.yaml")) + ["config"])
def test_a_typed_override_is_the_dict_round_trip_it_replaces(study):
    # apply_override replaces one section of the typed config; it must give what setting
    # the value in the resolved dict and building the config again gave, key order included
    # (the dataset's config text and the hashes are made from to_dict)
    from straggler.study.config.axes import applied, axes_of, axis_of
    from straggler.study.config.keys import SYSTEM_AXES
    from straggler.study.config.resolved import ResolvedConfig
    from straggler.study.grid import build_grid

    path = REPO / "config" / ("config.yaml" if study == "config" else f"studies/{study}.yaml")
    resolved = resolve_config(load_config(path))
    overrides = 0
    for cell in build_grid(resolved).cells.values():
        typed = dict_route = resolved
        for axis, value in cell.coords:
            if "." not in axis and axis in ("policy", "distribution", "dependence", "r_slow", "d", "N"):
                continue
            key = axis if "." in axis or axis in SYSTEM_AXES else f"{cell.policy}.{axis}"
            typed = apply_override(typed, key, value)
            data = dict_route.to_dict()
            dict_route = ResolvedConfig.from_dict(applied(data, axis_of(key, data), value))
            overrides += 1
        assert typed == dict_route
        assert yaml.safe_dump(typed.to_dict(), sort_keys=False) == yaml.safe_dump(dict_route.to_dict(), sort_keys=False)
    swept = [a for a in axes_of(resolved) if a not in ("policy", "distribution", "dependence", "r_slow", "d", "N")]
    assert bool(overrides) == bool(swept), (study, swept)  # where a study sweeps one, the comparison ran


def test_the_resolved_sections_are_the_schema_s_keys():
    """The schema describes the keys a user writes; the typed sections hold them resolved,
    in the order of the resolved dict: the same keys, so the two cannot drift apart."""
    from dataclasses import fields

    from straggler.study.config import resolved as R
    from straggler.study.config.resolved import KEY_ORDER

    top = C.schema()["properties"]
    assert [f.name for f in fields(R.ResolvedConfig)] == [k for k in KEY_ORDER if k != "scales"]
    assert set(top) == set(KEY_ORDER)
    sections = {
        ("system",): R.SystemConfig,
        ("simulation",): R.SimulationConfig,
        ("execution",): R.ExecutionConfig,
        ("system", "types"): R.TypesConfig,
    }
    for path, cls in sections.items():
        node = top[path[0]]
        for key in path[1:]:
            node = C.deref(node)["properties"][key]
        assert list(C.deref(node)["properties"]) == [f.name for f in fields(cls)], path
