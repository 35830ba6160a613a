# Paretoscope: `make run` serves the dashboard, `make test` checks everything. Both bootstrap .venv
# from the hashed lock files (requirements*.lock; `make lock` recompiles them from pyproject.toml).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Locked packages first (every one pinned and hashed), then this project alone, built by the
# locked setuptools.
INSTALL = $(BIN)/pip install --quiet --require-hashes -r $(1) \
	&& $(BIN)/pip install --quiet --no-deps --no-build-isolation -e .

.PHONY: run test static-checks serial-tests test-fast test-lock lock lint fmt bench seed clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install whenever a lock file changes.
$(VENV)/.installed: requirements.lock | $(BIN)/python
	$(call INSTALL,requirements.lock)
	touch $@

# The tests run on SQLite and Postgres: the test lock includes the postgres extra.
$(VENV)/.installed-test: requirements-test.lock | $(BIN)/python
	$(call INSTALL,requirements-test.lock)
	touch $(VENV)/.installed $@

## run: create .venv, install, migrate, seed an empty database, serve on http://127.0.0.1:8000
run: $(VENV)/.installed
	$(BIN)/paretoscope serve

# pytest-xdist workers for the parallel pass (one per core on a 2-core machine); tests marked
# `serial` (load, timeouts, many servers) run before it, beside no other test (the static checks
# take the other core). PYTEST_ARGS narrows both.
PYTEST_WORKERS ?= 2
PYTEST_PARALLEL = $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=15
# pytest exits 5 when a selection leaves nothing to run, e.g. a PYTEST_ARGS with no serial test.
NONE_IS_FINE = || [ $$? -eq 5 ]
# The suite starts many Python processes (two workers, the serial pass, every server and CLI a
# test starts): each would compile the app's ~300 modules again (+2.6 s CPU) and pytest would
# rewrite every test module's asserts again (+5.5 s) when PYTHONDONTWRITEBYTECODE keeps them
# from being cached, as some environments set it. The tests write the caches (into the
# git-ignored __pycache__ folders); the app's are compiled once before the workers start.
unexport PYTHONDONTWRITEBYTECODE
COMPILE = $(BIN)/python -m compileall -q -j 0 app bench tools tests >/dev/null
# The serial pass collects only the modules that mark a test `serial` (collecting all ~180
# again cost ~7 s); a PYTEST_ARGS narrows it instead, as it narrows the parallel pass.
SERIAL_MODULES = $(shell grep -rl --include='*.py' 'pytest\.mark\.serial' tests)

## test: the lock matches pyproject.toml, ruff (lint + format check, complexity), mypy,
## import-linter (layers), vulture, radon's ranks and function lengths (tools/complexity.py),
## and the serial tests alone, side by side; then the rest of pytest in parallel
# The checks and the serial tests each keep one core busy (~15 s and ~35 s): side by side on
# two cores they cost the time of the longer. Their output is printed one whole target at a
# time (-O). The parallel pass comes last and takes both cores.
test: test-lock $(VENV)/.installed-test
	$(COMPILE)
	$(MAKE) --no-print-directory -j2 -O static-checks serial-tests
	$(PYTEST_PARALLEL) -m "not serial" $(PYTEST_ARGS) $(NONE_IS_FINE)

## static-checks: ruff, mypy, import-linter, vulture, tools/complexity.py and the answer
## TypedDicts (tools/answer_types.py --check), without pytest
static-checks: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/vulture
	$(BIN)/python tools/complexity.py
	$(BIN)/python tools/answer_types.py --check

# Tests marked `serial` (load, timeouts, many servers): never beside other tests.
serial-tests: $(VENV)/.installed-test
	$(BIN)/pytest -m serial $(or $(PYTEST_ARGS),$(SERIAL_MODULES)) $(NONE_IS_FINE)

## test-fast: the inner loop: pytest in parallel on SQLite, without the browser, serial and slow
## tests (CI always runs everything)
test-fast: $(VENV)/.installed-test
	$(COMPILE)
	env -u PARETOSCOPE_TEST_DATABASE_URL $(PYTEST_PARALLEL) -q \
		-m "not browser and not serial and not slow" $(PYTEST_ARGS)

## test-lock: fail when a lock file was compiled from other requirements than pyproject.toml's
test-lock: | $(BIN)/python
	$(BIN)/python tools/lock.py check

## lock: recompile requirements*.lock from pyproject.toml (newest versions its bounds allow)
lock: $(VENV)/.installed-test
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python tools/lock.py compile

## fmt: apply ruff's fixes and formatting
fmt: $(VENV)/.installed-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## bench: speed and size targets, each beside a baseline measured in the same run
bench: $(VENV)/.installed-test
	$(BIN)/python -m bench

## seed: load seed_data/ into the configured database (idempotent)
seed: $(VENV)/.installed
	$(BIN)/paretoscope seed

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
