#!/usr/bin/env bash
# Run every fuzz target for SECONDS (default 60) each; not part of `make test`.
# Needs cargo-fuzz (installed here when missing). cargo fuzz wants a nightly
# compiler for its -Z flags; with only a stable toolchain, RUSTC_BOOTSTRAP=1
# lets stable accept them. A crash is saved under fuzz/artifacts/<target>/:
# turn it into a regression test in crates/bufsim-core/tests/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
if ! rustc --version | grep -q nightly; then export RUSTC_BOOTSTRAP=1; fi
for target in scenario units; do
    mkdir -p "corpus/$target"
    cargo fuzz run "$target" "corpus/$target" -- -max_total_time="$seconds" -print_final_stats=1
done
