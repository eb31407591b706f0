"""The shipped trace is what its script writes: config/data/make_requests_ms.py, run with the
interpreter of the tests, writes config/data/requests_ms.csv byte for byte, and needs
nothing but the standard library and numpy."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "config" / "data" / "make_requests_ms.py"
TRACE = ROOT / "config" / "data" / "requests_ms.csv"


def test_the_script_writes_the_committed_trace_byte_for_byte(tmp_path):
    out = tmp_path / "requests_ms.csv"
    subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True, cwd=tmp_path, timeout=60)
    written, committed = out.read_bytes(), TRACE.read_bytes()
    assert b"\r" not in written and written.endswith(b"\n")
    assert written == committed, (
        "config/data/requests_ms.csv is not what config/data/make_requests_ms.py writes: "
        "run `python config/data/make_requests_ms.py config/data/requests_ms.csv` and update "
        "the figures that come from the trace (config/studies/measured.yaml, docs/guide)"
    )


def test_the_script_needs_only_the_standard_library_and_numpy():
    tree = ast.parse(SCRIPT.read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported - set(sys.stdlib_module_names) == {"numpy"}
