# bufsim: `make demo` installs everything into .venv and runs the main job;
# `make test` runs the Rust and Python test suites; `make bench` the benchmarks.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)
# Cap parallel jobs on small machines (2 cores): rustc and the tests share them.
export CARGO_BUILD_JOBS ?= 2

RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.lock pyproject.toml

.PHONY: install build demo test test-rust test-python bench clean

install: $(VENV)/.deps build

$(VENV)/.deps: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip "maturin>=1.8,<2"
	touch $@

build: $(VENV)/.built

$(VENV)/.built: $(VENV)/.deps $(RUST_SOURCES)
	# Builds the Rust extension and installs the package with its
	# dependencies (pyproject.toml) and the test extras, editable.
	$(VENV)/bin/maturin develop --release --quiet --extras test
	touch $@

demo: install
	$(VENV)/bin/bufsim demo

test: install test-rust test-python

test-rust:
	cargo test --release --workspace --exclude bufsim-py

test-python: install
	$(PY) -m pytest -q

bench: install
	cargo bench -p bufsim-core
	$(PY) bench/sweep_bench.py
	$(PY) -m pytest -q -m slow

clean:
	rm -rf $(VENV) target
