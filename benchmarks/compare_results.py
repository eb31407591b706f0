"""Are two result sets the same, cell for cell and bit for bit?

    .venv/bin/python benchmarks/compare_results.py RESULTS_A RESULTS_B [STUDY ...]
    .venv/bin/python benchmarks/compare_results.py --digest RESULTS [STUDY ...]

For every study present in both ``results`` folders (or the ones named), compares
each cell file of A with the file of the same cell id in B (cell files are
``cells/<cell id>@<hash>.nc``; the hash names the code, which may differ) variable by
variable, NaN equal to NaN, strings as strings, and the cells' notes; then the study
datasets without their provenance attributes (creation time, code hash, commit).
Prints one line per study and exits 1 if anything differs. Used to show that a
refactoring moves no number.

``--digest`` prints, per study, a SHA-256 of its dataset's content without the
provenance attributes (every coordinate and variable: name, dimensions, dtype, bytes and
attributes; the other global attributes): two result sets with the same digests hold the
same dataset bit for bit, whatever code or machine wrote them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import xarray as xr

from straggler.outputs.archive import MACHINE_ATTRS, same_values

PROVENANCE = MACHINE_ATTRS


def _cells(folder: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(folder.glob("*.nc")):
        out[path.stem.rpartition("@")[0] or path.stem] = path
    return out


def _differences(a: xr.Dataset, b: xr.Dataset) -> list[str]:
    names = sorted(set(a.data_vars) | set(b.data_vars))
    out = [n for n in names if n not in a or n not in b or not same_values(a[n], b[n])]
    return out


def compare(study_a: Path, study_b: Path) -> list[str]:
    problems = []
    cells_a, cells_b = _cells(study_a / "cells"), _cells(study_b / "cells")
    if set(cells_a) != set(cells_b):
        problems.append(f"cells only in one: {sorted(set(cells_a) ^ set(cells_b))[:3]}")
    for cell in sorted(set(cells_a) & set(cells_b)):
        with xr.open_dataset(cells_a[cell]) as a, xr.open_dataset(cells_b[cell]) as b:
            diff = _differences(a.load(), b.load())
            if json.loads(a.attrs.get("notes", "[]")) != json.loads(b.attrs.get("notes", "[]")):
                diff.append("notes")
        if diff:
            problems.append(f"{cell}: {', '.join(diff)}")
    name = study_a.name
    with xr.open_dataset(study_a / f"{name}.nc") as a, xr.open_dataset(study_b / f"{name}.nc") as b:
        diff = _differences(a.load(), b.load())
        attrs = sorted(
            k for k in set(a.attrs) | set(b.attrs) if k not in PROVENANCE and str(a.attrs.get(k)) != str(b.attrs.get(k))
        )
    if diff or attrs:
        problems.append(f"dataset: variables {diff}, attributes {attrs}")
    return problems


def content_digest(ds: xr.Dataset) -> str:
    """SHA-256 of the dataset's numbers and labels, its provenance attributes left out."""
    digest = hashlib.sha256()
    for name in sorted(map(str, ds.variables)):
        var = ds.variables[name]
        values = var.values
        data = values.tobytes() if values.dtype.kind != "O" else "\x1f".join(map(str, values.ravel())).encode()
        head = [name, var.dims, str(values.dtype), values.shape, sorted((k, str(v)) for k, v in var.attrs.items())]
        digest.update(repr(head).encode())
        digest.update(data)
    digest.update(repr(sorted((k, str(v)) for k, v in ds.attrs.items() if k not in PROVENANCE)).encode())
    return digest.hexdigest()


def digests(root: Path, studies: list[str]) -> int:
    for study in studies or sorted(p.name for p in root.iterdir() if (p / f"{p.name}.nc").exists()):
        with xr.open_dataset(root / study / f"{study}.nc") as ds:
            print(f"{study}: {content_digest(ds.load())[:16]}")
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--digest"] and len(argv) >= 2:
        return digests(Path(argv[1]), argv[2:])
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    a, b, *studies = argv
    root_a, root_b = Path(a), Path(b)
    studies = studies or sorted(p.name for p in root_a.iterdir() if (root_b / p.name / f"{p.name}.nc").exists())
    failed = False
    for study in studies:
        problems = compare(root_a / study, root_b / study)
        cells = len(_cells(root_a / study / "cells"))
        print(f"{study}: {cells} cells, " + ("identical" if not problems else f"{len(problems)} differences"))
        for line in problems[:10]:
            print(f"  {line}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
