# Paretoscope: `make run` serves the dashboard, `make test` checks everything. Both bootstrap .venv
# from the hashed lock files (requirements*.lock; `make lock` recompiles them from pyproject.toml).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Locked packages first (every one pinned and hashed), then this project alone, built by the
# locked setuptools.
INSTALL = $(BIN)/pip install --quiet --require-hashes -r $(1) \
	&& $(BIN)/pip install --quiet --no-deps --no-build-isolation -e .

.PHONY: run test test-lock lock lint fmt bench seed clean

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

## test: the lock matches pyproject.toml, ruff (lint + format check), mypy, import-linter
## (layers), then pytest
test: test-lock $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/vulture
	$(BIN)/pytest $(PYTEST_ARGS)

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
