"""Hostile configs: each is refused before any work, in one line naming the key (its full
path), the value and what is allowed, by ``straggler check-config`` and by the Snakefile
(straggler.study.config.limits, straggler.study.config.loader, the schema's maxima)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from runs import snakemake

from straggler import cli
from straggler.study.config import ConfigError, load_config, resolve_config, schema
from straggler.study.config import limits as L

ROOT = Path(__file__).resolve().parents[3]

BASE = {
    "study": "hostile",
    "grid": {"policy": ["ZRed", "CoC"], "distribution": ["exp"], "d": [2], "N": [4]},
    "load": [0.3],
    "distributions": {"exp": {"family": "exponential", "mean": 1}},
    "evaluate": ["analytic"],
}
BASE_TEXT = yaml.safe_dump(BASE, sort_keys=False)


def laughs(indent: str) -> str:
    """A billion laughs: 10 lines that expand to 10^10 strings."""
    lines = [f"{indent}l0: &a0 [" + ", ".join(["lol"] * 10) + "]"]
    lines += [f"{indent}l{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


def mapping_laughs(indent: str) -> str:
    """The same of mappings: Snakemake's own merge of its config walks every one (hours)."""
    lines = [f"{indent}l0: &a0 {{" + ", ".join(f"k{j}: lol" for j in range(10)) + "}"]
    lines += [f"{indent}l{i}: &a{i} {{" + ", ".join(f"k{j}: *a{i - 1}" for j in range(10)) + "}" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


# (id, file text, the key path that the one line names)
FILES = [
    ("laughs-under-unknown-key", BASE_TEXT + "junk:\n" + laughs("  "), "junk.l0"),
    ("laughs-of-mappings", BASE_TEXT + "junk:\n" + mapping_laughs("  "), "junk.l0"),
    (
        "laughs-under-scales-paper",
        BASE_TEXT + "scales:\n  paper:\n    junk:\n" + laughs("      "),
        "scales.paper.junk.l0",
    ),
    (
        "alias-of-a-distribution",
        BASE_TEXT.replace("exp:\n    family", "exp: &e\n    family").replace("evaluate:", "  exp2: *e\nevaluate:"),
        "distributions.exp",
    ),
    ("duplicate-top-level-key", BASE_TEXT + "study: other\n", "study"),
    ("duplicate-nested-key", BASE_TEXT.replace("  d:\n", "  policy: [FRed]\n  d:\n"), "grid.policy"),
    ("nested-20000-deep-lists", BASE_TEXT + "junk: " + "[" * 20000 + "]" * 20000 + "\n", "junk[0][0]"),
    ("nested-20000-deep-mappings", BASE_TEXT + "junk: " + "{a: " * 20000 + "1" + "}" * 20000 + "\n", "junk.a.a"),
    ("nested-100-deep", BASE_TEXT + "junk: " + "[" * 100 + "]" * 100 + "\n", "junk[0][0]"),
    # (YAML itself refuses a plain key of more than 1024 characters, with its line)
    ("key-of-1010-characters", BASE_TEXT + "k" * 1010 + ": 1\n", "k" * 77),
    ("integer-of-5000-digits", BASE_TEXT.replace("study: hostile", "seed: " + "7" * 5000), "seed"),
    ("file-of-300-KB", BASE_TEXT + "junk: [" + ", ".join(["1"] * 100_000) + "]\n", ""),
    ("yte-template", "__use_yte__: true\n" + BASE_TEXT, "__use_yte__"),
    ("control-character-in-a-key", BASE_TEXT + '"bad\\nkey": 1\n', "'bad\\nkey'"),
]
# non-UTF-8 bytes are written as bytes
BYTES = [
    ("non-utf8-byte-in-a-value", BASE_TEXT.encode().replace(b"hostile", b"host\xffile"), "study"),
    ("non-utf8-byte-in-a-list", BASE_TEXT.encode().replace(b"- ZRed", b"- ZR\xc3\x28ed"), "grid.policy[0]"),
]


def _set(path, value):
    def change(raw):
        node = raw
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value

    return change


def _grid(**axes):
    return lambda raw: raw["grid"].update(axes)


LONG = "x" * 300
# 10 policies x r_slow 10 x d 10 x N 10 x Rer.tau 10 x Rep.tau 10 x types.p1 10
HUGE_GRID = _grid(
    policy=["ZRed", "FRed", "Rer", "Rep", "KT", "KS", "CoC", "CoS", "RIQ", "FJ"],
    d=list(range(1, 11)),
    N=list(range(10, 110, 10)),
    r_slow=[i / 10 for i in range(1, 11)],
    **{"Rer.tau": list(range(10)), "Rep.tau": list(range(10)), "types.p1": [i / 10 for i in range(10)]},
)
# (id, change of BASE, the key path)
CONFIGS = [
    ("grid-of-10^7-points", HUGE_GRID, "grid"),
    ("axis-of-1001-values", _grid(**{"Rer.tau": list(range(1001))}), "grid.Rer.tau"),
    ("load-of-1001-values", _set(("load",), [i / 2000 + 0.001 for i in range(1001)]), "load"),
    ("seed-2^70", _set(("seed",), 2**70), "seed"),
    ("seed-2^64+1", _set(("seed",), 2**64 + 1), "seed"),
    ("seed-2^63", _set(("seed",), 2**63), "seed"),
    ("d-10^30", _grid(d=[10**30]), "grid.d[0]"),
    ("N-2^63", _grid(N=[2**63]), "grid.N[0]"),
    ("jobs-2^70", _set(("simulation", "jobs"), 2**70), "simulation.jobs"),
    ("replications-2^40", _set(("simulation", "replications"), 2**40), "simulation.replications"),
    ("max_jobs-2^70", _set(("simulation",), {"precision": 0.1, "max_jobs": 2**70}), "simulation.max_jobs"),
    ("warmup-longer-than-jobs", _set(("simulation",), {"jobs": 10, "warmup": 100000}), "simulation.warmup"),
    ("exponential-mean-1e-320", _set(("distributions", "exp", "mean"), 1e-320), "distributions.exp.mean"),
    ("exponential-mean-1e300", _set(("distributions", "exp", "mean"), 1e300), "distributions.exp.mean"),
    (
        "weibull-mean-below-range",
        _set(("distributions", "exp"), {"family": "weibull", "shape": 1, "scale": 1e-200}),
        "distributions.exp",
    ),
    ("load-1e-300", _set(("load",), [1e-300]), "load[0]"),
    ("load-10^400", _set(("load",), [10**400]), "load[0]"),
    ("r_slow-1e-320", _grid(r_slow=[1e-320]), "grid.r_slow[0]"),
    (
        "erlang-k-10^30",
        _set(("distributions", "exp"), {"family": "erlang", "k": 10**30, "mean": 1}),
        "distributions.exp.k",
    ),
    ("fj-k-2^70", lambda raw: raw.update(policies={"FJ": {"k": 2**70}}), "policies.FJ.k"),
    ("pools-2^62", _set(("system", "pools"), [2**62, 2**62]), "system.pools[0]"),
    ("101-job-types", _set(("system", "types", "p"), [1 / 101] * 101), "system.types.p"),
    ("cells_per_job-2^70", _set(("execution", "cells_per_job"), 2**70), "execution.cells_per_job"),
    ("target_seconds-1e-320", _set(("execution", "target_seconds"), 1e-320), "execution.target_seconds"),
    (
        "distribution-name-of-300-characters",
        lambda raw: (
            raw["distributions"].update({LONG: {"family": "exponential", "mean": 1}}),
            raw["grid"].update(distribution=[LONG]),
        ),
        "distributions." + LONG[:77],
    ),
    ("study-name-of-5000-characters", _set(("study",), "s" * 5000), "study"),
    ("study-name-of-65-characters", _set(("study",), "s" * 65), "study"),
    ("study-name-with-a-newline", _set(("study",), "abc\n"), "study"),
    ("study-name-with-a-tab", _set(("study",), "ab\tc"), "study"),
    (
        "dependence-name-with-a-newline",
        lambda raw: (raw.update(dependences={"d\n": {"kind": "iid"}}), raw["grid"].update(dependence=["d\n"])),
        "dependences.'d\\n'",
    ),
    (
        "cell-id-longer-than-226-bytes",
        lambda raw: (
            raw["distributions"].update({"e" * 64: {"family": "exponential", "mean": 1}}),
            raw.update(dependences={"i" * 64: {"kind": "iid"}}),
            raw["grid"].update(
                distribution=["e" * 64],
                dependence=["i" * 64],
                **{"e" * 64 + ".mean": [1.0000000000000002, 2.0000000000000004]},
            ),
        ),
        "grid",
    ),
    (
        "replication-runs-above-10^6",
        lambda raw: (
            raw.update(evaluate=["simulation"], simulation={"replications": 10000}),
            raw["grid"].update(N=list(range(2, 202, 2)), d=[1, 2]),
        ),
        "simulation.replications",
    ),
    (
        "unknown-key-under-scales-paper",
        _set(("scales",), {"paper": {"simulation": {"jobz": 1}}}),
        "scales.paper.simulation.jobz",
    ),
    ("bad-value-under-scales-paper", _set(("scales",), {"paper": {"grid": {"N": [2**63]}}}), "scales.paper.grid.N[0]"),
    ("dotted-grid-key-with-a-newline", _grid(**{"Rer\n.tau": [1]}), "grid.'Rer\\n.tau'"),
    ("grid-axis-value-2^70", lambda raw: raw["grid"].update(policy=["FJ"], **{"FJ.k": [1, 2**70]}), "grid.FJ.k[1]"),
]


def _write(tmp_path: Path, name: str, content) -> Path:
    path = tmp_path / f"{name}.yaml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        raw = copy.deepcopy(BASE)
        content(raw)
        path.write_text(yaml.safe_dump(raw, sort_keys=False, width=10**6))
    return path


def _names_key(line: str, key: str) -> bool:
    """Does the line begin with the key path (after the file name, for the loader's lines)?"""
    return bool(re.search(rf"(^|: ){re.escape(key)}[:.\[ ]", line)) if key else True


def check_config_refusal(path: Path, key: str, capsys) -> str:
    """``straggler check-config`` refuses the file: the line naming the key."""
    assert cli.main(["check-config", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    header, *lines = err.splitlines()
    assert header == f"{path}: invalid configuration:"
    assert lines, err
    named = [line for line in lines if _names_key(line, key)]
    assert len(named) == 1, f"not one line names {key!r}:\n{err}"
    assert "not allowed" in named[0] and "expected" in named[0], named[0]
    return named[0]


CASES = [(n, t, k) for n, t, k in FILES] + [(n, t, k) for n, t, k in BYTES] + [(n, c, k) for n, c, k in CONFIGS]


@pytest.mark.parametrize("name, content, key", CASES, ids=[c[0] for c in CASES])
def test_check_config_refuses_in_one_line(tmp_path, capsys, name, content, key):
    path = _write(tmp_path, name, content)
    check_config_refusal(path, key, capsys)


def test_every_hostile_case_is_refused_count():
    """The count docs/reference/configuration.md gives: every hostile config tried is refused by check-config
    (and all but the 6 that Snakemake's own reader cannot read by snakemake -n: a byte
    that is not UTF-8, 20,000 levels, an integer of 5000 digits, aliased mappings)."""
    assert len(CASES) == 52


def test_the_grid_of_10_7_points_is_refused_from_its_axis_lengths_before_it_is_walked(monkeypatch):
    raw = copy.deepcopy(BASE)
    HUGE_GRID(raw)

    def walked(cfg):
        raise AssertionError("the schema walked a grid that its axis lengths already refuse")

    monkeypatch.setattr("straggler.study.config.schema_errors", walked)
    with pytest.raises(ConfigError) as info:
        resolve_config(raw)
    (line,) = info.value.errors
    assert line.startswith(
        "grid: a grid of 10000000 points (policy 10 x d 10 x N 10 x r_slow 10 x Rer.tau 10 x Rep.tau 10 x "
        "types.p1 10) is not allowed"
    )
    assert f"expected at most {L.MAX_GRID_POINTS} points" in line


def test_the_grid_limit_is_the_product_of_the_axis_lengths():
    raw = copy.deepcopy(BASE)
    raw["grid"].update(d=list(range(1, 101)), N=list(range(1, 251)), r_slow=[0.5, 1.0])  # 2 x 100 x 250 x 2
    assert L.size_errors(raw) == []  # exactly MAX_GRID_POINTS
    raw["grid"]["r_slow"] = [0.25, 0.5, 1.0]
    (err,) = L.size_errors(raw)
    assert "150000 points (policy 2 x d 100 x N 250 x r_slow 3)" in err.text
    # policy parameters given as lists are axes too
    raw["grid"]["r_slow"] = [1.0]
    raw["policies"] = {"Rer": {"tau": [1, 2, 3]}}
    raw["grid"]["policy"] = ["ZRed", "SLB"]
    assert "tau 3" in L.size_errors(raw)[0].text


def test_the_schema_states_the_limits():
    sch = schema()
    props = sch["properties"]
    assert props["seed"]["maximum"] == 2**63 - 1
    for axis in ("policy", "distribution", "dependence", "r_slow", "d", "N"):
        assert props["grid"]["properties"][axis]["maxItems"] == L.MAX_AXIS_VALUES
    assert props["grid"]["patternProperties"]["\\."]["maxItems"] == L.MAX_AXIS_VALUES
    assert props["load"]["anyOf"][0]["maxItems"] == L.MAX_AXIS_VALUES  # a list, or a range (at most as many)
    assert props["simulation"]["properties"]["jobs"]["maximum"] == 10**9
    for pattern in (props["study"]["pattern"], sch["$defs"]["name"]["pattern"]):
        assert re.search(pattern, "a" * L.MAX_NAME_LENGTH) and not re.search(pattern, "a" * (L.MAX_NAME_LENGTH + 1))
        assert not re.search(pattern, "abc\n")
    assert L.MAX_CELL_ID_BYTES == 226


def test_the_longest_shipped_cell_id_is_far_from_the_limit():
    from straggler.study.grid import build_grid

    studies = [ROOT / "config" / "config.yaml", *sorted((ROOT / "config" / "studies").glob("*.yaml"))]
    longest = max(len(cid.encode()) for f in studies for cid in build_grid(resolve_config(load_config(f))).cells)
    # the hedging study's ids (123 bytes) name two of Hedge's parameters and the delay axis,
    # with the names operators know (max_extra_load is Finagle's): 100 bytes are left for a
    # user's own axes, as half the limit left 113 before
    assert longest <= L.MAX_CELL_ID_BYTES - 100


def test_load_config_reads_no_more_than_its_limit():
    with pytest.raises(ConfigError, match="more than 262144 bytes is not allowed"):
        load_config("/dev/zero")


def test_a_bad_byte_in_a_comment_names_its_line(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_bytes(BASE_TEXT.encode() + b"# caf\xe9\n")
    line = check_config_refusal(path, "", capsys)
    assert "the byte 0xe9 at line" in line and "expected UTF-8 text" in line


def test_every_scale_is_checked_whichever_is_chosen(tmp_path, capsys):
    raw = dict(copy.deepcopy(BASE), scales={"paper": {"simulation": {"jobz": 1}}})
    for scale in ("quick", "paper"):
        with pytest.raises(ConfigError) as info:
            resolve_config(dict(raw, scale=scale))
        assert [e for e in info.value.errors if e.startswith("scales.paper.simulation.jobz: key 'jobz'")]
    # an error that only the other scale has says which
    raw = dict(copy.deepcopy(BASE), scales={"paper": {"simulation": {"jobs": 10}}}, simulation={"warmup": 100})
    with pytest.raises(ConfigError) as info:
        resolve_config(raw)
    assert info.value.errors == [
        "simulation.warmup: value 100 is not allowed; expected an integer in [0, simulation.jobs = 10] (the jobs "
        "discarded before the 10 measured ones of each replication; a warm-up longer than the measured run is "
        "meaningless) (at scale paper)"
    ]


def test_a_json_study_file_still_loads(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(
        '{"grid": {"policy": ["ZRed"], "distribution": ["exp"]}, "load": [1e-1],'
        ' "distributions": {"exp": {"family": "exponential", "mean": 1}}}'
    )
    assert resolve_config(load_config(path)).load == (0.1,)


# --------------------------------------------------------------------------- the Snakefile


def snakemake_dry_run(workdir: Path, configfile: Path):
    return snakemake(workdir, configfile, "-n", timeout=120)


SNAKEMAKE_CASES = [
    "laughs-under-unknown-key",
    "duplicate-top-level-key",
    "nested-100-deep",
    "grid-of-10^7-points",
    "unknown-key-under-scales-paper",
    "study-name-with-a-newline",
    "exponential-mean-1e-320",
]


@pytest.mark.workflow
@pytest.mark.parametrize("name", SNAKEMAKE_CASES)
def test_snakemake_refuses_in_one_line(tmp_path, name):
    content, key = next((c, k) for n, c, k in CASES if n == name)
    path = _write(tmp_path, name, content)
    run = snakemake_dry_run(tmp_path, path)
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "Traceback" not in out and "invalid configuration:" in out, out[-3000:]
    assert [line for line in out.splitlines() if _names_key(line, key) and "not allowed" in line], out[-3000:]
    assert not (tmp_path / "results").exists()


@pytest.mark.workflow
def test_snakemake_reads_the_study_file_as_check_config_does(tmp_path):
    """1e-1 is a float for the package's loader (a string for Snakemake's), and the
    values given with --config are merged over the file."""
    path = tmp_path / "s.yaml"
    path.write_text(BASE_TEXT.replace("- 0.3", "- 3e-1"))
    run = snakemake(tmp_path, path, "-n", "--config", "study=other", "--quiet", "rules", timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    resolved = yaml.safe_load(next((tmp_path / ".snakemake" / "straggler").glob("resolved-*.yaml")).read_text())
    assert resolved["load"] == [0.3] and resolved["study"] == "other"


def test_a_study_without_its_grid_is_refused_with_every_problem_named():
    """A study file of a name and one section (a grid forgotten) is a list of problems,
    not a KeyError from the checks that try each axis value."""

    with pytest.raises(ConfigError) as err:
        resolve_config({"study": "bad", "decision": {"resolution": -0.1}})
    text = str(err.value)
    assert "grid: missing" in text and "load: missing" in text
    assert "decision.resolution: value -0.1 is not allowed; expected a number in (0, 0.5]" in text
