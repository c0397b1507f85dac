# Set-up is automatic: every target creates or reuses .venv and installs what it needs
# (torch 2.13.0 CPU first, so that pip never resolves a multi-GB CUDA build).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-all check docs typecheck wheel-check bench lint clean chromium test-clients test-rllib

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[train,test,bench,openspiel,web,docs]'
	touch $(STAMP)

demo: $(STAMP)  ## the main job: train a small agent and evaluate it against the baselines
	$(PY) -m kortmiljo.train.demo

# the browser tests drive the system's Chromium (Debian's package works offline with Playwright)
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		echo "installing chromium with apt-get (for the browser tests)"; \
		$$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

test: $(STAMP) chromium  ## the default test suite (slow checks excluded), browser tests included
	KORTMILJO_REQUIRE_BROWSER=1 $(PY) -m pytest -q -n 2

test-all: $(STAMP) chromium  ## everything, slow checks included
	KORTMILJO_REQUIRE_BROWSER=1 $(PY) -m pytest -q -n 2 -m ''

check: docs typecheck wheel-check  ## what CI checks beside the tests: the API reference, the types, the wheel

docs: $(STAMP)  ## the API reference from the docstrings (pdoc) into site/api; a warning or broken reference fails
	$(PY) docs/build_api.py --out site/api

typecheck: $(STAMP)  ## mypy on the core, the envs and the public API ([tool.mypy] in pyproject.toml)
	$(VENV)/bin/mypy

wheel-check: $(STAMP)  ## build the sdist and wheel, install the wheel in a fresh venv, run it from an empty folder
	PY=$(PY) .ci/wheel_check

# the client libraries of docs/clients.md live in their own venvs, so that they cannot change the main
# venv's torch, gymnasium or numpy (Ray pins gymnasium 1.2.2); a missing library fails these targets
CLIENTS_VENV ?= .venv-clients
CLIENTS_PY := $(CLIENTS_VENV)/bin/python
RLLIB_VENV ?= .venv-rllib
RLLIB_PY := $(RLLIB_VENV)/bin/python

$(CLIENTS_VENV)/.installed: pyproject.toml
	python3 -m venv $(CLIENTS_VENV)
	$(CLIENTS_PY) -m pip install -q --upgrade pip
	$(CLIENTS_PY) -m pip install -q torch==2.13.0
	$(CLIENTS_PY) -m pip install -q -e '.[test,clients,openspiel]'
	touch $@

$(RLLIB_VENV)/.installed: pyproject.toml
	python3 -m venv $(RLLIB_VENV)
	$(RLLIB_PY) -m pip install -q --upgrade pip
	$(RLLIB_PY) -m pip install -q torch==2.13.0
	$(RLLIB_PY) -m pip install -q -e '.[train,test,rllib]'
	touch $@

test-clients: $(CLIENTS_VENV)/.installed  ## Tianshou, TorchRL, SuperSuit and Shimmy examples (docs/clients/); CI runs it
	KORTMILJO_REQUIRE_CLIENTS=1 $(CLIENTS_PY) -m pytest -q -n 2 -m clients tests/clients

test-rllib: $(RLLIB_VENV)/.installed  ## RLlib's PettingZooEnv example, the RLlib backend and docs/rllib.md's example (heavy: not in CI)
	$(RLLIB_PY) -m pytest -q -m rllib tests/clients tests/integrations/test_rllib.py
	$(RLLIB_PY) -m pytest -q "tests/integrations/test_doc_examples.py::test_page_examples_run[rllib.md]"

bench: $(STAMP)  ## throughput (with the PGX anchor) and strength tables
	$(PY) -m pip install -q -e '.[pgx]'
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/strength.py

lint: $(STAMP)
	$(VENV)/bin/ruff check kortmiljo agents train tests benchmarks

clean:
	rm -rf $(VENV) build site *.egg-info
