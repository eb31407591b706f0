"""Snakemake run on the project's Snakefile in a working directory of a test's own."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def snakemake(workdir: Path, configfile: Path, *extra, env=None, timeout=600):
    """``snakemake --snakefile <project> --directory workdir --configfile configfile
    *extra``, its output captured."""
    return subprocess.run(
        [
            SNAKEMAKE,
            "--snakefile",
            str(ROOT / "workflow" / "Snakefile"),
            "--directory",
            str(workdir),
            "--configfile",
            str(configfile),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
