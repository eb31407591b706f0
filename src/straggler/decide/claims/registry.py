"""The paper studies' claims and their verdicts on a study's dataset."""

from __future__ import annotations

import pandas as pd
import xarray as xr

from . import forkjoin, ps, speculation, threshold
from .claim import NOT_TESTED, Claim, NotTested, Outcome

CLAIMS: tuple[Claim, ...] = (*threshold.CLAIMS, *ps.CLAIMS, *forkjoin.CLAIMS, *speculation.CLAIMS)
"""Every paper's claims, each tagged with the studies that check it."""


def study_key(study: str) -> str:
    """The study's name without a ``-<scale>`` suffix (``speculation_fig2-paper``)."""
    from ...study.config import SCALES

    for scale in SCALES:
        if study.endswith(f"-{scale}"):
            return study[: -len(scale) - 1]
    return study


def claims_for(study: str) -> list[Claim]:
    """The claims the study checks, in the order of :data:`CLAIMS` (none for a study
    that reproduces no paper)."""
    key = study_key(study)
    return [claim for claim in CLAIMS if key in claim.studies]


def check(claim: Claim, ds: xr.Dataset) -> Outcome:
    """The claim's verdict on ``ds`` (``not tested`` when the data are not there)."""
    try:
        return claim.check(ds)
    except NotTested as why:
        return Outcome(NOT_TESTED, str(why))
    except (TypeError, ValueError, IndexError) as err:
        # data of a shape the test does not expect (a study edited beyond the paper's
        # grid): say so rather than fail the report
        return Outcome(NOT_TESTED, f"the test could not run on this dataset ({type(err).__name__}: {err})")


COLUMNS = ("claim", "source", "statement", "test", "verdict", "evidence", "paper")


def check_claims(ds: xr.Dataset, claims: list[Claim] | None = None) -> pd.DataFrame:
    """One row per claim of the study behind ``ds`` (columns :data:`COLUMNS`)."""
    if claims is None:
        claims = claims_for(str(ds.attrs.get("study", "")))
    rows = []
    for claim in claims:
        result = check(claim, ds)
        rows.append(
            {
                "claim": claim.id,
                "source": claim.source,
                "statement": claim.statement,
                "test": claim.test,
                "verdict": result.verdict,
                "evidence": result.evidence,
                "paper": claim.paper,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))
