#!/usr/bin/env python3
"""Paired CPU profiles of HTTP servers, per request: where each server's CPU goes.

For ROUNDS rounds, each VARIANT in turn (the order alternates every round) starts a fresh
server process of the http bench binary (`HTTP_BENCH_SERVE`), loads it with
`wrk -t2 -cCONNS -d4s`, and, from 1 s into the load, records the server for 2 s:
`perf record -e cpu-clock -F 10000` (samples) under `perf stat` (its syscalls and context
switches). Requests are counted by the server's `recvfrom` calls: one per HTTP/1.1 request
for both servers, each request arriving in one read (the writes do not count the same: rt
sends a response with `send`, tokio with `writev`). The rounds are summed per variant, and
everything is printed per million requests: total, kernel and user samples; user samples by kind (runtime, hyper, memory, clock,
other); syscalls; and the symbols that differ most from the first variant's.

Summing alternated rounds, rather than one profile each, is what makes a difference of a few
per cent visible on a machine whose speed drifts by more than that between two runs.

With --pin split the server's worker threads share CPU 0 and wrk's threads CPU 1 (the server's
CPU cost alone); otherwise nothing is pinned (the bench's own setting).

usage: scripts/http-prof.py [--pin split] BIN CONNS ROUNDS VARIANT...
  VARIANT as in http-ab.py (`scripts/http_variants.py`): NAME or NAME:KEY=VALUE,...; a NAME
  starting with "tokio" serves hyper on tokio, any other rt; BIN=PATH runs another build.
example: scripts/http-prof.py target/release/deps/http-* 50 4 tokio rt
Needs perf with the syscalls tracepoints (root, or a permissive perf_event_paranoid).
"""
import collections, os, re, subprocess, sys, tempfile, time
import http_variants

args = sys.argv[1:]
pin = None
if args[:1] == ['--pin']:
    pin, args = args[1], args[2:]
    assert pin == 'split', '--pin split'
binp, conns, rounds = args[0], int(args[1]), int(args[2])
variants = http_variants.parse(args[3:], binp, 18200)
tmp = tempfile.mkdtemp(prefix='http-prof-')
EVENTS = ['syscalls:sys_enter_recvfrom', 'syscalls:sys_enter_epoll_wait',
          'syscalls:sys_enter_epoll_ctl', 'syscalls:sys_enter_futex',
          'syscalls:sys_enter_sched_yield', 'context-switches']


def pin_to(tids, cpu):
    for t in tids:
        http_variants.pin(t, cpu)


def one(name, env, port, binary, out):
    server = subprocess.Popen([binary, '--bench'], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.4)
    if pin:
        comm = 'tokio-rt-worker' if env['HTTP_BENCH_SERVE'] == 'tokio' else 'rt-worker'
        pin_to(http_variants.threads(server.pid, comm), 0)
    load = subprocess.Popen(['wrk', '-t2', f'-c{conns}', '-d4s', f'http://127.0.0.1:{port}/'],
                            stdout=subprocess.DEVNULL)
    if pin:
        time.sleep(0.05)
        pin_to(http_variants.threads(load.pid, 'wrk'), 1)
    time.sleep(1)
    subprocess.run(['perf', 'stat', '-x,', '-o', out + '.stat', '-e', ','.join(EVENTS),
                    '-p', str(server.pid), '--',
                    'perf', 'record', '-q', '-e', 'cpu-clock', '-F', '10000',
                    '-p', str(server.pid), '-o', out, '--', 'sleep', '2'],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    load.wait()
    server.stdin.close()
    server.wait()


def kind(sym):
    if re.search(r'(^|[<\s])(rt|rt_core|rt_io|rt_sched)::|^rt_|tokio::runtime|tokio::net|'
                 r'TokioIo|tokio::sync|crossbeam', sym):
        return 'runtime'
    if re.search(r'hyper|httparse|http::', sym):
        return 'hyper'
    if re.search(r'malloc|free|memmove|memcpy|bytes::|unlink_chunk|alloc::', sym):
        return 'memory'
    if re.search(r'clock_gettime|Timespec', sym):
        return 'clock'
    return 'other'


totals = {name: {'reqs': 0, 'syms': collections.Counter(), 'stat': collections.Counter()}
          for name, *_ in variants}
for r in range(rounds):
    order = variants if r % 2 == 0 else variants[::-1]
    for name, env, port, binary in order:
        out = os.path.join(tmp, f'{name}-{r}.data')
        one(name, env, port, binary, out)
        t = totals[name]
        for line in open(out + '.stat'):
            f = line.strip().split(',')
            if len(f) > 2 and f[0].isdigit():
                t['stat'][f[2]] += int(f[0])
        report = subprocess.run(['perf', 'report', '-i', out, '--no-children', '--sort', 'sym',
                                 '-q', '-n', '--percent-limit', '0'],
                                capture_output=True, text=True).stdout
        for line in report.splitlines():
            m = re.match(r'\s*[\d.]+%\s+(\d+)\s+\[(.)\]\s+(.*)$', line)
            if m:
                t['syms'][(m.group(2), m.group(3).strip())] += int(m.group(1))
    print(f'round {r} done', flush=True)

for t in totals.values():
    t['reqs'] = t['stat']['syscalls:sys_enter_recvfrom']


def per_m(n, t):
    return n / t['reqs'] * 1e6


print('\nper million requests (requests = the server\'s recvfrom calls):')
for name, t in totals.items():
    kernel = sum(n for (k, _), n in t['syms'].items() if k == 'k')
    total = sum(t['syms'].values())
    kinds = collections.Counter()
    for (k, s), n in t['syms'].items():
        if k != 'k':
            kinds[kind(s)] += n
    print(f'  {name}: samples {per_m(total, t):.0f} (kernel {per_m(kernel, t):.0f}, user '
          f'{per_m(total - kernel, t):.0f}: '
          + ', '.join(f'{k} {per_m(v, t):.0f}' for k, v in sorted(kinds.items())) + ')')
    print('     ' + ', '.join(f'{e.split(":")[-1].replace("sys_enter_", "")} '
                             f'{t["stat"][e] / t["reqs"]:.4f}/req' for e in EVENTS[1:]))
base_name, base = variants[0][0], totals[variants[0][0]]
for name, t in list(totals.items())[1:]:
    print(f'\n{name} minus {base_name}, samples per million requests (biggest first):')
    keys = set(t['syms']) | set(base['syms'])
    diff = sorted(((per_m(t['syms'][k], t) - per_m(base['syms'][k], base), k) for k in keys),
                  key=lambda x: -abs(x[0]))
    for d, (k, s) in diff[:30]:
        print(f'  {d:+8.0f}  {name} {per_m(t["syms"][(k, s)], t):7.0f}  {base_name} '
              f'{per_m(base["syms"][(k, s)], base):7.0f}  [{k}] {s[:100]}')
print(f'\nprofiles in {tmp}')
