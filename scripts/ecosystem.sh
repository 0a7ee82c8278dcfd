#!/usr/bin/env bash
# The tokio ecosystem on rt through the `tokio` face (`ecosystem/`, a workspace of its own whose
# only change from a tokio project is `[patch.crates-io] tokio = { path = "../crates/tokio" }`):
#
# 1. the patch took: every `tokio` in the graph (normal and dev edges) is the face, none is
#    crates.io's (a requirement the face's version did not meet would leave crates.io tokio in);
# 2. fmt and clippy of the face and of the ecosystem programs;
# 3. the programs' tests: axum, tower-http, hyper-util, tonic, reqwest (async and blocking),
#    sqlx, tokio-util, tokio-stream, tokio-tungstenite, tokio-rustls, mini-redis;
# 4. the built test binaries hold no tokio scheduler code (the face's `tokio` has none; a hidden
#    crates.io tokio would bring `tokio::runtime::scheduler`).
set -euo pipefail
cd "$(dirname "$0")/../ecosystem"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-../target/ecosystem}"

step() { printf '\n==> ecosystem: %s\n' "$*"; }

step "the patch took"
sources=$(cargo tree -e normal,dev --prefix none --format '{p}' | grep -E '^tokio v' | sort -u)
echo "$sources"
if grep -v '(/' <<<"$sources" | grep -q .; then
    echo "ecosystem: crates.io tokio is in the graph:" >&2
    cargo tree -e normal,dev -i 'tokio@1' >&2 || true
    exit 1
fi

step "fmt and clippy"
cargo fmt --check
(cd ../crates/tokio && cargo fmt --check)
cargo clippy --all-targets -- -D warnings
(cd ../crates/tokio && cargo clippy --all-targets -- -D warnings)

step "tests"
(cd ../crates/tokio && cargo test)
cargo test

step "no tokio scheduler code in the binaries"
found=0
for bin in "$CARGO_TARGET_DIR"/debug/deps/*-????????????????; do
    [ -x "$bin" ] && [ -f "$bin" ] || continue
    if nm -C "$bin" 2>/dev/null | grep -q 'tokio::runtime::scheduler'; then
        echo "ecosystem: $bin links tokio's scheduler" >&2
        found=1
    fi
done
[ "$found" = 0 ] && echo "ecosystem: ok"
exit "$found"
