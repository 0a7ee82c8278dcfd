#!/usr/bin/env python3
"""Paired A/B of hyper on rt against hyper on tokio with a fresh server process per run: each
round starts the http bench binary in server mode (`HTTP_BENCH_SERVE=rt|tokio`), waits 0.3 s,
loads it with `wrk -t2 -cCONNS -d3s --latency`, and stops it; rt and tokio alternate, and who
goes first swaps every round. A third method beside the bench itself (a fresh runtime per run
inside one process) and `http-ab.py` (long-lived server processes).

usage: scripts/http-fresh.py BIN CONNS ROUNDS
  BIN: the http bench binary, e.g. target/release/deps/http-<hash> after
  `cargo bench -p rt-benches --bench http --no-run`.
"""
import os, re, statistics as st, subprocess, sys, time

binp, conns, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def run(which):
    env = dict(os.environ, HTTP_BENCH_SERVE=which, HTTP_BENCH_ADDR='127.0.0.1:18090')
    p = subprocess.Popen([binp, '--bench'], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    out = subprocess.run(['wrk', '-t2', f'-c{conns}', '-d3s', '--latency', 'http://127.0.0.1:18090/'],
                         capture_output=True, text=True).stdout
    p.stdin.close()
    p.wait()
    rps = float(re.search(r'Requests/sec:\s+([\d.]+)', out).group(1))
    m = re.search(r'99%\s+([\d.]+)(us|ms|s)', out)
    p99 = float(m.group(1)) * {'us': 1e-3, 'ms': 1.0, 's': 1e3}[m.group(2)]
    return rps, p99


rows = []
for r in range(rounds):
    order = ['rt', 'tokio'] if r % 2 == 0 else ['tokio', 'rt']
    row = {w: run(w) for w in order}
    rows.append(row)
    print(f"round {r}: rt {row['rt'][0]:.0f} req/s p99 {row['rt'][1]:.2f} ms | "
          f"tokio {row['tokio'][0]:.0f} req/s p99 {row['tokio'][1]:.2f} ms", flush=True)
ratios = [x['rt'][0] / x['tokio'][0] for x in rows]
print(f"rt/tokio median {st.median(ratios):.3f}, rt ahead {sum(v > 1 for v in ratios)}/{len(rows)}; "
      f"p99 rt {st.median([x['rt'][1] for x in rows]):.2f} ms, tokio {st.median([x['tokio'][1] for x in rows]):.2f} ms")
