"""``straggler fit``: a workload's measurements made into a study file's laws: a file of
job sizes described and fitted by every parametric family, or (``--pairs``) a file of
paired durations fitted by every dependence family and checked on the faster and the
slower copy (:mod:`straggler.model.dependence.families`); each printed with a snippet.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from .errors import Failure, Usage, positive_int, writable


def _fit(args) -> int:

    if args.pairs is not None:
        return _fit_pairs(args)
    if args.file is None:
        raise Usage("expected a file of sizes, or --pairs FILE (a file of paired durations)")
    if args.columns is not None:
        raise Usage("--columns picks the two columns of --pairs FILE; expected --column with a file of sizes")
    from ..model.distributions import ParameterError
    from ..model.distributions.data_files import sorted_sample
    from ..model.distributions.fitting import describe, fit_families

    column = int(args.column) if args.column is not None and args.column.isdigit() else args.column
    try:
        xs = sorted_sample(args.file, column)
    except ParameterError as err:
        raise Failure(str(err)) from None
    summary = describe(xs)
    fits = fit_families(xs)
    print(fit_report(args.file, column, summary, fits), end="")
    snippet = fit_snippet(args.file, column, [f for f in fits if f.law is not None][: args.keep])
    return _emit_snippet(snippet, args.output)


def _emit_snippet(snippet: str, output: str | None, what: str = "study-file snippet") -> int:
    """The snippet of ``fit``: written to ``output`` (its path said), or printed after a
    blank line; it is YAML either way."""
    import yaml

    if output:
        from ..common.files import write_text

        write_text(output, snippet)
        print(f"# the {what}: {output}")
    else:
        print()
        print(snippet, end="")
    yaml.safe_load(snippet)  # what it printed is YAML
    return 0


def _fit_pairs(args) -> int:
    from ..model.dependence.families import fit_pairs
    from ..model.dependence.measured import PairsError, read_pairs

    if args.file is not None:
        raise Usage(f"--pairs {args.pairs} and a file of sizes ({args.file}) were both given; expected one of them")
    if args.column is not None:
        raise Usage("--column picks a file of sizes' column; expected --columns A,B with --pairs")
    columns = None
    if args.columns is not None:
        names = [c.strip() for c in args.columns.split(",")]
        if len(names) != 2 or not all(names):
            raise Usage(
                f"--columns {args.columns} is not allowed; expected two columns, A,B: headers or indices from 0"
            )
        columns = tuple(int(c) if c.isdigit() else c for c in names)
    if args.output:
        writable(args.output, "snippet")
    try:
        pairs = read_pairs(args.pairs, columns)  # type: ignore[arg-type]
    except PairsError as err:
        raise Failure(str(err)) from None
    fit = fit_pairs(pairs.values)
    print(pairs_report(args.pairs, pairs.names, fit), end="")
    if fit.sx_error is not None:
        raise Failure(f"{args.pairs}: {fit.sx_error}; nothing written")
    snippet = pairs_snippet(args.pairs, fit, pairs.names)
    if snippet is None:
        print()
        print(
            "No family fits these pairs: no snippet"
            + (f" (nothing written to {args.output})" if args.output else "")
            + ". A study can replay the measured pairs themselves, each job's two copies one pair of the file: "
            f"dependence: {{kind: pairs, file: {args.pairs}}}"
        )
        return 0
    return _emit_snippet(snippet, args.output, "snippet (question: and study:)")


def _interval(x) -> str:
    return f"{x.value:.2f} [{x.low:.2f}, {x.high:.2f}]"


def _probability(x) -> str:
    def f(v: float) -> str:
        return f"{v:.3f}" if v >= 0.01 or v == 0 else f"{v:.2g}"

    return f"{f(x.value)} [{f(x.low)}, {f(x.high)}]"


_FAMILY_WORDS = {
    "iid": "each copy its own draw of the marginal law",
    "identical": "both copies one draw",
    "mixture": "one draw with probability c, else two",
    "S&X": "X S_i: the request's work times i.i.d. slowdowns",
}


def pairs_report(file: str, names: tuple[str, str], fit) -> str:
    """``straggler fit --pairs``'s figures (:class:`straggler.model.dependence.families.PairsFit`):
    rho, the tail dependence and the mixture's ``c``; S&X's checks; then the quantiles of the
    faster and the slower copy, the pairs' beside each family's, and each family's verdict
    and the one chosen."""
    from ..model.dependence.families import ORDER
    from ..model.dependence.measured import TAIL_PAIRS

    m = fit.measured
    q = f"p{100 * m.level:g}"
    lines = [
        f"{file}, columns {names[0]} and {names[1]}: {m.n:,} pairs",
        f"  Spearman's rho {_interval(m.rho)}: 0 for independent copies, 1 for identical ones",
    ]
    if m.tail is None:
        lines.append(
            f"  tail dependence not estimated: {m.n:,} pairs put about {m.n * (1 - m.level):.0f} above {q}; "
            f"it needs {TAIL_PAIRS:,} pairs"
        )
    else:
        lines.append(
            f"  tail dependence {_interval(m.tail)}: P(second > its {q} | first > its {q}); "
            f"{1 - m.level:g} independent, 1 identical"
        )
    mixture = f"  mixture (all copies one draw with probability c, else independent): c {_interval(m.c)}"
    lines.append(mixture + ("" if m.tail_c is None else f", the tail's c {_interval(m.tail_c.clipped())}"))
    verdict = m.verdict()
    if verdict:
        lines.append(f"  {verdict}")
    sx = fit.sx
    lines.append("  S&X (a copy takes X S_i: X the request's work, shared by its copies; S_i its server's slowdown):")
    if sx is None:
        lines.append(f"    not fitted: {fit.sx_error}")
    else:
        lines.append(
            f"    the request's share of the log-variance, Cov(log Y1, log Y2) / Var(log Y): {_interval(sx.share)}"
        )
        lines.append(
            "    "
            + ", ".join(f"P(S > {k:g} x median) {_probability(x)}" for k, x in sx.above.items())
            + f" ({sx.resamples:,} resamples refitted"
            + (f", {sx.not_converged} of them not converged and left out" if sx.not_converged else "")
            + ")"
        )
        s = sx.solution
        lines.append(
            f"    EM on a grid of {sx.data.step:.3g} in log ({sx.data.size} steps): converged in {s.iterations:,} iterations"
        )
    from ..model.dependence.families import simultaneous

    each = 100 * simultaneous(fit.confidence, fit.levels)
    lines.append(
        f"  ([a, b]: {100 * fit.confidence:g} % percentile bootstrap intervals over {fit.resamples:,} resamples of "
        f"the pairs, unless said; the quantiles' below hold all at once, each at {each:.4g} %)"
    )
    lines += [
        "",
        "  The faster copy, min(Y1, Y2), serves two copies cancelled on the first to finish (at once or "
        "hedged); fork-join waits for the slower, max(Y1, Y2).",
        "  Each family's quantiles of both (* outside the pairs' interval; a family fits when none is):",
        f"  {'':<12}{'pairs [interval]':<28}" + "".join(f"{f:>12}" for f in ORDER),
    ]
    for copy, pairs, attr in (("min", fit.faster, "faster"), ("max", fit.slower, "slower")):
        for j, level in enumerate(fit.levels):
            row = f"  {copy + ' p' + format(100 * level, 'g'):<12}"
            row += f"{f'{pairs[j].value:.4g} [{pairs[j].low:.4g}, {pairs[j].high:.4g}]':<28}"
            for f in ORDER:
                values = getattr(fit.checks[f], attr)
                if values is None:
                    row += f"{'-':>12}"
                    continue
                v = float(values[j])
                mark = "" if pairs[j].low <= v <= pairs[j].high else "*"
                row += f"{f'{v:.4g}{mark}':>12}"
            lines.append(row.rstrip())
    lines.append("")
    for f in ORDER:
        lines.append(f"  {f:<10} ({_FAMILY_WORDS[f]}): {fit.checks[f].verdict()}")
    chosen = fit.chosen
    if chosen is not None:
        lines.append(f"  chosen: {chosen}, the first that fits of {', '.join(ORDER)} (the fewest parameters first)")
    return "\n".join(lines) + "\n"


def pairs_snippet(file: str, fit, names=(0, 1)) -> str | None:
    """The chosen family as YAML with two mappings: ``question:`` (the keys to paste into a
    question) and ``study:`` (the entries to merge into a study file); None when no family
    fits."""
    import yaml

    from ..model.dependence.families import snippet

    content = snippet(fit)
    if content is None:
        return None
    unit, said = _unit_of(file, *names)
    if unit and fit.chosen == "S&X":
        content["question"]["workload"]["unit"] = unit
        content["study"]["distributions"]["measured_work"]["unit"] = unit
        for end in content["question"].get("check_dependence", []):
            if isinstance(end, dict):
                end["workload"]["unit"] = unit
    family = fit.chosen
    m = fit.measured
    # where the assumption comes from, which the answer names
    content["question"]["dependence_source"] = (
        f"{family} fitted to {m.n:,} pairs of {Path(file).name}, which it fits: the faster and the slower copy "
        "at p50 to p99.9 within the pairs' intervals"
    )
    head = {
        "iid": [
            f"# The copies' dependence: independent (iid), the first family that fits {m.n:,} pairs of {file}.",
            f"# Spearman's rho {_interval(m.rho)}: a question checks its answer over c in that interval and",
            "# at identical copies; a study compares the policies under iid.",
        ],
        "identical": [
            f"# The copies' dependence: identical, the first family that fits {m.n:,} pairs of {file}.",
            f"# Spearman's rho {_interval(m.rho)}: a question checks its answer over c in that interval and",
            "# at independent copies; a study compares the policies under identical copies.",
        ],
        "mixture": [
            f"# The copies' dependence as a mixture, the first family that fits {m.n:,} pairs of {file}:",
            f"# c is Spearman's rho {_interval(m.rho)} to 2 decimals (clipped to [0, 1]). A question is",
            "# answered under c and checked over its interval and at both ends (independent copies, identical",
            "# copies); a study compares the policies at c and at its interval's ends, on the same draws.",
        ],
        "S&X": [
            f"# The copies' dependence as S&X, the first family that fits {m.n:,} pairs of {file}: a copy",
            "# takes X S_i, X the request's work (shared by its copies), S_i its server's slowdown (i.i.d.,",
            "# median 1). X is the job sizes' law: in a question it replaces workload, in a study it is the",
            "# distribution axis.",
        ],
    }[family or ""]
    if family == "S&X":
        head.append(
            f"# {said}" if unit else "# X states no unit (the columns' names state none): add unit: ms (s, us)."
        )
    head += [
        "# question: the keys to paste into a question file (straggler recommend);",
        "# study: the entries to merge into a study file (distributions, dependences, grid).",
    ]
    body = yaml.safe_dump(content, sort_keys=False, default_flow_style=None, width=100, allow_unicode=True)
    return "\n".join(head) + "\n" + body


def fit_report(file: str, column, summary, fits) -> str:
    """``straggler fit``'s table: the sample, then every family's fit, best first."""
    from ..study.config.errors import format_value

    where = f"{file}" + (f", column {column}" if column is not None else "")
    q = summary.quantiles
    lines = [
        f"{where}: {summary.n} values",
        f"  mean {summary.mean:.4g}, scv {summary.scv:.3g}; min {summary.minimum:.4g}, "
        + ", ".join(f"p{100 * p:g} {v:.4g}" for p, v in q.items())
        + f", max {summary.maximum:.4g}",
        f"  tail index (Hill, largest {summary.hill_k} values) {summary.hill_alpha:.3g}: "
        "P(X > x) ~ x^-alpha, below 2 infinite variance",
        "",
        f"  {'family':<20}{'K-S':>8}{'W1':>10}  parameters",
    ]
    for f in fits:
        if f.law is None:
            why = f.why_not.removeprefix(f"{f.family}: ")
            lines.append(f"  {f.family:<20}{'-':>8}{'-':>10}  not fitted: {why}")
            continue
        params = ", ".join(f"{k} {format_value(_rounded(v))}" for k, v in f.law.config_values().items())
        lines.append(f"  {f.family:<20}{f.ks:>8.4f}{f.wasserstein:>10.4g}  {params}")
    lines.append(
        "  (K-S: Kolmogorov-Smirnov, the largest gap between the distribution functions; W1: the area between them)"
    )
    return "\n".join(lines) + "\n"


def _rounded(value):
    """A parameter to 6 significant digits (lists element by element)."""
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return float(f"{value:.6g}") if isinstance(value, float) else value


def fit_snippet(file: str, column, fits) -> str:
    """A study-file snippet: the trace and the closest fits side by side on the
    distribution axis."""
    import yaml

    unit, said = _unit_of(file, column)
    stated = {"unit": unit} if unit else {}
    trace = {"family": "empirical", "file": file, **({"column": column} if column is not None else {}), **stated}
    laws = {"trace": trace}
    for f in fits:
        laws[f"fit_{f.family}"] = {"family": f.law.family, **_rounded_spec(f.law.config_values()), **stated}
    text = yaml.safe_dump({"grid": {"distribution": list(laws)}, "distributions": laws}, sort_keys=False)
    head = (
        "# The trace beside its closest parametric fits (parameters to 6 significant digits):\n"
        "# merge into a study file: its grid then compares the policies on each of these laws.\n"
        f"# {said}\n"
    )
    return head + text


def _unit_of(file: str, *columns) -> tuple[str, str]:
    """(the unit the columns' names state, where it came from in words): every named column
    must state the same one; "" and what to add where none does."""
    from ..model.distributions.data_files import column_name
    from ..model.distributions.units import SECONDS, unit_of_name

    names = [column_name(file, c) for c in columns]
    units = {unit_of_name(n) for n in names}
    if len(units) == 1 and "" not in units:
        unit = units.pop()
        shown = " and ".join(str(n) for n in names)
        return (
            unit,
            f"unit: {unit}, from the column's name{'s' if len(names) > 1 else ''} {shown}: every time in the answers is in {unit}",
        )
    return (
        "",
        f"no unit in the column's name: add unit: ms ({', '.join(SECONDS)}) to each law for answers in a time unit",
    )


def _rounded_spec(values: dict) -> dict:
    return {k: _rounded(v) for k, v in values.items()}


def add_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """``fit``: a file of measured sizes, or of paired durations (``--pairs``)."""
    p = command(
        "fit",
        "describe a file of measured job sizes and fit the parametric families to it, with their distances; "
        "or, with --pairs, measure how dependent a request's copies are",
        "straggler fit config/data/requests_ms.csv --column duration_ms",
        "straggler fit config/data/requests_ms.csv --column duration_ms -o fits.yaml",
        "straggler fit --pairs config/data/pairs_ms.csv",
        "straggler fit --pairs config/data/sx_pairs_ms.csv -o sx.yaml",
    )
    p.add_argument(
        "file", nargs="?", help="a file of sizes: .csv/.tsv with a header, .npy or one value a line (.gz too)"
    )
    p.add_argument("--column", help="the column that holds the sizes: its header or its index from 0")
    p.add_argument(
        "--pairs",
        metavar="FILE",
        help="a file of paired durations, a request's on two servers (.csv/.tsv, .npy of shape (n, 2), or two "
        "values a line; .gz too): fit every dependence family (iid, identical, mixture, S&X), check each on the "
        "quantiles of the faster and the slower copy, and write the first that fits for a question and a study",
    )
    p.add_argument("--columns", metavar="A,B", help="with --pairs: the two columns to read, headers or indices from 0")
    p.add_argument("--keep", type=positive_int, default=2, help="fits put beside the trace in the snippet")
    p.add_argument(
        "-o", "--output", help="write the snippet here instead of printing it (with --pairs: question: and study:)"
    )
    p.set_defaults(func=_fit)
