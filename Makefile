# Paretoscope: `make run` serves the dashboard, `make test` checks everything. Both bootstrap .venv.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test test-fast lint fmt bench seed clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install whenever pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(VENV)/.installed $@

## run: create .venv, install, migrate, seed an empty database, serve on http://127.0.0.1:8000
run: $(VENV)/.installed
	$(BIN)/paretoscope serve

# pytest-xdist workers for the parallel pass (one per core on a 2-core machine); tests marked
# `serial` (memory peaks, load, many servers) run after it, alone. PYTEST_ARGS narrows both.
PYTEST_WORKERS ?= 2
PYTEST_PARALLEL = $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup
# pytest exits 5 when a selection leaves nothing to run, e.g. a PYTEST_ARGS with no serial test.
NONE_IS_FINE = || [ $$? -eq 5 ]

## test: ruff (lint + format check), mypy, import-linter (layers), then pytest: in parallel, then serial
test: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(PYTEST_PARALLEL) -m "not serial" $(PYTEST_ARGS) $(NONE_IS_FINE)
	$(BIN)/pytest -m serial $(PYTEST_ARGS) $(NONE_IS_FINE)

## test-fast: the inner loop: pytest in parallel on SQLite, without the browser and serial tests
test-fast: $(VENV)/.installed-test
	env -u PARETOSCOPE_TEST_DATABASE_URL $(PYTEST_PARALLEL) -q -m "not browser and not serial" \
		$(PYTEST_ARGS)

## fmt: apply ruff's fixes and formatting
fmt: $(VENV)/.installed-test
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $(VENV)/.installed $(VENV)/.installed-test $@

## bench: speed and size targets, each beside a baseline measured in the same run
bench: $(VENV)/.installed-bench
	$(BIN)/python -m bench

## seed: load seed_data/ into the configured database (idempotent)
seed: $(VENV)/.installed
	$(BIN)/paretoscope seed

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
