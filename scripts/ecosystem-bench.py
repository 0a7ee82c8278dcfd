#!/usr/bin/env python3
"""The tokio ecosystem on rt against the same programs on crates.io tokio: throughput, paired.

Builds `ecosystem/examples/eco_bench.rs` twice in release mode: in `ecosystem/`, where the patch
makes every `tokio` rt's face, and in a copy of it without the patch (under the target
directory), where `tokio` is crates.io's. Then runs each workload (sqlx on a SQLite pool,
reqwest against a local axum server, tonic unary calls; 32 concurrent clients, 2 workers, default
settings) on both sides in alternating rounds (the order flips every round, so neither side
always runs first on a warm or cold machine) and prints the per-round ops/s, the medians, and
the median of the per-round rt/tokio ratios (above 1: rt is faster).

Usage:
    scripts/ecosystem-bench.py                    # every workload, 9 rounds
    scripts/ecosystem-bench.py --rounds 15 tonic  # one workload
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ECO = REPO / "ecosystem"
WORKLOADS = ["sqlx", "reqwest", "tonic"]


def build(manifest_dir, target_dir):
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir))
    subprocess.run(["cargo", "build", "--release", "--example", "eco_bench", "-q"],
                   cwd=manifest_dir, env=env, check=True)
    return target_dir / "release" / "examples" / "eco_bench"


def unpatched_copy(dest):
    """`ecosystem/` without its `[patch.crates-io]` section: the same programs on crates.io
    tokio."""
    dest.mkdir(parents=True, exist_ok=True)
    manifest = (ECO / "Cargo.toml").read_text()
    manifest = re.sub(r"\[patch\.crates-io\]\n(?:[^\[\n].*\n|\n)*", "", manifest)
    (dest / "Cargo.toml").write_text(manifest)
    for sub in ["src", "examples", "tests"]:
        if (dest / sub).exists():
            shutil.rmtree(dest / sub)
    # The bench alone: the tests' shared library reads rt's metrics, which tokio lacks.
    shutil.copytree(ECO / "examples", dest / "examples")
    (dest / "src").mkdir()
    (dest / "src" / "lib.rs").write_text("")
    if (ECO / "Cargo.lock").exists():
        shutil.copy(ECO / "Cargo.lock", dest / "Cargo.lock")
    return dest


def run(binary, workload, ops):
    out = subprocess.run([str(binary), workload, str(ops)], check=True, text=True,
                         stdout=subprocess.PIPE, timeout=600).stdout.split()
    return float(out[3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="*", default=WORKLOADS)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--ops", type=int, default=20_000)
    ap.add_argument("--target-dir", type=Path, default=REPO / "target" / "ecosystem-bench")
    args = ap.parse_args()

    rt_bin = build(ECO, args.target_dir / "rt")
    tokio_dir = unpatched_copy(args.target_dir / "tokio-crate")
    tokio_bin = build(tokio_dir, args.target_dir / "tokio")
    tree = subprocess.run(["cargo", "tree", "-i", "tokio@1", "--depth", "0"], cwd=tokio_dir,
                          text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          env=dict(os.environ, CARGO_TARGET_DIR=str(args.target_dir / "tokio")))
    print(f"rt side: the face; tokio side: {tree.stdout.strip() or 'crates.io tokio'}")

    for workload in args.workloads:
        rows = []
        for r in range(args.rounds):
            sides = [("rt", rt_bin), ("tokio", tokio_bin)]
            if r % 2:
                sides.reverse()
            got = {name: run(binary, workload, args.ops) for name, binary in sides}
            rows.append(got)
            print(f"{workload} round {r + 1}: rt {got['rt']:,.0f} ops/s, tokio "
                  f"{got['tokio']:,.0f} ops/s, rt/tokio {got['rt'] / got['tokio']:.3f}",
                  flush=True)
        ratios = [row["rt"] / row["tokio"] for row in rows]
        print(f"{workload}: median rt {statistics.median(r['rt'] for r in rows):,.0f} ops/s, "
              f"tokio {statistics.median(r['tokio'] for r in rows):,.0f} ops/s; "
              f"rt/tokio throughput, median of {len(rows)} rounds: "
              f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
