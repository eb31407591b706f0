"""The report's pages: ``report.md`` and ``report.html`` assembled from its tables and
words, and the files written (``winners.csv``, ``claims.csv``).

:func:`markdown` writes ``report.md`` (the recommendation first, then the detail);
:func:`html` renders the Jinja2 template ``templates/report.html.j2`` of
:mod:`straggler.outputs` into one self-contained page, its sections :data:`SECTIONS`;
both end with the provenance, from the dataset's attributes; :func:`write_report` writes them all.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ...common.files import write_text
from ...decide.break_even import WORDS as BREAK_EVEN_WORDS
from ...decide.break_even import report_frame as break_even_frame
from ...decide.decision import decision_table, recommendations, winners_table
from .. import headline
from ..glossary import TERMS
from .tables import (
    at_the_trace,
    claims_table,
    criterion_table,
    disagreement_table,
    frontier_counts,
    law_differences,
    located_table,
    recommendation_table,
    resample_agreement,
    shown_axes,
    theory_table,
    tuned_table,
    verdict_summary,
)
from .words import (
    BASIS_WORDS,
    DISAGREEMENT_WORDS,
    LOCATED_WORDS,
    TUNED_WORDS,
    answer_sentences,
    headline_lead,
    summary,
    undetermined_sentences,
)

SECTIONS = ("summary", "stability", "latency", "cost", "tradeoffs", "theory", "claims", "provenance")
"""The sections of ``report.html``, in order."""


def markdown(
    ds: xr.Dataset,
    table: pd.DataFrame | None = None,
    claims: pd.DataFrame | None = None,
    rec: pd.DataFrame | None = None,
) -> str:
    """``report.md``: the recommendation first (a row per setting and load), a few
    sentences, the winners on stability per setting, the stability verdicts, theory
    against simulation, the claims, the provenance."""
    points = decision_table(ds)
    table = winners_table(ds, points) if table is None else table
    rec = recommendations(ds, points) if rec is None else rec
    claims = claims_table(ds) if claims is None else claims
    sure, agreement = resample_agreement(ds, rec)
    table, rec = at_the_trace(ds, table), at_the_trace(ds, rec)
    attrs = ds.attrs
    lines = [
        f"# Study `{attrs.get('study', '?')}`: which policy to use",
        "",
        headline_lead(ds, rec),
        "",
        *[f"- {s}" for s in headline.sentences(rec, shown_axes(ds, rec)) + undetermined_sentences(rec)],
        "",
        "Every value is an interval from its best evidence (exact, a bound, the simulation's CI); a "
        "policy is named alone where the rule in the basis column picks it, else the tie set is listed. "
        "Extra load: the server time a job takes beyond one copy at full speed. `winners.csv` has every "
        "criterion at every point, `report.html` the figures.",
        "",
    ]
    answer = answer_sentences(ds, rec, points)
    if answer:
        lines += ["## The answer to the study's question", ""]
        lines += [f"- {s}" for s in answer]
        lines += [""]
    lines += [
        "## Recommendation",
        "",
        _markdown_table(recommendation_table(ds, rec)),
        "",
    ]
    lines += [f"- {s}" for s in summary(ds, table, rec, claims)]
    lines += ["", BASIS_WORDS, ""]
    breaking = break_even_frame(ds)
    if not breaking.empty:
        lines += ["", "## Break-even cancellation delays", "", BREAK_EVEN_WORDS, "", _markdown_table(breaking), ""]
    said, differences = law_differences(ds, rec)
    if said:
        lines += ["", "## Where the size law changes the answer", ""]
        lines += [f"- {s}" for s in said]
        if not differences.empty:
            lines += ["", _markdown_table(differences)]
    if sure:
        lines += ["", "## How sure the answer is: resamples of the trace", ""]
        lines += [f"- {s}" for s in sure]
        lines += ["", _markdown_table(agreement)]
    lines += [
        "",
        "## Stability: the largest stable load",
        "",
        _markdown_table(criterion_table(ds, table, "stability")),
    ]
    lines += _verdict_lines(ds)
    located = located_table(ds)
    if not located.empty:
        lines += ["", "## Located frontiers", "", LOCATED_WORDS, "", _markdown_table(located)]
    tuned = tuned_table(ds)
    if not tuned.empty:
        lines += ["", "## Tuned knobs", "", TUNED_WORDS, "", _markdown_table(tuned)]
    theory = theory_table(ds)
    if not theory.empty:
        lines += ["", "## Theory against simulation", "", _markdown_table(theory)]
    disagreements = disagreement_table(ds)
    if not disagreements.empty:
        lines += ["", DISAGREEMENT_WORDS, "", _markdown_table(disagreements)]
    if claims is not None and len(claims):
        lines += ["", "## Claims of the paper", ""]
        for r in claims.itertuples(index=False):
            lines.append(
                f"- **{r.verdict}** `{r.claim}` ({r.source}): {r.statement} Test: {r.test}. Evidence: {r.evidence}"
            )
    lines += ["", "## Provenance", ""]
    lines += [f"- {k}: `{v}`" for k, v in _provenance_rows(ds)]
    return "\n".join(lines) + "\n"


def _verdict_lines(ds: xr.Dataset) -> list[str]:
    counts, need, flagged = verdict_summary(ds)
    if counts.empty:
        return []
    lines = [
        "",
        "## Stability verdicts",
        "",
        "Each load is `stable`, `unstable` or `undetermined`, from the simulation, the "
        "analysis or both (docs/reference/verdicts.md): `stable` needs an exact or "
        "sufficient bound, a run long enough that a load 5 % above capacity would "
        "have been caught with 99 % probability (`monitor`), servers idle at least 10 % "
        "of a long enough run (`idle`) or a stable load above it (`monotone`); `unstable` "
        "needs a bound that proves it or growth seen by the simulation.",
        "",
        _markdown_table(counts),
    ]
    if not need.empty:
        lines += [
            "",
            "Undetermined loads, with about how many measured jobs per replication "
            "(`simulation.jobs`, or use `simulation.precision`) would decide them:",
            "",
            _markdown_table(need),
        ]
    if flagged:
        lines += ["", "Theory and simulation disagree here (see `cell_notes`):", ""]
        lines += [f"- {text}" for text in flagged]
    else:
        lines += ["", "The stability verdicts of theory and simulation never contradict each other."]
    return lines


def _markdown_table(df: pd.DataFrame) -> str:
    def fmt(v):
        if isinstance(v, float):
            return "" if np.isnan(v) else f"{v:.4g}"
        return str(v)

    header = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def html(
    ds: xr.Dataset,
    figures: dict[str, Path] | None = None,
    table: pd.DataFrame | None = None,
    claims: pd.DataFrame | None = None,
) -> str:
    """``report.html``: one self-contained page (figures embedded as PNG data URIs,
    styles inline, nothing fetched), rendered from the Jinja2 template
    ``templates/report.html.j2``."""
    import jinja2

    from ..catalog import figure_caption, figure_section

    points = decision_table(ds)
    table = winners_table(ds, points) if table is None else table
    rec = recommendations(ds, points)
    claims = claims_table(ds) if claims is None else claims
    sure, agreement = resample_agreement(ds, rec)
    table, rec = at_the_trace(ds, table), at_the_trace(ds, rec)
    counts_v, need, flagged = verdict_summary(ds)
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("straggler.outputs", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # the decision figures sit under the answer, on the first screen of the summary
    figs: dict[str, list] = {s: [] for s in (*SECTIONS, "decision", "maps")}
    for name, path in (figures or {}).items():
        # the winner maps sit under the first lines: the picture of the answer
        where = "maps" if name.startswith("winners_") else figure_section(name)
        figs[where].append({"name": name, "uri": _data_uri(path), "caption": figure_caption(name)})
    simulated = "latency_mean" in ds and bool(np.isfinite(np.asarray(ds["latency_mean"].values, float)).any())
    said, differences = law_differences(ds, rec)
    context = {
        "study": ds.attrs.get("study", "?"),
        "headline_lead": headline_lead(ds, rec),
        "headline": headline.sentences(rec, shown_axes(ds, rec)) + undetermined_sentences(rec),
        "recommendation_groups": [
            {"title": title, "table": _table_html(rows)}
            for title, rows in headline.grouped(recommendation_table(ds, rec), rec, shown_axes(ds, rec))
        ],
        "answer": answer_sentences(ds, rec, points),
        "basis_words": BASIS_WORDS.replace("`", ""),
        "terms": [(term, text[0].upper() + text[1:] + ".") for term, text in TERMS.items()],
        "summary": summary(ds, table, rec, claims),
        "figures": figs,
        "stability_table": _table_html(criterion_table(ds, table, "stability"), 200),
        "cost_table": _table_html(criterion_table(ds, table, "cost"), 400),
        "latency_table": _table_html(criterion_table(ds, table, "latency"), 400),
        "verdict_counts": _table_html(counts_v),
        "undetermined": _table_html(need, 100),
        "contradictions": flagged,
        "theory_table": _table_html(theory_table(ds)),
        "disagreement_words": DISAGREEMENT_WORDS,
        "disagreement_table": _table_html(disagreement_table(ds), 400),
        "claims": [] if claims is None else claims.to_dict("records"),
        "provenance": _provenance_rows(ds),
        "config": ds.attrs.get("config", ""),
        "simulated": simulated,
        "frontier": frontier_counts(ds, points),
        "law_sentences": said,
        "law_table": _table_html(differences, 200),
        "resample_sentences": sure,
        "resample_table": _table_html(agreement, 200),
        "located_words": LOCATED_WORDS,
        "located_table": _table_html(located_table(ds), 400),
        "tuned_words": TUNED_WORDS,
        "tuned_table": _table_html(tuned_table(ds), 400),
        "break_even_words": BREAK_EVEN_WORDS,
        "break_even_table": _table_html(break_even_frame(ds), 400),
    }
    return env.get_template("report.html.j2").render(**context)


def _table_html(df: pd.DataFrame, max_rows: int | None = None) -> str:
    if df is None or df.empty:
        return ""
    shown = df if max_rows is None else df.head(max_rows)
    html = shown.to_html(index=False, na_rep="", escape=True, border=0, float_format=lambda v: f"{v:.4g}")
    if max_rows is not None and len(df) > max_rows:
        html += f'<p class="note">{len(df) - max_rows} more rows in the CSV.</p>'
    return html


def _data_uri(path: Path) -> str:
    import base64

    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def _provenance_rows(ds: xr.Dataset) -> list[tuple[str, str]]:
    a = ds.attrs
    keys = (
        ("study", "study"),
        ("scale", None),
        ("created", "created"),
        ("seed", "seed"),
        ("straggler", "straggler_version"),
        ("source hash", "source_hash"),
        ("git commit", "git_commit"),
        ("config sha256", "config_sha256"),
        ("data files", "data_files"),
        ("load basis", "load_basis"),
        ("python", "python_version"),
        ("numpy", "numpy_version"),
        ("scipy", "scipy_version"),
        ("numba", "numba_version"),
        ("xarray", "xarray_version"),
        ("snakemake", "snakemake_version"),
    )
    rows = []
    for label, key in keys:
        if key is None:
            try:
                import yaml

                scale = yaml.safe_load(a.get("config", "")).get("scale")
            except Exception:  # noqa: BLE001 - provenance is best effort
                scale = None
            if scale:
                rows.append((label, str(scale)))
            continue
        if a.get(key, "") != "":  # (a study without data files has none to name)
            rows.append((label, str(a[key])))
    impossible = json.loads(a.get("impossible_cells", "[]"))
    notes = json.loads(a.get("cell_notes", "{}"))
    rows.append(("grid points left NaN", f"{len(impossible)} (attribute impossible_cells)"))
    rows.append(("cells with notes", f"{len(notes)} (attribute cell_notes)"))
    return rows


def write_report(
    ds: xr.Dataset, markdown_path, csv_path, html_path=None, claims_path=None, figures: dict[str, Path] | None = None
) -> None:
    """Write ``report.md``, ``winners.csv`` and, when given paths, ``report.html`` (with
    ``figures`` embedded) and ``claims.csv``."""
    points = decision_table(ds)
    table = winners_table(ds, points)
    claims = claims_table(ds)
    write_text(csv_path, table.to_csv(index=False))
    write_text(markdown_path, markdown(ds, table, claims, recommendations(ds, points)))
    if claims_path is not None:
        from ...decide.claims import COLUMNS

        write_text(claims_path, claims.reindex(columns=list(COLUMNS)).to_csv(index=False))
    if html_path is not None:
        write_text(html_path, html(ds, figures, table, claims))
