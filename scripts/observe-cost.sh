#!/usr/bin/env bash
# The cost of rt's built-in observation (issue 11): benches/observe_cost.rs run against a build of
# the same bench with every observation hook compiled out (`--cfg rt_unobserved`), the two builds
# alternating round by round. Arguments are passed to the bench (e.g. a workload name filter).
set -euo pipefail
cd "$(dirname "$0")/.."
# The unobserved build lives in its own target dir so the two builds don't evict each other.
unobserved=$(RUSTFLAGS="--cfg rt_unobserved" CARGO_TARGET_DIR=target/unobserved \
    cargo bench -p rt-benches --bench observe_cost --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*observe_cost[^"]*\)".*/\1/p' | tail -1)
if [ -z "$unobserved" ]; then
    echo "observe-cost: could not build the unobserved bench" >&2
    exit 1
fi
RT_UNOBSERVED_BENCH="$unobserved" cargo bench -p rt-benches --bench observe_cost -- "$@"
