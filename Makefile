# The two commands a newcomer needs: `make run` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?= -n 2

.PHONY: install run test lint format bench bench-live clean messages

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The site (Daphne through runserver) and its worker; Ctrl-C stops both.
run: install
	$(PY) manage.py migrate --noinput
	DJANGO_DEBUG=$${DJANGO_DEBUG:-1} $(PY) manage.py worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	DJANGO_DEBUG=$${DJANGO_DEBUG:-1} $(PY) manage.py runserver $(HOST):$(PORT)

test: install
	$(PY) -m pytest --durations=25 $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) bench/run_all.py

# The live benchmark (issue 10): one daphne process, 300 tables, against the floor; see bench/live.py.
bench-live: install
	$(PY) bench/live.py $(BENCH_LIVE_ARGS)

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .hypothesis

# Refresh the catalogs from the code (no source locations, so that branches merge) and compile them.
messages: install
	$(PY) manage.py makemessages -l fr -l de -l it --no-location --no-obsolete \
		--ignore='.venv/*' --ignore='tests/*' --ignore='bench/*' --ignore='var/*'
	$(PY) manage.py compilemessages --ignore='.venv/*'
