"""``straggler fit``: a workload's measurements made into a study file's laws: a file of
job sizes described and fitted by every parametric family, or (``--pairs``) a file of
paired durations measured for the copies' dependence; each printed with a study-file
snippet.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

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


def _emit_snippet(snippet: str, output: str | None) -> int:
    """The study-file snippet of ``fit``: written to ``output`` (its path said), or printed
    after a blank line; it is YAML either way."""
    import yaml

    if output:
        from ..common.files import write_text

        write_text(output, snippet)
        print(f"# the study-file snippet: {output}")
    else:
        print()
        print(snippet, end="")
    yaml.safe_load(snippet)  # what it printed is YAML
    return 0


def _fit_pairs(args) -> int:
    from ..model.dependence.measured import PairsError, measure, read_pairs

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
        writable(args.output, "study-file snippet")
    try:
        pairs = read_pairs(args.pairs, columns)  # type: ignore[arg-type]
    except PairsError as err:
        raise Failure(str(err)) from None
    measured = measure(pairs)
    print(pairs_report(args.pairs, pairs.names, measured), end="")
    snippet = pairs_snippet(args.pairs, measured)
    return _emit_snippet(snippet, args.output)


def _interval(x) -> str:
    return f"{x.value:.2f} [{x.low:.2f}, {x.high:.2f}]"


def pairs_report(file: str, names: tuple[str, str], m) -> str:
    """``straggler fit --pairs``'s figures: rho, the tail dependence and the mixture's
    ``c``, each with its interval, and a line when the mixture does not describe the
    pairs (:class:`straggler.model.dependence.measured.Measured`)."""
    from ..model.dependence.measured import TAIL_PAIRS

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
    lines.append(
        f"  ([a, b]: {100 * m.confidence:g} % percentile bootstrap intervals over {m.resamples:,} resamples of the pairs)"
    )
    return "\n".join(lines) + "\n"


def pairs_snippet(file: str, m) -> str:
    """A study-file snippet (the measured mixture, with its c swept over c and its
    interval's ends on the same arrivals and draws) and a question's two keys (answered
    under c, checked over the interval and at both ends of the scale)."""
    c = m.c
    rho = f"Spearman's rho {_interval(m.rho)} from {m.n:,} pairs of {file}"
    sweep = sorted({f"{v:.2f}" for v in (c.low, c.value, c.high)}, key=float)
    check = sorted({"0", "1", *sweep} - {f"{c.value:.2f}"}, key=float)
    return (
        "\n".join(
            [
                "# The copies' dependence as a mixture, c Spearman's rho to 2 decimals (clipped to [0, 1]).",
                "# In a study file: the policies compared at c and at its interval's ends, on the same draws:",
                "dependences:",
                f"  measured: {{kind: mixture, identical: {c.value:.2f}}}   # {rho}",
                "grid:",
                "  dependence: [measured]",
                f"  measured.identical: [{', '.join(sweep)}]",
                "# In a question (straggler recommend): answered under c, and how far the answer holds",
                "# checked over the interval and at both ends (independent copies, identical copies):",
                f"dependence: {{kind: mixture, identical: {c.value:.2f}}}",
                f"check_dependence: [{', '.join(check)}]",
            ]
        )
        + "\n"
    )


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

    trace = {"family": "empirical", "file": file, **({"column": column} if column is not None else {})}
    laws = {"trace": trace}
    for f in fits:
        laws[f"fit_{f.family}"] = {"family": f.law.family, **_rounded_spec(f.law.config_values())}
    text = yaml.safe_dump({"grid": {"distribution": list(laws)}, "distributions": laws}, sort_keys=False)
    head = (
        "# The trace beside its closest parametric fits (parameters to 6 significant digits):\n"
        "# merge into a study file: its grid then compares the policies on each of these laws.\n"
    )
    return head + text


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
    )
    p.add_argument(
        "file", nargs="?", help="a file of sizes: .csv/.tsv with a header, .npy or one value a line (.gz too)"
    )
    p.add_argument("--column", help="the column that holds the sizes: its header or its index from 0")
    p.add_argument(
        "--pairs",
        metavar="FILE",
        help="a file of paired durations, a request's on two servers (.csv/.tsv, .npy of shape (n, 2), or two "
        "values a line; .gz too): print Spearman's rho, the tail dependence and the mixture dependence they imply",
    )
    p.add_argument("--columns", metavar="A,B", help="with --pairs: the two columns to read, headers or indices from 0")
    p.add_argument("--keep", type=positive_int, default=2, help="fits put beside the trace in the snippet")
    p.add_argument("-o", "--output", help="write the study-file snippet here instead of printing it")
    p.set_defaults(func=_fit)
