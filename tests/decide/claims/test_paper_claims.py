"""Every shipped paper study at its quick scale: each claim is decided (``holds`` or
``fails``, never ``not tested``), and the verdicts are the ones the project stands
behind: every claim holds but four that fail for a reason in the paper, which their
evidence states.

Each test runs one study's evaluation and aggregation through Snakemake in a temporary
directory (the seeds are the study files', so the numbers are the same on every
machine), then checks the claims on its dataset. About 15 minutes for all twelve on two
cores: behind the ``papers`` marker (``make test-papers``; CI runs them).
"""

from pathlib import Path

import pytest
import xarray as xr
from runs import snakemake

from straggler.decide.claims import FAILS, HOLDS, NOT_TESTED, check_claims

ROOT = Path(__file__).resolve().parents[3]

PAPERS = {
    "threshold": ["threshold_p1", "threshold_r_slow", "threshold_belief", "threshold_latency"],
    "ps": ["ps_redundancy", "ps_fig5", "ps_fig6"],
    "forkjoin": ["forkjoin_replicas", "forkjoin_k_tradeoff", "forkjoin_strategy"],
    "speculation": ["speculation_fig1", "speculation_fig2"],
}

HONEST_FAILURES = {
    ("ps_fig5", "about-1.5-percent"): "the paper does not name its laws",
    ("ps_fig6", "about-1"): "the paper reads its plot loosely",
    ("threshold_belief", "belief-iid-no-threshold"): "Not reproducible from eq. (4)",
    ("speculation_fig2", "coc-beyond-cos"): "The paper generalises beyond what its model gives",
}
"""The claims that fail at quick scale, and the words of the reason their evidence gives."""

pytestmark = pytest.mark.papers


def study_dataset(study: str, workdir: Path) -> xr.Dataset:
    """The study's dataset at its quick scale, computed in ``workdir``."""
    target = f"results/{study}/{study}.nc"
    configfile = ROOT / "config" / "studies" / f"{study}.yaml"
    run = snakemake(workdir, configfile, "--cores", "all", target, timeout=3600)
    assert run.returncode == 0, run.stderr[-4000:]
    with xr.open_dataset(workdir / target) as ds:
        return ds.load()


def check_study(study: str, workdir: Path) -> None:
    table = check_claims(study_dataset(study, workdir))
    assert len(table) >= 5
    untested = table[table["verdict"] == NOT_TESTED]
    assert untested.empty, f"not tested: {dict(zip(untested['claim'], untested['evidence']))}"
    for row in table.to_dict("records"):
        reason = HONEST_FAILURES.get((study, row["claim"]))
        expected = FAILS if reason else HOLDS
        assert row["verdict"] == expected, f"{row['claim']}: {row['verdict']} ({row['evidence']})"
        if reason:
            assert reason in row["evidence"], f"{row['claim']}: the reason is missing ({row['evidence']})"


@pytest.mark.parametrize("study", PAPERS["threshold"])
def test_threshold_paper_claims(study, tmp_path):
    check_study(study, tmp_path)


@pytest.mark.parametrize("study", PAPERS["ps"])
def test_ps_paper_claims(study, tmp_path):
    check_study(study, tmp_path)


@pytest.mark.parametrize("study", PAPERS["forkjoin"])
def test_forkjoin_paper_claims(study, tmp_path):
    check_study(study, tmp_path)


@pytest.mark.parametrize("study", PAPERS["speculation"])
def test_speculation_paper_claims(study, tmp_path):
    check_study(study, tmp_path)


def test_every_paper_study_is_checked():
    shipped = {p.stem for p in (ROOT / "config" / "studies").glob("*.yaml")} - {
        "verdict_check",
        "measured",
        "measured_types",
        "slo_budget",
        "hedging",  # an operator's question: hedging against the papers' policies, no paper's claims
        "fleet_sizes",  # the answer against N: tests/workflow/test_fleet_sizes.py checks it
    }
    assert shipped == {s for studies in PAPERS.values() for s in studies}
    assert {study for study, _ in HONEST_FAILURES} <= shipped
