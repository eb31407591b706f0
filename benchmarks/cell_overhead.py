"""Per-cell job overhead: what one `evaluate` job pays before and during its work.

    .venv/bin/python benchmarks/cell_overhead.py [CONFIG] [--repeat 5]

Prints, as medians over fresh processes: the bare interpreter start (the
baseline, measured in the same run), the import of what the evaluate script
imports, and a whole cell (imports, analysis at every load, netCDF write) done
by `straggler.run.pipeline.evaluate` — the "import to first result" time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _time(code: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default=str(ROOT / "config" / "config.yaml"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    from straggler.study.config import load_config, resolve_config
    from straggler.study.grid import build_grid, cell_spec

    resolved = resolve_config(load_config(args.config))
    grid = build_grid(resolved)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cid in list(grid.cells)[:: max(1, len(grid.cells) // 4)][:4]:
            spec = Path(tmp) / "spec.json"
            spec.write_text(json.dumps(cell_spec(resolved, grid.cells[cid])))
            out = Path(tmp) / "cell.nc"
            code = (
                "from straggler.run.pipeline import evaluate; from pathlib import Path; "
                f"evaluate(Path({str(spec)!r}).read_text(), {cid!r}, {str(out)!r})"
            )
            rows.append((cid, _time(code, args.repeat)))
        baseline = _time("pass", args.repeat)
        imports = _time(
            "import straggler.run.pipeline, straggler.study.evaluate, straggler.study.dataset, straggler.engines.analysis.cell, xarray",
            args.repeat,
        )
    print(f"{'what':<72} {'seconds':>8}")
    print(f"{'python -c pass (baseline)':<72} {baseline:8.3f}")
    print(f"{'imports of an evaluate job':<72} {imports:8.3f}")
    for cid, seconds in rows:
        print(f"{'cell ' + cid[:66]:<72} {seconds:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
