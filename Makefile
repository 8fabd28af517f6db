# The two commands of the README. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 0.0.0.0
PORT ?= 5000

.PHONY: run test lint format clean translations language

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

run: $(VENV)/.runtime
	$(BIN)/python app.py --host $(HOST) --port $(PORT)

test: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -n 8 --dist worksteal $(PYTEST_ARGS)

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis

# Refresh the message catalogues after changing texts; then fill in the new
# strings in translations/*/LC_MESSAGES/messages.po and run it again.
translations: $(VENV)/.dev
	$(BIN)/pybabel extract --no-wrap -F babel.cfg -k _l -k N_ -o translations/messages.pot .
	$(BIN)/pybabel update --no-wrap -i translations/messages.pot -d translations
	$(BIN)/pybabel compile -d translations

# A new language's catalogue: make language CODE=fr (then README.md, "Adding a language").
language: $(VENV)/.dev
	@test -n "$(CODE)" || { echo "usage: make language CODE=xx"; exit 2; }
	$(BIN)/pybabel extract --no-wrap -F babel.cfg -k _l -k N_ -o translations/messages.pot .
	$(BIN)/pybabel init --no-wrap -i translations/messages.pot -d translations -l $(CODE)
