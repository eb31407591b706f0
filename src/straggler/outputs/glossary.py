"""The policy glossary: what each policy does to a job, its parameters, its papers and
what the analysis knows about it, written from the policy registry
(:data:`straggler.model.policies.POLICIES`) and the config schema's parameter descriptions.

Two readers: ``straggler policies [NAME ...]`` prints it in the terminal, and the
documentation site's policy page is generated from :func:`glossary_markdown`, so
neither can drift from the code.
"""

from __future__ import annotations

import textwrap

from ..engines.registry import settings_words, where_simulated
from ..model.policies import ORACLES, PAPERS, POLICIES, PolicySpec, schema_name
from ..study.config.schema import deref, schema


def _parameters(spec: PolicySpec) -> list[tuple[str, str, str]]:
    """``(name, default, meaning)`` of the policy's parameters, from the schema."""
    definition = schema()["$defs"].get(schema_name(spec), {})
    rows = []
    for name, default in spec.parameters.items():
        node = definition.get("properties", {}).get(name, {})
        text = node.get("description") or deref(node).get("description", "")
        shown = "null" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        rows.append((name, shown, " ".join(str(text).split())))
    return rows


def _settings(spec: PolicySpec) -> str:
    """Which engines simulate the policy, in which settings, in words."""
    if spec.analytic_only:
        return "not simulated: analysis only."
    return "; ".join(f"{engine.title} ({settings_words(settings)})" for engine, settings in where_simulated(spec)) + "."


def _facts(spec: PolicySpec) -> list[str]:
    """Short facts the registry states about the policy, for the entry's list."""
    facts = []
    if spec.aliases:
        facts.append(f"Also accepted as: {', '.join(spec.aliases)}.")
    if spec.uses_d:
        facts.append("Places d copies or tasks: the grid axis d matters (cells with d > N are left NaN).")
    if spec.two_pools:
        facts.append("Chooses a pool first: needs the two-pool system.")
    if spec.oracle:
        facts.append("An oracle: a benchmark, not a contender (the report names the best policy without it).")
    if spec.client_side:
        facts.append(f"A client alone can run it: {spec.client_side}.")
    elif spec.server_help and not spec.oracle:
        facts.append(f"Needs the servers' help: {spec.server_help}.")
    facts.append(f"Simulated by {_settings(spec)}")
    if spec.monotone:
        facts.append("Its stable loads form an interval: loads above an unstable one are not simulated.")
    return facts


def policy_markdown(name: str, level: int = 2) -> str:
    """One policy's glossary entry in Markdown, under a heading of ``level``."""
    spec = POLICIES[name]
    lines = [f"{'#' * level} {spec.name}: {spec.title} {{ #{spec.name.lower()} }}", "", spec.explanation, ""]
    lines += [f"- {fact}" for fact in _facts(spec)]
    params = _parameters(spec)
    if params:
        lines += ["", "| parameter | default | meaning |", "| --- | --- | --- |"]
        lines += [f"| `{p}` | `{d}` | {text} |" for p, d, text in params]
    lines += ["", f"**What the analysis knows.** {spec.analysis_summary}", ""]
    lines += ["**Papers.** " + "; ".join(PAPERS[key] for key in spec.papers) + "."]
    return "\n".join(lines) + "\n"


def glossary_markdown() -> str:
    """The whole glossary in Markdown: a summary table, then one entry per policy."""
    lines = ["| policy | in words | what happens to a job | simulated |", "| --- | --- | --- | --- |"]
    for spec in POLICIES.values():
        simulated = "no (analysis only)" if spec.analytic_only else "yes"
        lines.append(f"| [{spec.name}](#{spec.name.lower()}) | {spec.title} | {spec.description} | {simulated} |")
    body = "\n".join(policy_markdown(name) for name in POLICIES)
    return "\n".join(lines) + "\n\n" + body


def _wrap(text: str, indent: str = "  ", then: str | None = None, width: int = 88) -> list[str]:
    """``text`` wrapped to ``width``, its first line after ``indent``, the others after
    ``then`` (default: as much space as ``indent``)."""
    rest = " " * len(indent) if then is None else then
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=rest) or [indent]


def policy_text(name: str) -> str:
    """One policy's glossary entry as plain text for a terminal."""
    spec = POLICIES[name]
    lines = [f"{spec.name}: {spec.title}", *_wrap(spec.explanation)]
    for fact in _facts(spec):
        lines += _wrap(fact, indent="  - ")
    params = _parameters(spec)
    if params:
        lines.append("  parameters:")
    for param, default, text in params:
        lines += _wrap(f"{param} (default {default}): {text}", indent="    ", then="      ")
    lines += ["  what the analysis knows:", *_wrap(spec.analysis_summary, indent="    ")]
    lines += ["  papers:", *(line for key in spec.papers for line in _wrap(PAPERS[key], indent="    "))]
    return "\n".join(lines) + "\n"


def summary_text() -> str:
    """One line per policy, for ``straggler policies`` without a name."""
    width = max(len(name) for name in POLICIES)
    rows = [f"{spec.name:<{width}}  {spec.title}: {spec.description}" for spec in POLICIES.values()]
    return "\n".join(rows) + "\n"


# ------------------------------------------------------------------ the report's words

TERMS: dict[str, str] = {
    "interval": (
        "every value is an interval from its best evidence: an exact value (one number), a "
        "one-sided bound (>= a, <= b), or the simulation's confidence interval [low, high]"
    ),
    "evidence": (
        "where an interval comes from: exact, bound, verdicts (the stability verdicts of the "
        "simulated loads), simulation, unreliable CI, paired simulation (a paired CI "
        "decided), conflict"
    ),
    "conflict": (
        "the analysis and the simulation disagree: an analytic value or bound lies outside the "
        "simulation's CI. The simulation's interval is used (a 95 % CI misses the true value at "
        "about one point in twenty). The report sorts every disagreement with an exact value: "
        "heavy tail, not settled, chance, or unexplained"
    ),
    "unreliable CI": (
        "the simulation's CI of E[T] cannot be trusted there (ci_reliable = 0): the size law's tail "
        "gives the response time an infinite variance, so the CI under-covers, or the run had not "
        "settled. It decides nothing: an exact value stands alone, otherwise only the analysis's "
        "bounds do, and the point is often undetermined"
    ),
    "tie set": "every contender that could be the best: none of them is proven worse than another",
    "extra load": (
        "E[C] / E[X] - 1: the server time a job takes beyond one copy of it at full speed (0.5: half as much again)"
    ),
    "hedges": (
        "copies_mean - 1: the extra copies a job sends on average, whether they ran or were cancelled "
        "before they started (the budget a hedging stack counts: Finagle's maxExtraLoad); a hedge of a "
        "request stuck in a queue costs a hedge but little server time, which the extra load counts"
    ),
    "decided by": (
        "the rule that named a policy alone, as applied: intervals disjoint (its interval lies "
        "wholly on the better side of every other contender's), paired CI of the difference "
        "excludes 0 (on the same random numbers, the Student-t CI of its difference from a "
        "contender excludes 0, though their own intervals overlap), or high ends of the "
        "intervals (the cheaper-policy rule)"
    ),
    "margin": (
        "what that rule proves against the runner-up: the runner-up's low end less the winner's "
        "high end where intervals decided (negative when they overlap), the paired CI's end "
        "nearest 0 where a paired CI did; under the cheaper-policy rule, the E[C] saved against "
        "the fastest, high end to high end"
    ),
    "cheaper-policy rule": (
        "x, set by decision.prefer_cheaper_within (0.05 unless set; 0 with an SLO or a budget): a "
        "policy within x of the fastest that costs at least x less E[C] is recommended in its "
        "place, the cheapest such; both are judged at the high ends of the intervals, so noise "
        "does not make a policy look near or cheap"
    ),
    "undetermined": (
        "the evidence cannot tell: a load neither surely stable nor surely unstable, a "
        "constraint neither surely met nor surely failed; an undetermined contender stays in "
        "the tie set and never wins alone"
    ),
    "oracle": (
        f"{' and '.join(ORACLES)} know what no dispatcher knows (a job's type, its size): benchmarks, not contenders"
    ),
}
"""The words the report, ``straggler best`` and ``winners.csv`` use, defined as the code
applies them: the report's "How to read" and the documentation's outputs page are written
from this table."""
