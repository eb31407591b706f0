import os

import pytest

# CI runs the slow statistical tests at a reduced size (STRAGGLER_CI=1).
CI = bool(os.environ.get("STRAGGLER_CI"))


@pytest.fixture
def ci_scale():
    """Multiply sample sizes of slow tests by this (smaller in CI, same tolerance logic)."""
    return 0.25 if CI else 1.0
