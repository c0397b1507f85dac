# Set-up is automatic: every target creates or reuses .venv and installs what it needs
# (torch 2.13.0 CPU first, so that pip never resolves a multi-GB CUDA build).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-all bench lint clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[train,test,bench,openspiel]'
	touch $(STAMP)

demo: $(STAMP)  ## the main job: train a small agent and evaluate it against the baselines
	$(PY) -m train.demo

test: $(STAMP)  ## the default test suite (slow checks excluded)
	$(PY) -m pytest -q -n 2

test-all: $(STAMP)  ## everything, slow checks included
	$(PY) -m pytest -q -n 2 -m ''

bench: $(STAMP)  ## throughput (with the PGX anchor) and strength tables
	$(PY) -m pip install -q -e '.[pgx]'
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/strength.py

lint: $(STAMP)
	$(VENV)/bin/ruff check kortmiljo agents train tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
