# Set-up is automatic: every target creates or reuses .venv and installs what it needs
# (torch 2.13.0 CPU first, so that pip never resolves a multi-GB CUDA build).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-all bench lint clean chromium

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[train,test,bench,openspiel,web]'
	touch $(STAMP)

demo: $(STAMP)  ## the main job: train a small agent and evaluate it against the baselines
	$(PY) -m train.demo

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

bench: $(STAMP)  ## throughput (with the PGX anchor) and strength tables
	$(PY) -m pip install -q -e '.[pgx]'
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/strength.py

lint: $(STAMP)
	$(VENV)/bin/ruff check kortmiljo agents train tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
