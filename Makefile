# Two commands set everything up on a fresh Debian machine with python3, make and git:
#   make run    the controller on the simulated board, with the panel on http://127.0.0.1:$(PORT)
#   make test   the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8080
DB ?= var/hautetension.db

.PHONY: run test lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Reinstall only when the project metadata changes.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/hautetension run --port $(PORT) --db $(DB)

test: $(VENV)/.installed-dev
	$(BIN)/python tools/ensure_packages.py
	$(BIN)/python tools/ensure_micropython.py
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info
