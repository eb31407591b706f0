"""The comparison report of a study: which policy to use where, and on what evidence.

Every value is an interval from its best evidence (:mod:`straggler.decide.intervals`) and a
policy wins only by dominance (:mod:`straggler.decide.winners`): ties are reported as tie
sets. The report opens with the answer to the study's question when it states an SLO
or a budget (:mod:`straggler.decide.decision`), then the recommendation at every setting and
load (the constrained answer, or else the E[T] winner or tie set, a tie narrowed by E[C]
among the tied, with its E[T], tail, extra-load and E[C] intervals, the runner-up and the
margin), then a few sentences, then the detail: winners per
criterion, the stability verdicts (counts by source, undetermined loads with the
jobs that would decide them, contradictions), theory against simulation, the claims
and the provenance. Written as ``winners.csv`` (one row per setting, load and
criterion), ``report.md`` and ``report.html``.

The modules: :mod:`.tables` (the rows built from the dataset), :mod:`.words` (the
sentences and legends), :mod:`.pages` (``report.md`` and ``report.html`` assembled, the
files written) and :mod:`.best` (``straggler best``: the answer at one point).
"""

from .best import best_at, located_lines, parse_point
from .pages import SECTIONS, html, markdown, write_report
from .tables import (
    at_the_trace,
    claims_table,
    counts,
    criterion_table,
    disagreement_table,
    frontier_counts,
    law_differences,
    located_table,
    measured_laws,
    metric_label,
    recommendation_table,
    resample_agreement,
    resample_axes,
    theory_table,
    tuned_table,
    verdict_summary,
)
from .words import (
    BASIS_WORDS,
    DISAGREEMENT_WORDS,
    LOCATED_WORDS,
    NUMBER_LABEL,
    TUNED_WORDS,
    answer_sentences,
    conflict_sentences,
    headline_lead,
    located_sentences,
    redundancy_sentences,
    summary,
    undetermined_sentences,
    unit_words,
    unreliable_sentences,
)

__all__ = [
    "BASIS_WORDS",
    "DISAGREEMENT_WORDS",
    "LOCATED_WORDS",
    "NUMBER_LABEL",
    "SECTIONS",
    "TUNED_WORDS",
    "answer_sentences",
    "at_the_trace",
    "best_at",
    "claims_table",
    "conflict_sentences",
    "counts",
    "criterion_table",
    "disagreement_table",
    "frontier_counts",
    "headline_lead",
    "html",
    "law_differences",
    "located_lines",
    "located_sentences",
    "located_table",
    "markdown",
    "measured_laws",
    "metric_label",
    "parse_point",
    "recommendation_table",
    "redundancy_sentences",
    "resample_agreement",
    "resample_axes",
    "summary",
    "theory_table",
    "tuned_table",
    "undetermined_sentences",
    "unit_words",
    "unreliable_sentences",
    "verdict_summary",
    "write_report",
]
