#!/usr/bin/env bash
# Checks that crates.io `tokio` is in the normal (non-dev, non-build) dependency graph of none of
# rt's shipped crates, with or without their features: the `tokio` face crate re-exports rt and
# is patched in for crates.io tokio, which would make a cycle if rt depended on tokio.
# (`rt-hyper` is outside the face's graph and may depend on tokio through hyper.)
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
for pkg in rt rt-io rt-core rt-sched rt-sync rt-macros; do
    for features in "" "--all-features"; do
        graph=$(cargo tree -p "$pkg" -e normal $features --prefix none --format '{p}')
        if grep -E '^tokio v' <<<"$graph" >/dev/null; then
            echo "no-tokio-in-graph: crates.io tokio is in the normal graph of $pkg ${features:-(default features)}:" >&2
            cargo tree -p "$pkg" -e normal $features -i tokio >&2 || true
            status=1
        fi
    done
done
[ "$status" = 0 ] && echo "no-tokio-in-graph: ok (rt, rt-io, rt-core, rt-sched, rt-sync, rt-macros)"
exit "$status"
