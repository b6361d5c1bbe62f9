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

.PHONY: install build demo test lint test-rust test-python browser tshark ns3 ns2 validate validate-ns2 bench docs clean

install: $(VENV)/.deps build

$(VENV)/.deps: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip "maturin>=1.8,<2"
	touch $@

build: $(VENV)/.built

$(VENV)/.built: $(VENV)/.deps $(RUST_SOURCES)
	# Builds the Rust extension and installs the package with its
	# dependencies (pyproject.toml) and the test extras, editable.
	$(VENV)/bin/maturin develop --profile dist --quiet --extras test
	touch $@

demo: install
	$(VENV)/bin/bufsim demo

test: install browser tshark ns3 ns2 lint test-rust test-python

# Formatting, lints and docs (warnings are errors): ruff (installed with the
# test extras; pyproject.toml's [tool.ruff] sets the rules and the complexity
# limit), rustfmt and clippy (installed here when missing: the toolchain's
# components through rustup, else Debian's packages, as root on a fresh
# machine), and rustdoc on the core crate (broken intra-doc links and
# undocumented public items, the crate's #![warn(missing_docs)]).
lint: install
	$(VENV)/bin/ruff format --check python tests bench mkdocs_hooks.py
	$(VENV)/bin/ruff check python tests bench mkdocs_hooks.py
	@{ cargo fmt --version && cargo clippy --version; } >/dev/null 2>&1 || { \
		echo "installing rustfmt and clippy for the lints"; \
		if command -v rustup >/dev/null; then rustup component add rustfmt clippy; \
		else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rustfmt rust-clippy; fi; }
	cargo fmt --all --check
	cargo clippy --release --workspace --all-targets --quiet -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc -p bufsim-core --no-deps --quiet

# Headless Chromium opens the HTML reports in the tests (Debian's package;
# installed here when missing, as root on a fresh machine).
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
		echo "installing chromium (apt-get) for the report tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

# tshark (Wireshark's command line) reads the pcap files the trace tests
# write (Debian's package; installed here when missing, as root on a fresh
# machine). Its debconf question (may non-root users capture?) is answered
# no beforehand, so the install does not stop to ask.
tshark:
	@command -v tshark >/dev/null || { \
		echo "installing tshark (apt-get) for the pcap tests"; \
		echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tshark; }

# ns-3's development files for the ns3 engine (Debian's packages; installed
# here when missing, as root on a fresh machine): ns-3.37, GSL and SQLite
# (which its pkg-config files name), the JSON reader the driver uses, g++.
NS3_PACKAGES := libns3-dev libgsl-dev libsqlite3-dev nlohmann-json3-dev g++ pkg-config
ns3:
	@dpkg -s $(NS3_PACKAGES) >/dev/null 2>&1 || { \
		echo "installing ns-3 (apt-get) for the ns3 engine"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(NS3_PACKAGES); }

# ns-2.35 for the ns2 engine (Debian's package, binary `ns`; installed here
# when missing, as root on a fresh machine).
ns2:
	@command -v ns >/dev/null || { \
		echo "installing ns-2 (apt-get) for the ns2 engine"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ns2; }

# The packet engine against ns-3: every validation scenario, three seeds
# (6, then 10, the planned looks, where a metric is undecided).
validate: install ns3
	$(VENV)/bin/bufsim validate-engines --max-seeds 6 --max-seeds 10 \
		--reuse validation/ns3-runs

# The same suite against ns-2.35, the scenarios it can express.
validate-ns2: install ns2
	$(VENV)/bin/bufsim validate-engines --against ns2 --max-seeds 6 --max-seeds 10 \
		-o results/validate-ns2

# Then a debug build of the pool tests: it checks every admission against
# its algorithm's rule (queue::shared::debug_check_admission), which the
# release tests compile out.
test-rust:
	cargo test --release --workspace --exclude bufsim-py
	cargo test -p bufsim-core --lib --test packet_pool_algorithms -- admission

# One pytest worker per core (pytest-xdist); a file's tests stay on one
# worker, so a module's fixtures (a sweep, a reproduction) run once.
test-python: install
	$(PY) -m pytest -q -n auto --dist loadfile --durations=15

bench: install
	cargo bench -p bufsim-core
	$(PY) bench/sweep_bench.py
	$(PY) bench/advise_bench.py
	$(PY) bench/fabric_speed.py
	BUFSIM_PROPERTY_EXAMPLES=20000 $(PY) -m pytest -q tests/test_properties.py -k random --hypothesis-show-statistics
	$(PY) -m pytest -q -m slow
	$(MAKE) validate

# The docs site (mkdocs.yml) into site/, then served at http://127.0.0.1:8000
# (make test builds it too, with every code block of its pages run). The
# reproductions' figures come from their quick runs, kept in
# results/reproduce/runs: the first build runs them (about 1.5 minutes).
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve

clean:
	rm -rf $(VENV) target site
