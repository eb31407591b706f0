"""Figures of a study dataset (matplotlib; PNG and SVG side by side).

What a reader can rely on in every figure of every study:

- a policy has one colour and one marker (:func:`policy_style`, from the policy
  registry), whatever the figure and whatever else it shows; series that are not
  policies (loads, variants, job-size laws of one policy) are shades of that
  policy's colour;
- what a value is shows in how it is drawn (:data:`KIND_STYLE`): an exact value is a
  solid line, an approximation dashed (as the threshold paper draws its Fig. 6), an
  upper bound dotted and a lower bound dash-dotted, each with hollow markers and a
  grey ring around a point that is only a bound; a simulated estimate is a filled
  marker with its confidence interval. A line joins only consecutive values of the
  same kind, so a bound is never on one line with exact values. Legends say "upper
  bound", "lower bound", "approximation", never "analysis";
- a simulated load without an estimate (its verdict is not ``stable``) gets a mark
  in a strip under the panel, outside the data area (:data:`VERDICT_MARKS`: x
  unstable, ? undetermined, ∞ an infinite mean; a row per policy); CIs are clipped
  at 0; what was measured there
  (``latency_sample_mean``) is never drawn as an estimate;
- panels: one row per (distribution, dependence) case in the study's order, columns
  for a second swept axis or for loads in increasing order; every other dimension is
  sliced at its first value and the title says where. Figures are at most 7 inches
  wide with 7-8 pt text, so that they stay legible at a paper's (double) column width.

The names of a study's figures follow from its grid's axes
(:func:`straggler.outputs.catalog.figure_names`), so that Snakemake can declare them before
any job runs; every kind of figure, with the module and function here that draw it,
is a row of :data:`straggler.outputs.catalog.FIGURE_KINDS`. The modules: :mod:`.style`,
:mod:`.selection`, :mod:`.layout`, :mod:`.primitives`, one module per kind of figure,
and :mod:`.writer`.
"""

from ..catalog import figure_caption, figure_names, map_axes
from .against_axis import against_axis_figure
from .by_variant import by_variant_figure
from .cost import cost_figure
from .decision import decision_figure
from .fleet import fleet_figure
from .latency import latency_figure, tail_figure
from .latency_by_distribution import latency_by_distribution_figure
from .latency_vs import latency_vs_figure
from .layout import load_label
from .load import load_figure
from .load_ratio import load_ratio_figure
from .primitives import draw_analytic
from .selection import shown_loads
from .stability import stability_figure
from .style import KIND_STYLE, VERDICT_MARKS, kind_label, policy_colours, policy_markers, policy_style
from .theory_vs_simulation import relative_error, theory_vs_simulation_figure
from .tradeoff import frontier_of_boxes, pareto_front, tradeoff_figure
from .winner_map import winner_map_figure
from .writer import has_decision, make_figure, simulated, write_figures

__all__ = [
    "KIND_STYLE",
    "VERDICT_MARKS",
    "against_axis_figure",
    "by_variant_figure",
    "cost_figure",
    "decision_figure",
    "fleet_figure",
    "draw_analytic",
    "figure_caption",
    "figure_names",
    "frontier_of_boxes",
    "has_decision",
    "kind_label",
    "latency_by_distribution_figure",
    "latency_figure",
    "latency_vs_figure",
    "load_figure",
    "load_label",
    "load_ratio_figure",
    "make_figure",
    "map_axes",
    "pareto_front",
    "policy_colours",
    "policy_markers",
    "policy_style",
    "relative_error",
    "shown_loads",
    "simulated",
    "stability_figure",
    "tail_figure",
    "theory_vs_simulation_figure",
    "tradeoff_figure",
    "winner_map_figure",
    "write_figures",
]
