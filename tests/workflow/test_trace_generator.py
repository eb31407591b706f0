"""The shipped data files are what their scripts write: config/data/make_requests_ms.py,
config/data/make_pairs_ms.py and config/data/make_sx_pairs_ms.py, run with the interpreter
of the tests, write config/data/requests_ms.csv, config/data/pairs_ms.csv and
config/data/sx_pairs_ms.csv byte for byte, and need nothing but the standard library and
numpy."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "config" / "data"
#: each script and the file it writes
SCRIPTS = {
    "make_requests_ms.py": "requests_ms.csv",
    "make_pairs_ms.py": "pairs_ms.csv",
    "make_sx_pairs_ms.py": "sx_pairs_ms.csv",
}


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_the_script_writes_the_committed_file_byte_for_byte(tmp_path, script):
    name = SCRIPTS[script]
    out = tmp_path / name
    subprocess.run([sys.executable, str(DATA / script), str(out)], check=True, cwd=tmp_path, timeout=60)
    written, committed = out.read_bytes(), (DATA / name).read_bytes()
    assert b"\r" not in written and written.endswith(b"\n")
    assert written == committed, (
        f"config/data/{name} is not what config/data/{script} writes: "
        f"run `python config/data/{script} config/data/{name}` and update "
        "the figures that come from it (config/studies/measured.yaml, docs/guide)"
    )


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_the_script_needs_only_the_standard_library_and_numpy(script):
    tree = ast.parse((DATA / script).read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert imported - set(sys.stdlib_module_names) == {"numpy"}
