"""The ``straggler`` command.

Every subcommand's ``--help`` ends with examples that run as they are on the default
study (``config/config.yaml``, ``results/default/default.nc``); tests/cli/test_cli.py
runs every one of them.

A user error is never a traceback. It is one line on stderr,
``straggler <command>: <what was wrong>; <what is allowed>``, except that a refused
config keeps the form check-config has always printed: ``FILE: invalid
configuration:`` and then one line per problem. The exit status says which kind of
error it was:

- 0: done (``verify``: the archive checks out);
- 1: a failure: a file that is missing, a directory, unreadable or not what it should
  be (a config, a study dataset, an archive), a config refused, an archive refused,
  a verification that failed, an output that cannot be written, a study run by
  ``recommend`` that failed or was interrupted (the same command then resumes it);
- 2: a usage error: the arguments name something that does not exist, the files being
  fine: what argparse refuses (an unknown option, a missing argument), a cell id not
  in the config's grid, a ``best --at`` point that is malformed or not on the
  dataset's grid (one line per problem), a question that ``recommend`` refuses (one
  line per problem, in the question's own key paths, before anything runs);
- 141 (128 + SIGPIPE, what a shell reports for a command killed by a closed pipe):
  stdout was closed before the output was written, as in
  ``straggler cells config/config.yaml | head -1``; nothing is printed on stderr.

Any other exception is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from ..model.policies.stacks import STACKS
from ..study.pilot import PILOT_JOBS, PILOT_REPLICATIONS

if TYPE_CHECKING:
    from ..study.config.resolved import ResolvedConfig

BROKEN_PIPE = 141
"""The exit status when stdout is closed early (128 + SIGPIPE)."""

CONFIG_EXPECTED = "expected a YAML study file, e.g. config/config.yaml"
DATASET_EXPECTED = "expected the dataset of a finished study, e.g. results/default/default.nc"
ARCHIVE_EXPECTED = "expected an archive written by straggler archive, e.g. archives/default.tar.gz"
QUESTION_EXPECTED = "expected a YAML question file, e.g. config/questions/example.yaml"


class _Refused(Exception):
    """A config was refused; the message has been printed."""


class _UserError(Exception):
    """A user error: each of its messages (its arguments, one problem each) is printed
    as a line ``straggler <command>: <message>`` and the command exits with
    :attr:`status`."""

    status = 1


class _Failure(_UserError):
    """A file missing, unreadable or not what it should be, or an output that cannot be
    written (exit status 1)."""


class _Usage(_UserError):
    """Arguments that name something that does not exist (exit status 2)."""

    status = 2


def _version() -> str:
    """The installed distribution's version, else the package's ``__version__``."""
    from importlib import metadata

    try:
        return metadata.version("straggler")
    except metadata.PackageNotFoundError:
        from .. import __version__

        return __version__


def _positive_int(text: str) -> int:
    """An argument that must be a whole number >= 1 (argparse names the option when it is not)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; expected a whole number >= 1")
    return value


def _os_reason(err: OSError) -> str:
    return str(err.strerror or err)


def _readable(path: str, expected: str, unreadable: str = "cannot read {path}") -> None:
    """Refuse (:class:`_Failure`) a path that is not a readable file; ``unreadable``
    says what a file that cannot be opened is."""
    if Path(path).is_dir():
        raise _Failure(f"{path} is a directory; {expected}")
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        raise _Failure(f"{unreadable.format(path=path)} ({_os_reason(err)}); {expected}") from None


def _writable(path: str, what: str) -> None:
    """Refuse (:class:`_Failure`), before any work, an output path that is a directory
    or under a file (its missing folders are created when it is written)."""
    out = Path(path)
    if out.is_dir():
        raise _Failure(f"{path} is a directory; expected the path of the {what} to write")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise _Failure(f"{parent} is not a directory; expected the path of the {what} to write")
            break


def _resolve(path: str, scale: str | None = None) -> ResolvedConfig:
    """Load and resolve a config file (at ``scale``, when given): a file that cannot be
    read is a :class:`_Failure`; a refused config prints its errors and raises
    _Refused."""
    from ..study.config import ConfigError, load_config, resolve_config

    _readable(path, CONFIG_EXPECTED)
    try:
        raw = load_config(path)
        if scale is not None:
            raw["scale"] = scale
        return resolve_config(raw)
    except ConfigError as err:
        print(f"{path}: invalid configuration:\n{err}", file=sys.stderr)
        raise _Refused from None


def _check_config(args) -> int:
    from ..study.config import dump_config
    from ..study.grid import build_grid, central_queues

    resolved = _resolve(args.file)
    grid = build_grid(resolved)
    if not grid.cells:
        print(f"{args.file}: invalid configuration: the grid has no possible cell", file=sys.stderr)
        return 1
    print(dump_config(resolved), end="")
    queues = central_queues(resolved, grid)
    if queues is not None:
        print(f"# {queues}")
    if not grid.impossible:
        print(f"# {len(grid.cells)} distinct cells; no grid point left NaN")
        return 0
    print(f"# {len(grid.cells)} distinct cells; {len(grid.impossible)} grid points left NaN:")
    for point, reason in grid.impossible.items():
        print(f"#   {dict(zip(grid.axes, point))}: {reason}")
    return 0


def _schema(args) -> int:
    from ..study.config.schema import schema_text

    print(schema_text(), end="")
    return 0


def _fit(args) -> int:

    if args.pairs is not None:
        return _fit_pairs(args)
    if args.file is None:
        raise _Usage("expected a file of sizes, or --pairs FILE (a file of paired durations)")
    if args.columns is not None:
        raise _Usage("--columns picks the two columns of --pairs FILE; expected --column with a file of sizes")
    from ..model.distributions import ParameterError
    from ..model.distributions.data_files import sorted_sample
    from ..model.distributions.fitting import describe, fit_families

    column = int(args.column) if args.column is not None and args.column.isdigit() else args.column
    try:
        xs = sorted_sample(args.file, column)
    except ParameterError as err:
        raise _Failure(str(err)) from None
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
        raise _Usage(f"--pairs {args.pairs} and a file of sizes ({args.file}) were both given; expected one of them")
    if args.column is not None:
        raise _Usage("--column picks a file of sizes' column; expected --columns A,B with --pairs")
    columns = None
    if args.columns is not None:
        names = [c.strip() for c in args.columns.split(",")]
        if len(names) != 2 or not all(names):
            raise _Usage(
                f"--columns {args.columns} is not allowed; expected two columns, A,B: headers or indices from 0"
            )
        columns = tuple(int(c) if c.isdigit() else c for c in names)
    if args.output:
        _writable(args.output, "study-file snippet")
    try:
        pairs = read_pairs(args.pairs, columns)  # type: ignore[arg-type]
    except PairsError as err:
        raise _Failure(str(err)) from None
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


def _cells(args) -> int:
    from ..study.grid import build_grid

    for cid in build_grid(_resolve(args.file)).cells:
        print(cid)
    return 0


def _evaluate(args) -> int:
    from ..study.dataset import write_netcdf
    from ..study.evaluate import evaluate_cell
    from ..study.grid import UnknownCell, build_grid

    resolved = _resolve(args.file)
    try:
        build_grid(resolved).cell(args.cell)
    except UnknownCell as err:
        hint = f"did you mean {err.closest!r}?" if err.closest else f"e.g. {err.examples[0]}"
        raise _Usage(
            f"cell {args.cell!r} is not in the grid of {args.file}; expected one of its {err.count} cells "
            f"(straggler cells {args.file} lists them), {hint}"
        ) from None
    if args.output:
        _writable(args.output, "netCDF file")
    ds = evaluate_cell(resolved, args.cell)
    if args.output:
        try:
            write_netcdf(ds, args.output)
        except OSError as err:
            raise _Failure(
                f"cannot write {args.output} ({_os_reason(err)}); expected the path of a netCDF file to write"
            ) from None
    else:
        print(ds)
    return 0


def _plan(args) -> int:
    resolved = _resolve(args.file, args.scale)
    _print_estimate(resolved)
    if args.pilot:
        from ..study.pilot import comparison_text, run_pilot

        def progress(done: int, total: int) -> None:
            print(f"\rpilot: {done}/{total} cells", end="\n" if done == total else "", file=sys.stderr, flush=True)

        pilot = run_pilot(resolved, args.pilot_jobs, args.pilot_replications, progress)
        print(file=sys.stderr)
        for line in comparison_text(pilot, resolved):
            print(line)
    return 0


def _print_estimate(resolved: ResolvedConfig, extra: str = "", extra_seconds: float = 0.0) -> None:
    """The plan of a resolved study: its cells and jobs, and the estimated CPU time (with
    ``extra_seconds`` of work the study file does not show, called ``extra``)."""
    from ..common.sources import model_hash
    from ..decide.break_even import delay_settings
    from ..study.grid import build_grid, central_queues
    from ..study.workunits import plan, study_seconds, tuned_values

    grid = build_grid(resolved)
    p = plan(resolved, grid, model_hash())
    later = study_seconds(resolved, grid, p, delay_settings(grid) if "simulation" in resolved.evaluate else [])
    sim = resolved.simulation
    simulated = [c for c in p.costs.values() if c.replications]
    # a tuned knob runs each value its search tries (at most tuned_values per load)
    runs = sum(c.replications * max(1, tuned_values(resolved, grid.cells[cid])) for cid, c in p.costs.items())
    jobs = runs * len(resolved.load) * (int(sim.jobs) + int(sim.warmup))
    seconds = p.cpu_seconds() + sum(later.values()) + extra_seconds
    print(
        f"study {resolved.study}: {len(grid.cells)} cells ({len(simulated)} simulated), "
        f"{len(p.batches)} evaluate jobs, {len(p.shards)} shard jobs"
    )
    queues = central_queues(resolved, grid)
    if queues is not None:
        print(queues)
    if sim.precision is not None:
        most = max((c.replications for c in simulated), default=0)
        print(
            f"precision {float(sim.precision):g} (the mean latency's relative CI half-width): "
            f"{int(sim.replications)} to {most} replications of {int(sim.jobs):.3g} jobs a load"
        )
    print(f"simulated jobs (all loads and replications): {jobs:.3g}")
    parts = [f"cells' jobs {p.cpu_seconds():.0f} s", *(f"{name} {v:.0f} s" for name, v in later.items())]
    if extra_seconds:
        parts.append(f"{extra} {extra_seconds:.0f} s")
    print(f"estimated CPU time: {seconds / 3600:.3g} h ({seconds:.0f} s: {', '.join(parts)})")
    print(
        "  (an upper estimate: unstable loads stop early, the loads above them are not simulated"
        + (
            ", most loads reach the precision before the cap: --pilot projects it)"
            if sim.precision is not None
            else ")"
        )
    )


def _bench(args) -> int:
    from ..engines.bench import run_bench

    run_bench(json=args.json, quick=args.quick, only=args.only)
    return 0


def _archive(args) -> int:
    from ..outputs.archive import ArchiveError, create

    if args.output:
        _writable(args.output, "archive")
    try:
        path = create(args.study, results_root=args.results, output=args.output, force=args.force)
    except ArchiveError as err:
        raise _Failure(str(err)) from None
    except OSError as err:
        where = " -> ".join(str(f) for f in (err.filename, err.filename2) if f is not None)
        raise _Failure(
            f"{where or 'the archive'}: {_os_reason(err)}; expected the archive's path to be writable"
        ) from None
    print(path)
    return 0


def _verify(args) -> int:
    from ..outputs.archive import ArchiveError, verify

    # (the words of the archive module's refusal of a file that is not an archive)
    _readable(args.archive, ARCHIVE_EXPECTED, unreadable="{path}: not a readable .tar.gz archive")
    try:
        verdict = verify(args.archive, rerun=args.rerun)
    except ArchiveError as err:
        raise _Failure(str(err)) from None
    print("\n".join(verdict.lines))
    print("OK" if verdict.ok else "FAILED")
    return 0 if verdict.ok else 1


def _best(args) -> int:
    import xarray as xr

    from ..outputs.report import best_at, parse_point

    try:
        point = parse_point(args.at)
    except ValueError as err:
        raise _Usage(str(err)) from None
    _readable(args.dataset, DATASET_EXPECTED)
    try:
        ds = xr.open_dataset(args.dataset, engine="netcdf4")
    except (OSError, ValueError) as err:
        why = _os_reason(err) if isinstance(err, OSError) else str(err)
        raise _Failure(f"{args.dataset} is not a netCDF dataset ({why}); {DATASET_EXPECTED}") from None
    with ds:
        if "lambda_max" not in ds or "policy" not in ds["lambda_max"].dims or "load" not in ds.dims:
            raise _Failure(
                f"{args.dataset} is not a study dataset (no lambda_max by policy, no load); {DATASET_EXPECTED}"
            )
        study = ds.load()
    from ..decide.frontier import with_located

    # a study with decision.resolution: its located frontiers too
    study = with_located(study, Path(args.dataset).parent / "capacity.csv")
    lines, on_grid = best_at(study, point)
    if not on_grid:  # lines: "the point is not on the grid:", then one problem a line
        raise _Usage(*(f"the point is not on the grid: {line.strip()}" for line in lines[1:]))
    print("\n".join(lines))
    return 0


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer; expected a count >= 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; expected a count >= 0")
    return value


def _policies(args) -> int:
    from ..model.policies import all_policy_names, canonical_policy
    from ..outputs.glossary import policy_text, summary_text
    from ..study.config.errors import did_you_mean

    if not args.names:
        print(summary_text(), end="")
        print("\n(straggler policies NAME ... prints a policy in full: what happens to a job, its parameters,")
        print("what the analysis knows, its papers)")
        return 0
    names = []
    for name in args.names:
        try:
            names.append(canonical_policy(name))
        except KeyError:
            raise _Usage(
                f"no policy {name!r}; expected one of {', '.join(all_policy_names())}"
                + did_you_mean(name, all_policy_names())
            ) from None
    print("\n".join(policy_text(name) for name in names), end="")
    return 0


def _repository() -> Path:
    """The folder of the package's checkout that holds ``workflow/Snakefile``
    (``src/straggler``'s grandparent): where a study runs by default."""
    import straggler

    return Path(straggler.__file__).resolve().parents[2]


def _run_folder(results: str | None) -> Path:
    """The folder Snakemake runs in: the repository's, or the parent of ``--results``
    (Snakemake writes ``results/<study>`` under the folder it runs in, so the option
    names a folder called ``results``)."""
    if results is None:
        return _repository()
    folder = Path(results)
    if folder.name != "results":
        raise _Usage(
            f"--results {results}: a folder named {folder.name!r} is not allowed; expected a folder named "
            f"results (the study runs in its parent folder and writes results/<name>/ there), e.g. /scratch/results"
        )
    if folder.exists() and not folder.is_dir():
        raise _Failure(f"--results {results} is not a directory; expected a folder for the results")
    return folder.absolute().parent


def _snakemake(
    snakefile: Path,
    folder: Path,
    study: Path,
    cores: str,
    profile: str | None,
    targets: list[str] | None = None,
    log: Path | None = None,
) -> int:
    """Run Snakemake on ``study`` in ``folder`` with this interpreter (for ``targets``,
    paths from ``folder``; default: the whole study), its output going to the terminal
    (or to the file ``log``); its exit status. An interrupt (Ctrl-C reaches both
    processes) waits for Snakemake to stop its jobs and remove its lock, so that a rerun
    resumes."""
    import subprocess

    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(snakefile),
        "--directory",
        str(folder),
        "--configfile",
        str(study.absolute()),
        "--cores",
        cores,
        # the project's own lines (the plan's estimate, the time left, each cell done), the
        # progress and the errors stay; each job's block of inputs and outputs goes
        "--quiet",
        "rules",
        "host",
    ]
    if profile is not None:
        # a profile given by its path is found from the caller's folder, not the run's
        command += ["--profile", str(Path(profile).absolute()) if Path(profile).exists() else profile]
    command[3:3] = list(targets or [])  # before the options (--quiet takes a list)
    sys.stdout.flush()  # what was printed comes before Snakemake's output
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") if log is not None else contextlib.nullcontext() as out:
        process = subprocess.Popen(command, cwd=folder, stdout=out, stderr=subprocess.STDOUT if out else None)
    try:
        return process.wait()
    except KeyboardInterrupt:
        while process.poll() is None:  # a second Ctrl-C reaches Snakemake too: keep waiting
            try:
                process.wait()
            except KeyboardInterrupt:
                continue
        raise _Failure(
            "interrupted; run the same command again to resume (only the cells without a result are computed)"
        ) from None


def _shown(path: Path) -> Path:
    """``path`` as the user sees it: from the current folder when under it."""
    absolute = Path(os.path.abspath(path))
    return absolute.relative_to(Path.cwd()) if absolute.is_relative_to(Path.cwd()) else absolute


def _locks_of(folder: Path, study: str) -> list[Path]:
    """The Snakemake lock files in ``folder`` that hold ``results/<study>/``. Snakemake
    removes its own when it stops, so after a run those left are another run's or a
    killed run's. (Runs of other studies lock other files: Snakemake lets runs with
    disjoint outputs share a folder.)"""
    locks = folder / ".snakemake" / "locks"
    prefix = f"results/{study}/"
    found = []
    for lock in sorted(locks.glob("*.lock")) if locks.is_dir() else []:
        try:
            if any(line.startswith(prefix) for line in lock.read_text().splitlines()):
                found.append(lock)
        except OSError:
            continue  # removed meanwhile: its run has stopped
    return found


def _recommend(args) -> int:
    import xarray as xr

    from ..common.files import write_text
    from ..decide.deploy import setting_lines
    from ..decide.question import answer_lines, question_unit, read_question, study_text
    from ..study.config import ConfigError

    _readable(args.question, QUESTION_EXPECTED)
    folder = _run_folder(args.results)
    try:
        question = read_question(args.question, folder)
    except ConfigError as err:
        raise _Usage(*(f"{args.question}: {line}" for line in err.errors)) from None
    if args.emit and not question_unit(question):
        raise _Usage(
            f"{args.question}: workload: --emit {args.emit} writes times in the stack's units, and the workload "
            "states none; expected its unit, e.g. workload: {..., unit: ms} (one of s, ms, us)"
        )
    text = study_text(question)
    results = _shown(folder / "results" / question.name)
    if args.dry_run:
        print(text, end="")
        print(f"# the plan (nothing run; the results would go to {results}):")
        _print_estimate(question.resolved, "checking the answer's margin in c", _margin_seconds(question.resolved))
        return 0
    snakefile = _repository() / "workflow" / "Snakefile"
    if not snakefile.is_file():
        raise _Failure(
            f"cannot find the workflow: {snakefile} does not exist; expected straggler installed from its "
            "repository (pip install -e .), which holds workflow/Snakefile"
        )
    _writable(str(question.study_path), "study file")
    try:
        write_text(question.study_path, text)
    except OSError as err:
        raise _Failure(f"cannot write {question.study_path} ({_os_reason(err)}); expected a writable folder") from None
    print(f"study file: {_shown(question.study_path)}; results: {results}")
    dataset = results / f"{question.name}.nc"
    # the margin in c located by bisection: each round adds the midpoints it needs to the
    # study's sweep of c and runs it (only the new cells are computed); the rounds build
    # the dataset alone, the figures and the report are made once, at the end
    only_dataset = [f"results/{question.name}/{question.name}.nc"]  # from the run's folder (the Snakefile's RESULTS)
    status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile, only_dataset)
    if status != 0:
        _snakemake_failed(status, folder, question.name, results)
    question, study = _margin_rounds(question, args, snakefile, folder, dataset)
    report = str(results / "report.html")
    decision = question.resolved.decision
    if study is not None and (decision is None or decision.resolution is None):
        # every number of the answer is in the dataset the rounds combined (no located
        # frontier to wait for): the answer first, then the figures and the report,
        # Snakemake's output in a log (shown if it fails)
        log = results / "logs" / "recommend-report.log"
        print(f"the answer; its report follows (Snakemake's output: {log})", file=sys.stderr, flush=True)
        print("\n".join(answer_lines(study, report=report)), flush=True)
        if args.emit:
            print("\n".join(setting_lines(study, args.emit)), flush=True)
        status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile, log=log)
        if status != 0:
            print(_tail(log), file=sys.stderr)
            _snakemake_failed(status, folder, question.name, results)
        return 0
    status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile)
    if status != 0:
        _snakemake_failed(status, folder, question.name, results)
    try:
        with xr.open_dataset(dataset, engine="netcdf4") as ds:
            study = ds.load()
        from ..decide.frontier import with_located

        study = with_located(study, results / "capacity.csv")
        lines = answer_lines(study, report=report)
        if args.emit:
            lines += setting_lines(study, args.emit)
    except (OSError, ValueError) as err:
        raise _Failure(f"cannot read {dataset} ({err}); {DATASET_EXPECTED}") from None
    print("\n".join(lines))
    return 0


def _tail(log: Path, lines: int = 40) -> str:
    """The last ``lines`` of a log (empty when it cannot be read)."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _snakemake_failed(status: int, folder: Path, name: str, results: Path) -> NoReturn:
    """Why a run of a question's study stopped, and how to resume it."""
    locks = _locks_of(folder, name)
    if locks:
        raise _Failure(
            f"{results} is locked: another run is writing it (this question, or one of the same name), or a "
            f"run killed without warning left its lock; when no such run is going, remove the lock "
            f"(rm {' '.join(str(p) for p in locks)}) and run the same command again: it resumes"
        )
    raise _Failure(
        f"snakemake stopped with exit status {status} (its messages above say why); once that is "
        "fixed, the same command resumes: only the cells without a result are computed"
    )


def _margin_rounds(question, args, snakefile: Path, folder: Path, dataset: Path):
    """The bisection of the margin in c after the first run: each round adds the values
    of c it needs to the study's sweep and computes their cells. With a cluster profile a
    round is a Snakemake run of the dataset (its cells go to the cluster); otherwise the
    rounds' cells run in workers of this process (:mod:`straggler.run.margin_rounds`). The
    question with every value of c the rounds added, and (without a profile) the study's
    dataset with them all, combined in memory (None with a profile)."""
    from ..common.files import write_text
    from ..decide.assumption import probes_needed
    from ..decide.question import add_probes, study_text
    from ..run.margin_rounds import RoundPool

    def round_of(probes: list[float]) -> None:
        nonlocal question
        question = add_probes(question, probes)
        write_text(question.study_path, study_text(question))
        print("checking the answer at c = " + ", ".join(f"{c:g}" for c in probes), file=sys.stderr)

    if args.profile is not None:
        only_dataset = [f"results/{question.name}/{question.name}.nc"]
        while probes := _probes(dataset, probes_needed):
            round_of(probes)
            status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile, only_dataset)
            if status != 0:
                _snakemake_failed(status, folder, question.name, dataset.parent)
        return question, None
    import xarray as xr

    try:
        with xr.open_dataset(dataset, engine="netcdf4") as ds:
            study = ds.load()
    except (OSError, ValueError) as err:
        raise _Failure(f"cannot read {dataset} ({err}); {DATASET_EXPECTED}") from None
    probes = probes_needed(study)
    cores = (os.cpu_count() or 1) if args.cores == "all" else int(args.cores)
    with RoundPool(cores) as pool:
        while probes:
            round_of(probes)
            try:
                study = pool.run(question.study_path, folder)
            except KeyboardInterrupt:
                raise _Failure("interrupted; run the same command again to resume (the cells done are kept)") from None
            probes = probes_needed(study)
    return question, study


MARGIN_ROUND_SECONDS = 2.0
"""One round of the margin's bisection besides its cells, in the command's own workers
(:mod:`straggler.run.margin_rounds`): the dataset combined, the next values of c found, the
workers' start-up shared by the rounds (measured on benchmarks/heavy_question.py: 1-2 s a
round; by Snakemake, with a cluster profile, 7-9 s)."""


def _margin_seconds(resolved) -> float:
    """The estimated CPU seconds of the bisection of the margin in c (:func:`_recommend`):
    as many rounds as halve the narrowest gap of the sweep of c down to the assumption's
    resolution, each the cells of one value of c and :data:`MARGIN_ROUND_SECONDS`."""
    from ..common.sources import model_hash
    from ..decide.assumption import RESOLUTION
    from ..study.grid import build_grid
    from ..study.workunits import plan

    grid = build_grid(resolved)
    axis = next((a for a in grid.axes if a.endswith(".identical")), None)
    values = sorted(float(v) for v in grid.axes.get(axis, [])) if axis else []
    if len(values) < 2:
        return 0.0
    gap = min(b - a for a, b in zip(values, values[1:]))
    rounds = max(0, math.ceil(math.log2(gap / RESOLUTION))) if gap > RESOLUTION else 0
    costs = plan(resolved, grid, model_hash()).costs
    per_value = sum(c.total for cid, c in costs.items() if f"{axis}=" in cid) / len(values)
    return rounds * (per_value + MARGIN_ROUND_SECONDS)


def _probes(dataset: Path, needed) -> list[float]:
    """The values of c the margin's bisection needs next, read from the finished dataset
    (none when it cannot be read: the answer's own reading then says why)."""
    import xarray as xr

    try:
        with xr.open_dataset(dataset, engine="netcdf4") as ds:
            return needed(ds.load())
    except (OSError, ValueError):
        return []


def _cores(text: str) -> str:
    """``--cores``: ``all`` or a whole number >= 1."""
    return text if text == "all" else str(_positive_int(text))


def _examples(*lines: str) -> str:
    """An ``examples:`` epilog; a line of a command begins with two spaces and
    ``straggler`` (tests/cli/test_cli.py runs them), others are comments."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


CELL = "policy=CoC__distribution=exp__dependence=iid__r_slow=0.5__d=2__N=10"
"""A cell of the default study, for the examples."""


def _fit_command(command: Callable[..., argparse.ArgumentParser]) -> None:
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
    p.add_argument("--keep", type=_positive_int, default=2, help="fits put beside the trace in the snippet")
    p.add_argument("-o", "--output", help="write the study-file snippet here instead of printing it")
    p.set_defaults(func=_fit)


def _study_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The commands on a study file and the registry: policies, check-config, fit, schema,
    cells, evaluate, plan, bench (``command(name, help, *examples)`` adds one)."""
    from ..model.policies import ALIASES, POLICIES

    replicating = next(name for name, spec in POLICIES.items() if spec.uses_d)
    pooled = next(name for name, spec in POLICIES.items() if spec.two_pools)
    p = command(
        "policies",
        "the policy glossary: what each policy does to a job, its parameters, what the analysis knows",
        "straggler policies",
        f"straggler policies {replicating} {pooled}",
        f"straggler policies {next(iter(ALIASES))}",
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="policies (names or aliases; default: a line for each)")
    p.set_defaults(func=_policies)
    p = command(
        "check-config",
        "validate a config and print it resolved",
        "straggler check-config config/config.yaml",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.set_defaults(func=_check_config)
    _fit_command(command)
    p = command(
        "schema",
        "print the JSON schema of a study file (YAML): every key, its default and what it allows",
        "straggler schema > config.schema.yaml",
        "(an editor's YAML language server completes and checks a study file with it:",
        " # yaml-language-server: $schema=config.schema.yaml)",
    )
    p.set_defaults(func=_schema)
    p = command(
        "cells",
        "list the distinct cells of a config's grid",
        "straggler cells config/config.yaml",
        "straggler cells config/config.yaml | grep -c distribution=pareto",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.set_defaults(func=_cells)
    p = command(
        "evaluate",
        "evaluate one cell outside Snakemake",
        f"straggler evaluate config/config.yaml {CELL}",
        f"straggler evaluate config/config.yaml {CELL} -o cell.nc",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.add_argument("cell", help="a cell id, as listed by `straggler cells FILE`")
    p.add_argument("-o", "--output", help="write the cell dataset to this netCDF file")
    p.set_defaults(func=_evaluate)
    p = command(
        "plan",
        "how a study is cut into jobs, and its estimated cost",
        "straggler plan config/config.yaml",
        "straggler plan config/studies/ps_fig5.yaml --scale paper --pilot",
        "(--scale paper needs a study file that defines scales.paper; --pilot simulates every",
        " cell briefly to project the CPU time and the widest CI, a few seconds to minutes)",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.add_argument("--scale", choices=("quick", "paper"), help="the scale (default: the file's)")
    p.add_argument(
        "--pilot",
        action="store_true",
        help="simulate every cell briefly, then project the CPU time and the widest CI of the study's run "
        "length and of the fixed one it is capped by",
    )
    p.add_argument("--pilot-jobs", type=_positive_int, default=PILOT_JOBS, help="jobs per pilot replication")
    p.add_argument(
        "--pilot-replications", type=_positive_int, default=PILOT_REPLICATIONS, help="replications per pilot load"
    )
    p.set_defaults(func=_plan)
    p = command(
        "bench",
        "simulation throughput, with a SimPy baseline measured in the same run",
        "straggler bench --quick",
        "straggler bench --quick --only fast_ --only ps_mm1",
        "(without --quick: 10x more jobs, about 1.5 minutes; --json prints the numbers as JSON)",
    )
    p.add_argument("--json", action="store_true", help='print {"workloads": {...}, "goals": {...}} as JSON')
    p.add_argument("--quick", action="store_true", help="10x fewer jobs (a smoke test)")
    p.add_argument(
        "--only",
        action="append",
        metavar="PATTERN",
        help="only the workloads whose names contain PATTERN or match it as a shell pattern "
        "(e.g. event_ps, '*_coc_*'; repeatable; the SimPy baseline always runs)",
    )
    p.set_defaults(func=_bench)


def _result_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The commands on a study's results: archive, verify, best."""
    p = command(
        "archive",
        "pack results/<study> with its code, environment and a sha256 manifest into archives/<study>.tar.gz "
        "(refused unless every cell of the grid is there and the dataset is their aggregate)",
        "straggler archive default",
        "straggler archive default --force",
        "straggler archive default -o default-copy.tar.gz",
    )
    p.add_argument("study", help="the study's name (its results are under RESULTS/<study>), e.g. default")
    p.add_argument("--results", default="results", help="results root (default: results)")
    p.add_argument("-o", "--output", help="archive path (default: archives/<study>.tar.gz)")
    p.add_argument("--force", action="store_true", help="replace an existing archive")
    p.set_defaults(func=_archive)
    p = command(
        "verify",
        "check an archive against its manifest and its dataset against the aggregate of its cells; "
        "--rerun K re-evaluates K cells and compares them bit for bit",
        "straggler verify archives/default.tar.gz",
        "straggler verify archives/default.tar.gz --rerun 2",
    )
    p.add_argument("archive", help="an archive written by straggler archive, e.g. archives/default.tar.gz")
    p.add_argument(
        "--rerun",
        type=_non_negative,
        default=0,
        metavar="K",
        help="re-evaluate K cells (spread over the grid) with the installed code",
    )
    p.set_defaults(func=_verify)
    p = command(
        "best",
        "the winning policies at one point of a finished dataset, by stability, latency and cost, with their evidence",
        "straggler best results/default/default.nc --at r_slow=0.5 distribution=exp dependence=iid load=0.5",
        "straggler best results/default/default.nc --at r_slow=0.1 distribution=pareto dependence=identical load=0.3",
    )
    p.add_argument("dataset", help="a study dataset, e.g. results/default/default.nc")
    p.add_argument(
        "--at",
        nargs="+",
        default=[],
        metavar="AXIS=VALUE",
        help="the point: a value for every swept axis and the load, "
        "e.g. r_slow=0.3 distribution=pareto dependence=iid load=0.5",
    )
    p.set_defaults(func=_best)


def _question_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The command on an operator's question: recommend."""
    p = command(
        "recommend",
        "answer an operator's question (a system, a workload, loads, an SLO and a budget): write it as a "
        "study file beside it, run the study and print which policy to run, in at most ten lines",
        "straggler recommend config/questions/example.yaml --dry-run",
        "straggler recommend config/questions/example.yaml --cores 2",
        "(--dry-run prints the study file and the plan's estimate and runs nothing; without it the",
        " example runs in a few minutes on two cores, and a rerun after an interruption resumes)",
    )
    p.add_argument("question", help="a question file, e.g. config/questions/example.yaml")
    p.add_argument("--cores", type=_cores, default="all", metavar="N", help="cores Snakemake uses (default: all)")
    p.add_argument(
        "--profile", metavar="DIR", help="a Snakemake profile (a folder with config.yaml, e.g. profiles/slurm)"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print the study file and the plan's estimate; write and run nothing"
    )
    p.add_argument(
        "--results",
        metavar="DIR",
        help="the results folder, named results (default: results/ of the repository): the study runs in its "
        "parent and writes DIR/<name>/",
    )
    p.add_argument(
        "--emit",
        choices=list(STACKS),
        metavar="STACK",
        help="after the answer, print the recommended contender a client alone can run as the setting of an RPC "
        f"stack, in its format and units: {', '.join(STACKS)} (the workload needs its unit, e.g. unit: ms)",
    )
    p.set_defaults(func=_recommend)


def build_parser() -> argparse.ArgumentParser:
    """The ``straggler`` parser: a subparser per command, each with its examples."""
    parser = argparse.ArgumentParser(
        prog="straggler",
        description="Parameter studies of redundancy policies.",
        epilog="Each command's --help ends with examples on the default study. Exit status: 0 done, "
        "1 a failure (a file missing or refused, a verification failed), 2 a usage error.",
    )
    parser.add_argument("--version", action="version", version=f"straggler {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str, *examples: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help,
            description=textwrap.fill(help[0].upper() + help[1:] + ".", 79),  # the examples' formatter wraps nothing
            epilog=_examples(*examples),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    _study_commands(command)
    _result_commands(command)
    _question_commands(command)
    return parser


def _quiet_stdout() -> None:
    """stdout was closed by its reader: what is left to write goes to /dev/null, so
    that the interpreter's final flush does not fail too (the recipe of the Python
    documentation, "Note on SIGPIPE")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv=None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); return the exit status
    (the module docstring says which)."""
    args = build_parser().parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe is then caught below
    except _Refused:
        return 1
    except _UserError as err:
        for message in err.args:
            print(f"straggler {args.command}: {message}", file=sys.stderr)
        return err.status
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE
    return status


if __name__ == "__main__":
    sys.exit(main())
