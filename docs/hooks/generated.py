"""MkDocs hook: the pages written from the code at build time.

A page holds a marker line ``<!-- generated: NAME -->``; the build replaces it with
what :data:`SECTIONS` writes for NAME, from the tables the code itself runs on: the
policy registry (the glossary), the config schema (the configuration reference), the
dataset's variable table and the figure catalog (the outputs), the package's rooms
and modules (the architecture), the command's argument parser (the command reference) and the
bench's own table over a recorded run (contributing), and ``straggler fit`` run on the
shipped trace and pairs (the workload guide). So the
reference cannot drift from the code; a marker with no writer fails the build.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from collections.abc import Callable

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)


def _cell(text) -> str:
    """Text fit for a Markdown table cell."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    text = text.replace("<", "&lt;").replace(">", "&gt;")  # results/<study>/ is not a tag
    return text.replace("[", "\\[").replace("]", "\\]")  # speeds[i][j] is not a link


def policies() -> str:
    from straggler.outputs.glossary import glossary_markdown

    return glossary_markdown()


def terms() -> str:
    from straggler.outputs.glossary import TERMS

    rows = ["| term | meaning |", "| --- | --- |"]
    rows += [f"| {term} | {_cell(text[0].upper() + text[1:])}. |" for term, text in TERMS.items()]
    return "\n".join(rows)


def _default(node) -> str:
    if "default" not in node:
        return ""
    value = node["default"]
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def _key_rows(node, path: str, describe, deref, rows: list) -> None:
    """One row per key under ``node`` (depth first), ``path`` its dotted name."""
    resolved = deref(node)
    description = node.get("description") or resolved.get("description", "")
    rows.append((path, _default(node) or _default(resolved), describe(node), description))
    props = resolved.get("properties")
    if props and not path.endswith("policies"):
        for key, child in props.items():
            _key_rows(child, f"{path}.{key}", describe, deref, rows)
    extra = resolved.get("additionalProperties")
    if isinstance(extra, dict) and "properties" in deref(extra) and path in ("distributions", "dependences"):
        item = deref(extra)
        rows.append((f"{path}.<name>", "", "a mapping", item.get("description", "")))


def configuration() -> str:
    from straggler.study.config.schema import deref, family_parameters, schema

    schema_module = importlib.import_module("straggler.study.config.schema")

    describe: Callable = getattr(schema_module, "describe", None) or schema_module._describe
    sch = schema()
    out = []
    for key, node in sch["properties"].items():
        rows: list = []
        _key_rows(node, key, describe, deref, rows)
        out += [f"### `{key}`", ""]
        out += ["| key | default | allowed | meaning |", "| --- | --- | --- | --- |"]
        out += [f"| `{p}` | {d} | {_cell(a)} | {_cell(m)} |" for p, d, a, m in rows]
        out.append("")
    out += ["### Distribution families", ""]
    out += [
        "Each entry of `distributions` names a `family` and that family's parameters; "
        "`scale_to_mean` (any family) rescales the law to a given mean.",
        "",
        "| family | parameters | their meaning |",
        "| --- | --- | --- |",
    ]
    branches = {b["if"]["properties"]["family"]["const"]: b["then"] for b in sch["$defs"]["distribution"]["allOf"]}
    for family, params in family_parameters().items():
        props = branches.get(family, {}).get("properties", {})
        meaning = "; ".join(f"`{p}`: {props.get(p, {}).get('description', '')}" for p in params)
        out.append(f"| `{family}` | {', '.join(f'`{p}`' for p in params)} | {_cell(meaning)} |")
    out.append("")
    out += ["### Policy parameters", ""]
    out += ["Under `policies.<name>`: see each policy's entry in the [policy glossary](policies.md)."]
    out += ["", "| policy | parameters |", "| --- | --- |"]
    from straggler.model.policies import POLICIES

    for spec in POLICIES.values():
        names = ", ".join(f"`{p}`" for p in spec.parameters) or "none"
        out.append(f"| [{spec.name}](policies.md#{spec.name.lower()}) | {names} |")
    return "\n".join(out) + "\n"


def dataset() -> str:
    from straggler.study.variables import COORD_ATTRS, VARIABLES

    out = ["| coordinate | meaning | units |", "| --- | --- | --- |"]
    for name, (long_name, units) in COORD_ATTRS.items():
        out.append(f"| `{name}` | {_cell(long_name)} | {_cell(units)} |")
    out += [
        "",
        "| variable | dimensions beyond the grid's | meaning | units | type |",
        "| --- | --- | --- | --- | --- |",
    ]
    for v in VARIABLES:
        dims = ", ".join(v.dims) or "none"
        out.append(f"| `{v.name}` | {dims} | {_cell(v.long_name)} | {_cell(v.units)} | {v.kind} |")
    return "\n".join(out) + "\n"


def figures() -> str:
    from straggler.outputs.catalog import FIGURE_KINDS

    out = ["| figure | report section | what it shows |", "| --- | --- | --- |"]
    for kind in FIGURE_KINDS:
        out.append(f"| `{kind.name}` | {kind.section} | {_cell(kind.caption)} |")
    return "\n".join(out) + "\n"


def _first_line(module: str) -> str:
    import ast

    from straggler.common import sources

    path = sources.module_file(module)  # read, not imported: a __main__ would run
    doc = (ast.get_docstring(ast.parse(path.read_text())) or "") if path else ""
    paragraph = doc.strip().split("\n\n")[0]
    return _cell(re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", paragraph))


def _may_import(room: str) -> str:
    import ast

    from straggler.common import sources

    doc = ast.get_docstring(ast.parse(sources.module_file(room).read_text())) or ""
    line = next((ln for ln in doc.splitlines() if ln.startswith("May import:")), "May import: nothing.")
    return line.replace("``", "`")


def package_map() -> str:
    """The package as its rooms, top room first, each with its job, the rooms it may
    import, and every module in it with the first paragraph of its docstring: walked from
    the package itself, so a module added is on the map at the next build."""
    from straggler.common import layers, sources

    modules = sorted(
        sources.module_name(path) for path in sources.ROOT.rglob("*.py") if "__pycache__" not in path.parts
    )
    out = []
    for room in ["cli", *reversed(layers.ROOMS)]:
        out += [f"### `straggler.{room}`", "", _first_line(room), ""]
        if room != "cli":
            out += [_may_import(room), ""]
        out += ["| module | what it owns |", "| --- | --- |"]
        inside = [m for m in modules if m.startswith(room + ".")]
        for module in inside:
            path = sources.module_file(module).relative_to(sources.ROOT).as_posix()
            out.append(f"| `{path}` | {_first_line(module)} |")
        out.append("")
    face = [m for m in modules if "." not in m and m not in ("cli", *layers.ROOMS)]
    out += ["### The package's root", "", "| module | what it owns |", "| --- | --- |"]
    out += [f"| `{'__init__' if not m else m}.py` | {_first_line(m)} |" for m in face]
    return "\n".join(out) + "\n"


def commands() -> str:
    import os

    from straggler.cli import build_parser

    os.environ["COLUMNS"] = "88"  # argparse wraps to the terminal's width: the page's, not the builder's
    parser = build_parser()
    out = ["```text", parser.format_help().rstrip(), "```", ""]
    for action in parser._subparsers._group_actions:  # argparse's public parsers have no listing API
        for name, sub in action.choices.items():
            out += [f"## `straggler {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out)


BENCH_RUN = "docs/validation/bench-run.json"
"""A whole run of ``straggler bench --json``, recorded on a quiet machine."""


def bench_run() -> str:
    """The recorded bench run, printed by the bench's own table (so the page shows what
    the command prints, and a recorded run that no longer matches the workloads fails
    tests/docs/test_docs.py)."""
    import json
    from pathlib import Path

    from straggler.engines.bench import table

    out = json.loads((Path(__file__).resolve().parents[2] / BENCH_RUN).read_text())
    versions = ", ".join(f"{k} {v}" for k, v in out["versions"].items())
    base = out["workloads"][out["baseline"]]["jobs_per_second"]
    return "\n".join(
        [
            f"The last recorded run (`{BENCH_RUN}`, {out['created']}, {versions}; its SimPy baseline "
            f"ran at {base:.2g} jobs/s), as `straggler bench` prints it:",
            "",
            "```text",
            table(out),
            "```",
        ]
    )


EVENT_SETS = "docs/validation/event-sets.json"
"""A whole run of ``benchmarks/event_sets.py --json``, recorded on a quiet machine."""


def benchmark(name: str):
    """``benchmarks/<name>.py`` as a module (the benchmarks are scripts, not a package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def event_sets_benchmark():
    """``benchmarks/event_sets.py`` as a module."""
    return benchmark("event_sets")


def event_sets() -> str:
    """The recorded comparison of the event engine's event sets, printed by the
    benchmark's own table."""
    import json
    from pathlib import Path

    out = json.loads((Path(__file__).resolve().parents[2] / EVENT_SETS).read_text())
    versions = ", ".join(f"{k} {v}" for k, v in out["versions"].items())
    return "\n".join(
        [
            f"The last recorded run (`{EVENT_SETS}`, {out['created']}, {versions}; {out['steps']:,} events "
            f"a size, another queue touched at {out['touch']:.0%} of the events, {out['idle']:.0%} of the "
            "new times empty):",
            "",
            "```text",
            event_sets_benchmark().table(out),
            "```",
        ]
    )


EVENT_ENGINE_AGAINST = "docs/validation/event-engine-against.json"
"""A whole run of ``benchmarks/event_engine_against.py REV --json``, on a quiet machine."""


def event_engine_against() -> str:
    """The recorded comparison of the event engine with an earlier revision's, printed by
    the benchmark's own table."""
    return _recorded(
        EVENT_ENGINE_AGAINST,
        "event_engine_against",
        lambda out: (
            f"this checkout at {out['head']} against {out['rev']}, {out['rounds']} rounds alternated, "
            + ", ".join(f"{k} {v}" for k, v in out["versions"].items())
        ),
    )


CI_COVERAGE = "docs/validation/ci-coverage.json"
"""A whole run of ``benchmarks/ci_coverage.py --json`` (400 seeds)."""
WARMUP_GAP = "docs/validation/warmup-gap.json"
"""A whole run of ``benchmarks/warmup_gap.py --json``."""


def _recorded(path: str, name: str, what, as_table: bool = False) -> str:
    """A benchmark's recorded JSON run, printed by the benchmark's own ``table`` (or, with
    ``as_table``, as its ``markdown`` table, which wraps on a narrow page)."""
    import json
    from pathlib import Path

    out = json.loads((Path(__file__).resolve().parents[2] / path).read_text())
    head = f"The last recorded run (`{path}`, {out['created']}, {what(out)}):"
    if as_table:
        return "\n".join([head, "", benchmark(name).markdown(out)])
    return "\n".join([head, "", "```text", benchmark(name).table(out), "```"])


def ci_coverage() -> str:
    """The recorded coverage of the simulation's intervals, law by law."""
    return _recorded(
        CI_COVERAGE,
        "ci_coverage",
        lambda out: (
            f"{out['seeds']} seeds a row, {out['length']['replications']} replications of "
            f"{out['length']['jobs']:,} jobs after {out['length']['warmup']:,} of warm-up"
        ),
        as_table=True,
    )


CI_COVERAGE_LONG = "docs/validation/ci-coverage-long.json"
"""The two most variable light-tailed laws at ten times the run length (``--jobs 2000000``)."""


def ci_coverage_long() -> str:
    """The recorded coverage of the most variable light tails with longer runs, and the
    commands that recorded it."""
    table = _recorded(
        CI_COVERAGE_LONG,
        "ci_coverage",
        lambda out: (
            f"{out['seeds']} seeds a row, {out['length']['replications']} replications of "
            f"{out['length']['jobs']:,} jobs after {out['length']['warmup']:,} of warm-up"
        ),
        as_table=True,
    )
    return "\n".join(
        [
            table,
            "",
            "Recorded with `benchmarks/ci_coverage.py --seeds 200 --jobs 2000000 --json`, once with",
            "`--only hyper_0.99` and once with `--only bimodal`, the two runs' rows joined.",
        ]
    )


CI_COVERAGE_QUANTILES = "docs/validation/ci-coverage-quantiles.json"
"""The P99's intervals against the mean's on the M/G/1 queues whose P99 is known
(``--laws exp,pareto_2.2,pareto_1.5``)."""


def ci_coverage_quantiles() -> str:
    """The recorded coverage of the P99's intervals beside E[T]'s, and the command."""
    import json
    from pathlib import Path

    out = json.loads((Path(__file__).resolve().parents[2] / CI_COVERAGE_QUANTILES).read_text())
    length = out["length"]
    return "\n".join(
        [
            f"The last recorded run (`{CI_COVERAGE_QUANTILES}`, {out['created']}, {out['seeds']} seeds a row, "
            f"{length['replications']} replications of {length['jobs']:,} jobs after {length['warmup']:,} of "
            "warm-up, ten M/G/1 queues):",
            "",
            benchmark("ci_coverage").p99_markdown(out),
            "",
            f"Recorded with `benchmarks/ci_coverage.py --seeds {out['seeds']} --laws "
            f"{','.join(dict.fromkeys(r['law'] for r in out['rows']))} --json`.",
        ]
    )


def warmup_gap() -> str:
    """The recorded measurement of the default study's ZRed gap."""
    return _recorded(WARMUP_GAP, "warmup_gap", lambda out: f"{out['seeds']} seeds a row")


MEAN_FIELD_VS_N = "docs/validation/mean-field-vs-n.json"
"""A whole run of ``benchmarks/mean_field_vs_n.py --json --large``."""


def mean_field_vs_n() -> str:
    """The recorded error of the mean-field limit against the simulation at each N."""
    return _recorded(
        MEAN_FIELD_VS_N,
        "mean_field_vs_n",
        lambda out: (
            f"{out['replications']} replications of 200,000 jobs a point, `benchmarks/mean_field_vs_n.py --json --large`"
        ),
    )


FIT_EXAMPLE = ("config/data/requests_ms.csv", "duration_ms")
"""The trace and column of the workload guide's ``straggler fit`` example."""


def fit_example() -> str:
    """``straggler fit`` on the shipped trace, as the command prints it (run at build time)."""
    from pathlib import Path

    from straggler.cli import main

    root = Path(__file__).resolve().parents[2]
    file, column = FIT_EXAMPLE
    out = io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out):
        status = main(["fit", file, "--column", column])
    if status != 0:
        raise RuntimeError(f"straggler fit {file} --column {column} exited with {status}")
    return "\n".join([f"```text\n$ straggler fit {file} --column {column}", out.getvalue().rstrip(), "```"])


PAIRS_EXAMPLE = "config/data/pairs_ms.csv"
"""The paired durations of the workload guide's ``straggler fit --pairs`` example."""
SX_PAIRS_EXAMPLE = "config/data/sx_pairs_ms.csv"
"""The S&X pairs of the workload guide's second ``straggler fit --pairs`` example."""


def _fit_pairs_output(file: str) -> str:
    """``straggler fit --pairs FILE`` as the command prints it (run at build time)."""
    from pathlib import Path

    from straggler.cli import main

    root = Path(__file__).resolve().parents[2]
    out = io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out):
        status = main(["fit", "--pairs", file])
    if status != 0:
        raise RuntimeError(f"straggler fit --pairs {file} exited with {status}")
    return "\n".join([f"```text\n$ straggler fit --pairs {file}", out.getvalue().rstrip(), "```"])


def pairs_example() -> str:
    """``straggler fit --pairs`` on the shipped mixture pairs."""
    return _fit_pairs_output(PAIRS_EXAMPLE)


def sx_pairs_example() -> str:
    """``straggler fit --pairs`` on the shipped S&X pairs."""
    return _fit_pairs_output(SX_PAIRS_EXAMPLE)


BY_TYPE_STUDY = "config/studies/measured_types.yaml"
"""The study of the workload guide's "Job types with sizes of their own"."""


def by_type_example() -> str:
    """The analytic stability bound of each analysed policy in the study of a law per job
    type, beside its law for every type: a Markdown table (analysed at build time)."""
    from pathlib import Path

    import yaml

    from straggler.engines.analysis.cell import analyze
    from straggler.study.cell_build import build_model
    from straggler.study.config import resolve_config
    from straggler.study.grid import build_grid

    root = Path(__file__).resolve().parents[2]
    with contextlib.chdir(root):
        resolved = resolve_config(yaml.safe_load((root / BY_TYPE_STUDY).read_text()))
        values: dict[tuple[str, str], dict[str, float]] = {}
        for cell in build_grid(resolved).cells.values():
            result = analyze(build_model(resolved, cell))
            if result.lambda_max == result.lambda_max:  # analysed (not NaN)
                key = (cell.policy, str(cell["dependence"]))
                values.setdefault(key, {})[str(cell["distribution"])] = float(result.lambda_max)
    rows = [
        "| policy | dependence | largest stable load, by_type | reads_only |",
        "|---|---|---:|---:|",
    ]
    for (policy, dependence), by_law in values.items():
        shown = [f"{by_law[law]:.3f}" if law in by_law else "simulated only" for law in ("by_type", "reads_only")]
        rows.append(f"| {policy} | {dependence} | {shown[0]} | {shown[1]} |")
    return "\n".join(rows)


SECTIONS: dict[str, Callable[[], str]] = {
    "policies": policies,
    "terms": terms,
    "configuration": configuration,
    "dataset": dataset,
    "figures": figures,
    "package-map": package_map,
    "commands": commands,
    "bench-run": bench_run,
    "event-sets": event_sets,
    "event-engine-against": event_engine_against,
    "ci-coverage": ci_coverage,
    "ci-coverage-long": ci_coverage_long,
    "ci-coverage-quantiles": ci_coverage_quantiles,
    "warmup-gap": warmup_gap,
    "mean-field-vs-n": mean_field_vs_n,
    "fit-example": fit_example,
    "pairs-example": pairs_example,
    "sx-pairs-example": sx_pairs_example,
    "by-type-example": by_type_example,
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replace every marker of the page with its generated Markdown."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in SECTIONS:
            raise KeyError(f"{page.file.src_path}: no generated section '{name}'; known: {', '.join(SECTIONS)}")
        with contextlib.redirect_stdout(io.StringIO()):
            return SECTIONS[name]().rstrip("\n")

    return MARKER.sub(replace, markdown)
