"""Break-even cancellation delays (straggler.decide.break_even): which settings are searched, the
bracket the search returns checked against the simulation at its two ends, and a rerun
that reads its probes back and answers bit for bit the same."""

import math

import numpy as np
import yaml

from straggler.decide.break_even import SINGLE_COPY, BreakEvenSearch, break_even_table, delay_settings, report_frame
from straggler.engines.simulation.statistics import paired_ci
from straggler.study.config import resolve_config
from straggler.study.dataset import aggregate
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid


def _raw(**over):
    raw = {
        "study": "break_even_test",
        "seed": 7,
        "grid": {
            "policy": ["ZRed", "CoC"],
            "distribution": ["exp"],
            "dependence": ["iid"],
            "N": [4],
            "d": [2],
            "cancel_delay": [0, 0.5],
        },
        "load": [0.3],
        "distributions": {"exp": {"family": "exponential", "mean": 1}},
        "simulation": {"jobs": 20000, "warmup": 2000, "replications": 6, "confidence": 0.95},
        "decision": {"resolution": 0.05},
    }
    raw.update(over)
    return raw


def _search(raw, store):
    resolved = resolve_config(raw)
    grid = build_grid(resolved)
    cells = {cid: evaluate_cell(resolved, cid, store) for cid in grid.cells}
    ds = aggregate(grid, cells, {"config": yaml.safe_dump(resolved.to_dict(), sort_keys=False)})
    settings = delay_settings(grid)
    assert len(settings) == 1 and "cancel_delay" not in settings[0]
    search = BreakEvenSearch(resolved, grid, settings[0], store, dict(ds.attrs))
    return search, search.run()


def test_only_a_grid_that_sweeps_the_delay_against_single_copy_is_searched():
    assert SINGLE_COPY == "ZRed"
    without_zred = _raw(grid={**_raw()["grid"], "policy": ["CoC", "CoS"]})
    assert delay_settings(build_grid(resolve_config(without_zred))) == []
    fixed = _raw(grid={k: v for k, v in _raw()["grid"].items() if k != "cancel_delay"})
    assert delay_settings(build_grid(resolve_config(fixed))) == []


def test_the_bracket_holds_at_both_ends_and_a_rerun_answers_the_same(tmp_path):
    """CoC-2 with i.i.d. exponential copies on 4 servers at load 0.3 beats one copy at a
    delay of 0 (E[T] 0.6 against 1.43) and loses at some delay: at the bracket's low end the
    paired CI of E[T](CoC) - E[T](ZRed) lies below 0, at its high end it does not."""
    search, found = _search(_raw(), tmp_path)
    rows = [r for r in found["break_even"] if r["criterion"] == "latency"]
    assert len(rows) == 1
    row = rows[0]
    low, high = row["break_even_low"], row["break_even_high"]
    assert 0.0 < low < high < math.inf, row
    single, (coc,) = search.contenders()

    def ci(delay):  # on the replications the search judged the delay on (a tie is run longer)
        r = search.search._runs.get((search._what(coc, 0.3, "latency"), delay))
        base = search._values(search.search.evaluate(single.cell, [0.3], r), 0.3, "latency")
        return paired_ci(search._values(search._at(coc, delay, 0.3, r), 0.3, "latency"), base, 0.95)

    at_low, at_high = ci(low), ci(high)
    assert at_low[1] < 0.0
    assert at_high[1] >= 0.0
    # the probes were stored: a second search reads them back and decides the same
    _, again = _search(_raw(), tmp_path)
    assert again["break_even"] == found["break_even"]
    assert again["simulated_jobs"] == 0
    table = break_even_table([found])
    assert list(table.columns[:3]) == ["distribution", "dependence", "r_slow"]
    assert np.isclose(table["break_even_low"].iloc[0], low)


def test_the_report_shows_the_bracket(tmp_path):
    _, found = _search(_raw(), tmp_path)

    class _Ds:
        attrs = {"break_even": break_even_table([found]).to_csv(index=False)}

    frame = report_frame(_Ds())
    assert list(frame.columns) == ["load", "contender", "criterion", "break-even", "evidence"]
    assert frame["break-even"].iloc[0].startswith("[")


def test_the_first_lines_give_each_policy_s_range_of_break_evens():
    import xarray as xr

    from straggler.decide.break_even import sentences

    header = "contender,load,policy,criterion,break_even_low,break_even_high,evidence,probes"
    rows = [
        "CoC,0.3,CoC,latency,3.31,3.37,located,20",
        "CoC,0.7,CoC,latency,1.39,1.5,located,17",
        "CoS,0.3,CoS,latency,10,inf,the low side's answer holds up to 10: no upper end found,10",
        "Hedge a,0.3,Hedge,latency,,0.01,not faster at the smallest delay,3",
        "Hedge b,0.3,Hedge,latency,0.75,0.8,located,12",
        "RIQ,0.3,RIQ,P99,,0.01,not faster at the smallest delay,3",
    ]
    ds = xr.Dataset(attrs={"break_even": "\n".join([header, *rows]) + "\n"})
    latency, tail = sentences(ds)
    assert latency.startswith("Break-even cancellation delay on E[T]")
    assert "CoC 1.39 to 3.31; CoS 10 or more; Hedge 0.75 (1 of 2 never)" in latency
    assert tail.startswith("Break-even cancellation delay on P99") and "RIQ never beats it" in tail
