# Two commands on a fresh machine with only python3:
#   make run    set up .venv and run the default study (results/default/)
#   make test   set up .venv and run the tests
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CORES  ?= all
PYTEST_ARGS ?=
# pytest-xdist: one worker per core; a test file stays on one worker (its module fixtures, the
# cluster tests' one SLURM at a time)
WORKERS ?= auto
XDIST  := -n $(WORKERS) --dist loadfile

.PHONY: setup run test test-slow test-papers test-all lint docs serve-docs clean help

help:
	@echo "make setup | run | test | test-slow | test-papers | test-all | lint | docs | serve-docs | clean"

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "python >= 3.11 is required, found " + sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[test,bench,cluster,lint,docs]"
	@touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/snakemake --cores $(CORES)

# the fast loop (at most 10 minutes on two cores): every test but the slow, workflow,
# cluster and papers markers (pyproject's addopts)
test: setup
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# the slow statistical tests, the Snakemake runs and the cluster profiles (CI runs them
# at a reduced size, STRAGGLER_CI=1)
test-slow: setup
	$(BIN)/python -m pytest $(XDIST) -m "(slow or workflow or cluster) and not papers" $(PYTEST_ARGS)

# every paper study at quick scale, its claims checked
test-papers: setup
	$(BIN)/python -m pytest $(XDIST) -m papers $(PYTEST_ARGS)

# everything: the three above
test-all: setup
	$(BIN)/python -m pytest $(XDIST) -m "" $(PYTEST_ARGS)

# snakemake --lint exits 1 for its one accepted finding (no conda env per rule: the
# workflow runs in the project's environment); any other finding fails, as in CI
lint: setup
	@out=$$($(BIN)/snakemake --lint 2>&1); \
	if echo "$$out" | grep '^    \* ' | grep -qv 'Specify a conda environment or container for each rule'; then \
		echo "$$out"; exit 1; fi; \
	echo "snakemake --lint: no finding beyond the per-rule software environment"
	$(BIN)/snakefmt --check workflow/
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# the documentation site: built into site/ with every warning an error, or served with live reload
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

serve-docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

clean:
	rm -rf results .snakemake site
