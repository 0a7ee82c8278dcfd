#!/usr/bin/env bash
# Checks that every dependency of the shipped crates (rt, rt-core, rt-sched, rt-io, rt-sync,
# rt-macros) states a minimum version that builds: in a scratch copy of the workspace holding
# only those crates, without their dev-dependencies, `cargo +nightly update -Z
# direct-minimal-versions` picks the lowest version each requirement allows (indirect
# dependencies stay at their newest), and the crates must then build with every feature on.
# A project that locks an older release of a dependency (mini-redis pins tokio 1.32) builds rt
# when this passes.
#
# Usage: scripts/minimal-versions.sh [SCRATCH_DIR]   (needs a nightly toolchain for -Z)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=${1:-$root/target/minimal-versions}
rm -rf "$scratch/src"
mkdir -p "$scratch/src"
git ls-files -z --cached --others --exclude-standard Cargo.toml crates | (cd "$root" && xargs -0 tar -cf -) | tar -xf - -C "$scratch/src"
cd "$scratch/src"
python3 - <<'PY'
import re, pathlib
shipped = ["crates/rt-core", "crates/rt-sched", "crates/rt-io", "crates/rt-sync", "crates/rt", "crates/rt-macros"]
ws = pathlib.Path("Cargo.toml")
text = ws.read_text()
text = re.sub(r"members = \[[^\]]*\]", "members = [" + ", ".join(f'"{m}"' for m in shipped) + "]", text, count=1)
ws.write_text(text)
for m in shipped:
    p = pathlib.Path(m) / "Cargo.toml"
    out, skip = [], False
    for line in p.read_text().splitlines():
        if line.startswith("["):
            # Dev-dependencies, and the targets that need them, are not shipped.
            skip = line.strip() in ("[dev-dependencies]", "[[bench]]", "[[example]]", "[[test]]") \
                or line.strip().endswith(".dev-dependencies]")
        if not skip:
            out.append(line)
    p.write_text("\n".join(out) + "\n")
PY
rm -f Cargo.lock
cargo +nightly update -Z direct-minimal-versions
CARGO_TARGET_DIR="$scratch/target" cargo check --workspace --all-features --lib
echo "minimal-versions: ok"
