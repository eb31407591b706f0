import os

import pytest
from doc_pages import DOCS, fresh_copy, run_page

# CI runs the slow statistical tests at a reduced size (STRAGGLER_CI=1).
CI = bool(os.environ.get("STRAGGLER_CI"))


@pytest.fixture
def ci_scale():
    """Multiply sample sizes of slow tests by this (smaller in CI, same tolerance logic)."""
    return 0.25 if CI else 1.0


@pytest.fixture(scope="session")
def getting_started(tmp_path_factory):
    """A fresh copy of the repository in which the getting-started page has run, every
    command in order (``make run``: the default study), once per session; ``(repo,
    commands run)``. The tutorial and the ``--help`` examples that need a finished study
    run in it after."""
    repo = fresh_copy(tmp_path_factory.mktemp("fresh"))
    assert not (repo / "results").exists()
    return repo, run_page(DOCS / "getting-started.md", repo)
