"""The pages a reader follows step by step (getting started, the tutorial), run as a
reader runs them: in a fresh copy of the repository, with this environment as its
``.venv``, each command of the page in order."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


OUTPUT = "output"
"""The title of a ```` ```text ```` block that shows what the ``sh`` block before it
prints: the test compares the two (:func:`missing_lines`)."""


def shell_blocks(page: Path) -> list[tuple[str, str]]:
    """The page's code blocks that a reader runs or writes, in order: ``("sh", commands)``
    for a ```` ```sh ```` block, ``("file NAME", text)`` for a block titled with a file name
    (```` ```yaml title="NAME" ````), ``("output", text)`` for a ```` ```text
    title="output" ```` block (what the ``sh`` block before it prints). Other ```` ```text
    ```` blocks are not checked."""
    blocks = []
    for lang, attrs, body in re.findall(r"^```(\w+)([^\n]*)\n(.*?)^```$", page.read_text(), re.MULTILINE | re.DOTALL):
        title = re.search(r'title="([^"]+)"', attrs)
        if title and title.group(1) == OUTPUT and lang == "text":
            blocks.append((OUTPUT, body))
        elif lang == "text" and body.startswith("$ "):
            blocks.append((TRANSCRIPT, body))
        elif title:
            blocks.append((f"file {title.group(1)}", body))
        elif lang == "sh":
            blocks.append(("sh", body))
    return blocks


TRANSCRIPT = "transcript"
"""A ```` ```text ```` block whose first line is ``$ command``: the command and, below it,
what it prints (stdout and stderr), compared by :func:`run_transcripts`."""


def missing_lines(shown: str, printed: str) -> list[str]:
    """The lines of an output block that the command did not print, in order: each shown
    line must be a printed line (trailing spaces aside), after the one before it; a line
    ``...`` stands for lines left out."""
    got = [line.rstrip() for line in printed.splitlines()]
    at = 0
    missing = []
    for line in (s.rstrip() for s in shown.splitlines()):
        if line.strip() == "...":
            continue
        try:
            at = got.index(line, at) + 1
        except ValueError:
            missing.append(line)
    return missing


#: commands of the pages that a test cannot run: the test suite itself
NOT_RUN = ("make test",)


#: what make setup's stamp depends on (Makefile)
STAMPED = ("pyproject.toml", "constraints.txt")


def fresh_copy(tmp_path: Path) -> Path:
    """The repository's files without results, in ``tmp_path/repo``, with this
    environment as its ``.venv`` (so ``make`` finds it installed)."""
    repo = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    venv = Path(sys.prefix)
    stamp = venv / ".installed"
    if not stamp.exists() or any(stamp.stat().st_mtime < (ROOT / f).stat().st_mtime for f in STAMPED):
        # make would reinstall the package, editable, from the copy: not into this environment
        pytest.skip(f"{venv} is older than {' or '.join(STAMPED)}: run make setup first")
    (repo / ".venv").symlink_to(venv)
    return repo


def run_page(page: Path, repo: Path) -> list[str]:
    """Run the page's blocks in ``repo``, in order, each ``sh`` block as one bash script
    that stops at its first failing command; return the commands run."""
    ran = []
    printed = None
    for kind, body in shell_blocks(page):
        if kind == OUTPUT:
            assert printed is not None, f"{page.name}: an output block with no command before it:\n{body}"
            missing = missing_lines(body, printed)
            assert not missing, (
                f"{page.name}: the page shows lines the command does not print:\n"
                + "\n".join(missing)
                + f"\n\nit printed:\n{printed[-3000:]}"
            )
            continue
        if kind.startswith("file "):
            (repo / kind[5:]).write_text(body)
            printed = None
            continue
        lines = [line for line in body.splitlines() if not line.strip().startswith(NOT_RUN)]
        script = "set -euo pipefail\n" + "\n".join(lines)
        done = subprocess.run(["bash", "-c", script], cwd=repo, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, (
            f"{page.name}: the block\n{body}failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
        ran += [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
        printed = done.stdout
    return ran


#: transcripts other tests run (tests/workflow/test_recommend.py, tests/decide/test_question.py)
TESTED_ELSEWHERE = ("straggler recommend",)


def run_transcripts(page: Path, repo: Path) -> list[str]:
    """Run the page's transcripts (``$ command`` blocks) in ``repo``, in order, after
    writing the files the page shows before each; every shown line must be printed
    (:func:`missing_lines`); return the commands run. A bare ``straggler`` is the
    project's, ``.venv/bin/straggler``."""
    ran = []
    for kind, body in shell_blocks(page):
        if kind.startswith("file "):
            (repo / kind[5:]).write_text(body)
            continue
        if kind != TRANSCRIPT:
            continue
        command, _, shown = body[2:].partition("\n")
        if command.startswith(TESTED_ELSEWHERE):
            continue
        if command.startswith("straggler "):
            command = ".venv/bin/" + command
        done = subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, text=True, timeout=1800)
        missing = missing_lines(shown, done.stdout + done.stderr)
        assert not missing, (
            f"{page.name}: `{command}` does not print:\n"
            + "\n".join(missing)
            + f"\n\nit printed:\n{done.stdout}{done.stderr}"
        )
        ran.append(command)
    return ran
