"""The papers' claims, checked on a study's dataset.

Each paper study (``config/studies/<name>.yaml``; a ``-<scale>`` suffix of the study
name is ignored) ships claims of its paper: where in the paper (``source``), what
the paper says (``statement``), how it is tested on the dataset (``test``, in words)
and the test itself, a Python function of the dataset that returns the verdict
(``holds`` or ``fails``) and the numbers behind it. A claim whose data the study
does not hold (an axis or a value missing, no stable load) is ``not tested``, with
the reason. The claims are code: a study file only names the study (the tests read
the laws' properties, such as a size law's squared coefficient of variation, from
the configuration the dataset records).

How a claim is tested:

- *What the sentence says, where it speaks.* A statement about low or heavy traffic
  is tested at a load of that regime on the study's grid (a utilisation of a few
  percent; a load between the two largest capacities), not at the grid's ends
  whatever they are. A law named by a property ("the highest variance") is chosen
  by that property, not by its place in the grid.
- *Simulated values with their error.* A claim about simulated values fails only
  when the data contradict it beyond the statistical error: a difference of two
  simulated means by the paired Student-t CI of their per-replication means
  (:func:`~straggler.decide.claims.data.difference`; policies compared on one workload share its random numbers,
  which makes it tight), a value against a number by its CI. The evidence says
  whether the data decide the point or only do not contradict it.
- *Tolerances are the sentence's.* "About 2" is taken as within 25 % of 2,
  "reasonably good" and "quite accurate" as a median relative error of at most
  10 % and 5 %, "nearly insensitive" as a spread of at most 5 %, "the same" as
  equal to 1e-6 (analysis) or within the statistical error (simulation).
- *An honest failure says why.* Where the paper's text contradicts its own
  formulas, reads its plot loosely or leaves a parameter unstated, the evidence of
  the failing claim says so, with the numbers.
"""

from .claim import CLAIM_VERDICTS, FAILS, HOLDS, NOT_TESTED, Claim, NotTested, Outcome, outcome
from .registry import COLUMNS, check, check_claims, claims_for, study_key

__all__ = [
    "CLAIM_VERDICTS",
    "COLUMNS",
    "FAILS",
    "HOLDS",
    "NOT_TESTED",
    "Claim",
    "NotTested",
    "Outcome",
    "check",
    "check_claims",
    "claims_for",
    "outcome",
    "study_key",
]
