#!/usr/bin/env python3
"""Paired A/B of HTTP servers: long-lived server processes of the http bench binary
(`HTTP_BENCH_SERVE`), each loaded in turn by `wrk -t2 -cCONNS -dSECS`, rotating the order every
round. Prints per-round requests/s, then medians, the paired ratio to the first variant, the
CPU each server and wrk spent per request (from /proc and getrusage), the idle share of the
machine and wrk's p99.

With --fresh each run starts its own server process (0.3 s before the load) and stops it
after, instead of one long-lived process per variant: a fresh runtime per run, as in the
bench itself, but one process per server.

With --pin LAYOUT the kernel does not choose where the threads run: `split` pins both server
workers to CPU 0 and wrk's two threads to CPU 1 (the server has one CPU of its own, and the
result is its CPU cost per request, with little scheduling in it); `pairs` pins worker k and
wrk thread k to CPU k. wrk's threads are pinned 50 ms after it starts.

usage: scripts/http-ab.py [--fresh] [--pin split|pairs] BIN CONNS SECS ROUNDS VARIANT...
  VARIANT is NAME or NAME:KEY=VALUE,KEY=VALUE (environment for that server); a NAME starting
  with "tokio" serves hyper on tokio, any other rt. The key BIN=PATH runs that variant from
  another build of the bench binary (an A/B of two commits: copy each build's binary aside). BIN: the http bench binary, e.g.
  target/release/deps/http-<hash> after `cargo bench -p rt-benches --bench http --no-run`.
example: scripts/http-ab.py target/release/deps/http-* 50 2 12 tokio rt rt_noyield:HTTP_BENCH_RT_OS_YIELD_US=0
         scripts/http-ab.py /tmp/http-new 50 2 12 tokio new old:BIN=/tmp/http-old
         scripts/http-ab.py --fresh target/release/deps/http-* 50 3 10 tokio rt
         scripts/http-ab.py --pin split target/release/deps/http-* 50 2 12 tokio rt
"""
import resource, subprocess, sys, time, os, re, statistics
import http_variants
args = sys.argv[1:]
fresh = args[:1] == ['--fresh']
args = args[1:] if fresh else args
pin = None
if args[:1] == ['--pin']:
    pin, args = args[1], args[2:]
    assert pin in ('split', 'pairs'), '--pin split or --pin pairs'
binp, conns, secs, rounds = args[0], int(args[1]), args[2], int(args[3])
parsed = http_variants.parse(args[4:], binp, 18100)
variants = [(name, env, port) for name, env, port, _ in parsed]
bins = {name: b for name, _, _, b in parsed}
threads = http_variants.threads
def pin_all(tids, cpu_of):
    for k, t in enumerate(tids):
        http_variants.pin(t, cpu_of(k))
def start(name, env):
    p = subprocess.Popen([bins[name], '--bench'], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)  # listening, and its workers started
    if pin:
        workers = threads(p.pid, 'tokio-rt-worker' if env['HTTP_BENCH_SERVE'] == 'tokio' else 'rt-worker')
        assert len(workers) == 2, f'{name}: expected 2 worker threads, found {len(workers)}'
        pin_all(workers, lambda k: 0 if pin == 'split' else k)
    return p
def stop(p):
    p.stdin.close(); p.wait()
servers = {} if fresh else {name: start(name, env) for name, env, _ in variants}
if not fresh:
    time.sleep(1.0)
res = {n: [] for n, _, _ in variants}
P99 = {}
def cpu():
    f = open('/proc/stat').readline().split()[1:]
    v = list(map(int, f)); return v[3] + v[4], sum(v)
idle = {n: [] for n, _, _ in variants}
srvcpu = {n: [] for n, _, _ in variants}; wrkcpu = {n: [] for n, _, _ in variants}

def pcpu(pid):
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')
def ccpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
def wrk(port):
    load = subprocess.Popen(['wrk', '-t2', f'-c{conns}', f'-d{secs}s', '--latency', f'http://127.0.0.1:{port}/'], stdout=subprocess.PIPE, text=True)
    if pin:
        time.sleep(0.05)
        pin_all(threads(load.pid, 'wrk'), lambda k: 1 if pin == 'split' else k)
    out = load.communicate()[0]
    rps = float(re.search(r'Requests/sec:\s+([\d.]+)', out).group(1))
    m = re.search(r'99%\s+([\d.]+)(us|ms|s)', out)
    p99 = float(m.group(1)) * {'us': 1e-3, 'ms': 1.0, 's': 1e3}[m.group(2)]
    P99[port] = P99.get(port, []) + [p99]
    return rps
for r in range(rounds):
    order = variants if r % 2 == 0 else variants[::-1]
    # rotate as well
    k = r % len(variants)
    order = variants[k:] + variants[:k] if len(variants) > 2 else order
    row = {}
    for name, env, port in order:
        if fresh:
            servers[name] = start(name, env)
        pid = servers[name].pid
        i0, t0 = cpu(); s0 = pcpu(pid); c0 = ccpu()
        row[name] = wrk(port)
        # Read before a fresh server stops: once reaped, its CPU counts as a child's (ccpu).
        i1, t1 = cpu(); s1 = pcpu(pid); c1 = ccpu()
        if fresh:
            stop(servers.pop(name))
        n = row[name] * float(secs)
        srvcpu[name].append((s1 - s0) / n * 1e6); wrkcpu[name].append((c1 - c0) / n * 1e6)
        idle[name].append((i1 - i0) / (t1 - t0))
        res[name].append(row[name])
    print(f'round {r}: ' + ' '.join(f'{n}={row[n]:.0f}' for n, _, _ in variants), flush=True)
for p in servers.values():
    stop(p)
base = variants[0][0]
print('idle: ' + ' '.join(f'{n}={statistics.median(idle[n])*100:.1f}%' for n, _, _ in variants))
print('server us/req: ' + ' '.join(f'{n}={statistics.median(srvcpu[n]):.2f}' for n, _, _ in variants))
print('wrk us/req: ' + ' '.join(f'{n}={statistics.median(wrkcpu[n]):.2f}' for n, _, _ in variants))
for n, _, _ in variants[1:]:
    b = variants[0][0]
    print(f'  paired {n}/{b}: server {statistics.median([x/y for x,y in zip(srvcpu[n], srvcpu[b])]):.3f} wrk {statistics.median([x/y for x,y in zip(wrkcpu[n], wrkcpu[b])]):.3f}')
print('p99 ms (median): ' + ' '.join(f'{n}={statistics.median(P99[port]):.2f}' for n, _, port in variants))
print('medians: ' + ' '.join(f'{n}={statistics.median(res[n]):.0f}' for n, _, _ in variants))
for n, _, _ in variants[1:]:
    ratios = [a / b for a, b in zip(res[n], res[base])]
    print(f'{n}/{base}: median ratio {statistics.median(ratios):.3f}  mean {statistics.mean(ratios):.3f}  wins {sum(x>1 for x in ratios)}/{len(ratios)}')
