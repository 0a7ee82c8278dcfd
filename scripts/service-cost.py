#!/usr/bin/env python3
"""What a real service pays per request on rt and on tokio: the server's CPU time (user + system,
from /proc/PID/stat), its system calls by kind and its context switches (`perf stat` attached to
the server), beside requests/s and latency, in alternating rounds with the median of the
per-round rt/tokio ratios. CPU per request is the figure to read on a noisy machine.

Services (each built by this script into target/service-cost/, release):
  redis  tokio's example service mini-redis (the `mini-redis` crate's server, 2 workers on this
         2-core machine): as published on tokio, and ported to rt by the rename a porter does
         (`tokio::` -> `rt::`); load: `redis-benchmark -t set,get -c CONNS -n REQUESTS`.
  http   the hyper hello-world of benches/http.rs (`HTTP_BENCH_SERVE=rt|tokio`, 2 workers);
         load: `wrk -t1 -cCONNS -dSECONDSs --latency`.

Both servers run with their defaults (rt: stall detection, metrics and names on, as a user gets
them). The load generators come from scripts/setup-bench.sh (Debian's redis-tools and wrk).

Usage: scripts/service-cost.py SERVICE [--conns N] [--rounds R] [--requests N] [--seconds S]
Example: scripts/service-cost.py redis --conns 50 --rounds 6
Prints one line per round and a summary:
  service-cost SERVICE c=CONNS: cpu/req rt X us, tokio Y us, median rt/tokio R; syscalls/req ...
"""
import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'target', 'service-cost')
MINI_REDIS = '0.4.1'
SYSCALLS = ['epoll_wait', 'epoll_pwait', 'epoll_ctl', 'futex', 'read', 'recvfrom', 'write',
            'writev', 'sendto', 'sched_yield', 'timerfd_settime', 'accept4']
TICK = os.sysconf('SC_CLK_TCK')


def run(cmd, **kw):
    print('+', ' '.join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, **kw)


def registry_source(name, version):
    """The directory of crate `name` `version` in cargo's registry (fetched through cargo)."""
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, 'Cargo.toml'), 'w') as f:
        f.write(f'[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n'
                f'[dependencies]\n{name} = "={version}"\n[workspace]\n')
    os.makedirs(os.path.join(tmp, 'src'))
    open(os.path.join(tmp, 'src', 'lib.rs'), 'w').close()
    run(['cargo', 'fetch', '--quiet'], cwd=tmp)
    out = subprocess.run(['cargo', 'metadata', '--format-version', '1', '--quiet'], cwd=tmp,
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r'"manifest_path":"([^"]*/' + re.escape(f'{name}-{version}') + r'/Cargo.toml)"', out)
    shutil.rmtree(tmp)
    return os.path.dirname(m.group(1))


def build_redis():
    """Builds mini-redis's server on tokio and on rt; returns {flavour: binary}."""
    src = registry_source('mini-redis', MINI_REDIS)
    bins = {}
    for flavour in ('tokio', 'rt'):
        d = os.path.join(OUT, f'mini-redis-{flavour}')
        shutil.rmtree(os.path.join(d, 'src'), ignore_errors=True)
        os.makedirs(d, exist_ok=True)
        shutil.copytree(os.path.join(src, 'src'), os.path.join(d, 'src'))
        os.remove(os.path.join(d, 'src', 'bin', 'cli.rs'))
        runtime = ('tokio = { version = "1", features = ["full"] }' if flavour == 'tokio'
                   else f'rt = {{ path = "{ROOT}/crates/rt" }}')
        with open(os.path.join(d, 'Cargo.toml'), 'w') as f:
            f.write(f'''[package]
name = "mini-redis-{flavour}"
version = "0.0.0"
edition = "2018"
publish = false

[lib]
name = "mini_redis"
path = "src/lib.rs"

[[bin]]
name = "mini-redis-server"
path = "src/bin/server.rs"

[dependencies]
{runtime}
async-stream = "0.3.0"
atoi = "0.3.2"
bytes = "1"
structopt = "0.3.14"
tokio-stream = "0.1"
tracing = "0.1.13"
tracing-futures = "0.2.3"
tracing-subscriber = "0.2.2"

[profile.release]
debug = 1

[workspace]
''')
        if flavour == 'rt':
            # The porter's rename: tokio's paths become rt's (tokio-stream stays: it is generic).
            for dirpath, _, files in os.walk(os.path.join(d, 'src')):
                for fn in files:
                    p = os.path.join(dirpath, fn)
                    text = open(p).read()
                    text = re.sub(r'\btokio::', 'rt::', text)
                    text = re.sub(r'\buse tokio\b', 'use rt', text)
                    open(p, 'w').write(text)
        run(['cargo', 'build', '--release', '--quiet', '--bin', 'mini-redis-server'], cwd=d,
            env=dict(os.environ, CARGO_TARGET_DIR=os.path.join(d, 'target')))
        bins[flavour] = os.path.join(d, 'target', 'release', 'mini-redis-server')
    return bins


def build_http():
    out = subprocess.run(['cargo', 'bench', '-p', 'rt-benches', '--bench', 'http', '--no-run',
                          '--message-format=json', '--quiet'], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    exe = [m for m in re.findall(r'"executable":"([^"]+)"', out) if '/http-' in m][-1]
    return {'tokio': exe, 'rt': exe}


def wait_port(port, proc):
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f'server exited with {proc.returncode}')
        try:
            socket.create_connection(('127.0.0.1', port)).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit('server did not listen')


def start(service, flavour, binary, port):
    if service == 'redis':
        p = subprocess.Popen([binary, '--port', str(port)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    else:
        env = dict(os.environ, HTTP_BENCH_SERVE=flavour, HTTP_BENCH_ADDR=f'127.0.0.1:{port}')
        p = subprocess.Popen([binary], env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, p)
    return p


def cpu_seconds(pid):
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def load(service, port, a):
    """Runs the load; returns (requests, requests/s, p50 ms, p99 ms)."""
    if service == 'redis':
        out = subprocess.run(['redis-benchmark', '-p', str(port), '-t', 'set,get', '-c',
                              str(a.conns), '-n', str(a.requests), '--csv'], check=True,
                             capture_output=True, text=True).stdout
        rows = [l.replace('"', '').split(',') for l in out.splitlines()[1:] if l.strip()]
        # test, rps, avg, min, p50, p95, p99, max
        rps = statistics.fmean(float(r[1]) for r in rows)
        p50 = max(float(r[4]) for r in rows)
        p99 = max(float(r[6]) for r in rows)
        return a.requests * len(rows), rps, p50, p99
    out = subprocess.run(['wrk', '-t1', f'-c{a.conns}', f'-d{a.seconds}s', '--latency',
                          f'http://127.0.0.1:{port}/'], check=True, capture_output=True,
                         text=True).stdout
    n = int(re.search(r'(\d+) requests in', out).group(1))
    rps = float(re.search(r'Requests/sec:\s+([\d.]+)', out).group(1))

    def ms(label):
        v, unit = re.search(label + r'%\s+([\d.]+)(\w+)', out).groups()
        return float(v) * {'us': 1e-3, 'ms': 1.0, 's': 1e3}[unit]
    return n, rps, ms('50'), ms('99')


def measure(service, flavour, binary, port, a):
    p = start(service, flavour, binary, port)
    try:
        # Warm up (connections, allocator, the rt pool).
        warm = argparse.Namespace(**vars(a))
        warm.requests, warm.seconds = max(a.requests // 10, 1000), 1
        load(service, port, warm)
        events = ','.join(['raw_syscalls:sys_enter', 'context-switches']
                          + [f'syscalls:sys_enter_{s}' for s in SYSCALLS])
        stat_file = tempfile.mktemp()
        perf = subprocess.Popen(['perf', 'stat', '-x,', '-o', stat_file, '-e', events, '-p',
                                 str(p.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.2)
        c0 = cpu_seconds(p.pid)
        n, rps, p50, p99 = load(service, port, a)
        c1 = cpu_seconds(p.pid)
        perf.send_signal(signal.SIGINT)
        perf.wait()
        counts = {}
        for line in open(stat_file):
            f = line.strip().split(',')
            if len(f) > 2 and f[0].replace('.', '').isdigit():
                counts[f[2].replace('syscalls:sys_enter_', '').replace('raw_syscalls:sys_enter',
                                                                         'all')] = float(f[0])
        os.remove(stat_file)
        return {'req': n, 'rps': rps, 'p50': p50, 'p99': p99, 'cpu_us': (c1 - c0) / n * 1e6,
                **{k: v / n for k, v in counts.items()}}
    finally:
        if service == 'http':
            p.stdin.close()
        p.kill()
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('service', choices=['redis', 'http'])
    ap.add_argument('--conns', type=int, default=50)
    ap.add_argument('--rounds', type=int, default=6)
    ap.add_argument('--requests', type=int, default=200_000, help='redis: per test (set, get)')
    ap.add_argument('--seconds', type=int, default=5, help='http: per round')
    ap.add_argument('--port', type=int, default=17400)
    a = ap.parse_args()
    if shutil.which('perf') is None:
        sys.exit('perf is needed (linux-perf)')
    need = 'redis-benchmark' if a.service == 'redis' else 'wrk'
    if shutil.which(need) is None:
        sys.exit(f'{need} is needed: scripts/setup-bench.sh installs it')
    bins = build_redis() if a.service == 'redis' else build_http()
    rows = {'rt': [], 'tokio': []}
    for r in range(a.rounds):
        order = ['rt', 'tokio'] if r % 2 == 0 else ['tokio', 'rt']
        for k, flavour in enumerate(order):
            m = measure(a.service, flavour, bins[flavour], a.port + 2 * r + k, a)
            rows[flavour].append(m)
            print(f'round {r} {flavour:5}: {m["rps"]:9.0f} req/s p50 {m["p50"]:.3f} p99 '
                  f'{m["p99"]:.3f} ms, cpu {m["cpu_us"]:.2f} us/req, syscalls/req '
                  f'{m.get("all", 0):.2f}, switches/req {m.get("context-switches", 0):.3f}',
                  flush=True)
    med = lambda f, k: statistics.median(x[k] for x in rows[f])
    ratio = lambda k: statistics.median(x[k] / y[k] for x, y in zip(rows['rt'], rows['tokio'])
                                        if y.get(k))
    print(f'\nper request (medians over {a.rounds} rounds), rt | tokio:')
    for k in ['cpu_us', 'all', 'context-switches'] + SYSCALLS:
        if med('tokio', k) or med('rt', k):
            print(f'  {k:18} {med("rt", k):10.3f} | {med("tokio", k):10.3f}')
    print(f'service-cost {a.service} c={a.conns}: cpu/req rt {med("rt", "cpu_us"):.2f} us, tokio '
          f'{med("tokio", "cpu_us"):.2f} us, median rt/tokio {ratio("cpu_us"):.3f}; syscalls/req '
          f'rt/tokio {ratio("all"):.3f}; req/s rt/tokio {ratio("rps"):.3f}; p99 rt '
          f'{med("rt", "p99"):.3f} tokio {med("tokio", "p99"):.3f} ms')


if __name__ == '__main__':
    main()
