# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/concerto

.PHONY: demo test install install-dev browser graphviz lint bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installs run again only when a requirements file changes (a stamp file in the venv says when they last ran).
$(VENV)/.installed-base: requirements/base.txt requirements/nlu.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements/base.txt
	$(BIN)/pip install --quiet --no-deps -r requirements/nlu.txt
	@touch $@

$(VENV)/.installed-dev: requirements/dev.txt $(VENV)/.installed-base
	$(BIN)/pip install --quiet -r requirements/dev.txt
	@touch $@

install: $(VENV)/.installed-base

install-dev: $(VENV)/.installed-dev

# Sets up the embedded default (SQLite, filesystem broker), loads the banking demo and starts
# the web server with a Celery worker at http://127.0.0.1:8000, and a demo customer site with
# the chat widget at http://127.0.0.1:8001. DEBUG is off by default in the settings (a deployment
# that forgets it shows no tracebacks); the local demo turns it on.
# Other ports: make demo PORT=8080 WIDGET_DEMO_PORT=8081 (the demo assistants then allow those pages).
PORT ?= 8000
WIDGET_DEMO_PORT ?= 8001

demo: install graphviz
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo --cold-start --ports $(PORT),$(WIDGET_DEMO_PORT)
	DEBUG=$${DEBUG:-true} $(BIN)/python manage.py run_studio 127.0.0.1:$(PORT) --widget-demo-port $(WIDGET_DEMO_PORT)

# Headless Chromium comes from Debian's package, never from a test tool's download. Where apt cannot
# install it (not root, not Debian), the browser tests skip and say why; CI requires them
# (CONCERTO_REQUIRE_BROWSER=1 in .ci/run).
browser:
	@command -v chromium >/dev/null || { command -v apt-get >/dev/null && apt-get update -qq && \
	  apt-get install -y -qq chromium >/dev/null; } || echo "chromium not installed: the browser tests will be skipped"

# The catalog graph is drawn by Graphviz's `dot`, from Debian's package where apt is at hand;
# elsewhere install graphviz yourself (the studio runs without it, the graph page says so).
graphviz:
	@command -v dot >/dev/null || { command -v apt-get >/dev/null && apt-get update -qq && \
	  apt-get install -y -qq graphviz >/dev/null; } || echo "graphviz not installed: the catalog graph is off"

test: install-dev browser graphviz
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(BIN)/python -m pytest

lint: install-dev
	$(BIN)/ruff check .

bench: install
	$(BIN)/python -m bench
