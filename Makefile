# Two commands set everything up on a fresh Debian machine with python3, make and git:
#   make run    the controller on the simulated board, with the panel on http://127.0.0.1:$(PORT)
#   make test   the whole test suite
#   make catalogs   after marking strings for translation (docs/webpanel.md, "Languages")
# and a third for events:
#   make event  a demo event: Mosquitto (on $(BROKER_PORT), else a free port), the event server on
#               http://127.0.0.1:$(EVENT_PORT)/event, three virtual boards on the next ports and a
#               tournament of twelve players ready for round 1
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8080
DB ?= var/hautetension.db
EVENT_PORT ?= 8090
# Mosquitto's port for make event; empty: a free one the system gives.
BROKER_PORT ?=

.PHONY: run test event lint clean translations catalogs

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

# The compiled catalogues (.mo) are built from the .po files, never committed.
CATALOGUES := $(wildcard webpanel/translations/*/LC_MESSAGES/messages.po)

translations: $(CATALOGUES:.po=.mo)

%.mo: %.po | $(VENV)/.installed-run
	$(BIN)/python tools/catalogs.py compile

# After marking strings: add them to the French and English catalogues (docs/webpanel.md, "Languages").
catalogs: $(VENV)/.installed-run
	$(BIN)/python tools/catalogs.py update

run: $(VENV)/.installed-run translations
	$(BIN)/hautetension run --port $(PORT) --db $(DB)

event: $(VENV)/.installed-run translations
	$(BIN)/python tools/ensure_packages.py mosquitto
	$(BIN)/hautetension event demo --port $(EVENT_PORT)$(if $(BROKER_PORT), --broker-port $(BROKER_PORT))

test: $(VENV)/.installed-dev translations
	$(BIN)/python tools/ensure_packages.py
	$(BIN)/python tools/ensure_micropython.py
	# Two workers (pytest-xdist), each module on one of them: a module's tests share its servers in order.
	$(BIN)/python -m pytest -n 2 --dist loadfile

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info
