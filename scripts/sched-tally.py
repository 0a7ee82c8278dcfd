#!/usr/bin/env python3
"""Who runs, sleeps, wakes and preempts whom while wrk loads an HTTP server: a per-thread
tally from the kernel's scheduler and syscall tracepoints (`perf record -a`), for each server
variant in turn. It shows how the two sides batch their work: events per `epoll_wait`, writes
per second, voluntary sleeps and involuntary switches per thread, and wake-ups by waker and
wakee (same CPU or across CPUs).

The tracing slows both sides (a quarter or so), so compare variants within one run only, and
read the throughput from `scripts/http-ab.py`, not from here. Needs perf with the sched and
syscalls tracepoints (root, or a low perf_event_paranoid).

usage: scripts/sched-tally.py BIN CONNS VARIANT...
  BIN and VARIANT as for scripts/http-ab.py (the grammar is scripts/http_variants.py's).
example: scripts/sched-tally.py target/release/deps/http-<hash> 50 tokio rt
"""
import collections, os, re, subprocess, sys, tempfile, time

import http_variants

EVENTS = ('sched:sched_wakeup,sched:sched_switch,syscalls:sys_enter_epoll_wait,'
          'syscalls:sys_exit_epoll_wait,syscalls:sys_enter_writev,syscalls:sys_enter_write,'
          'syscalls:sys_enter_sendto')
LINE = re.compile(r'\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)')


def record(binp, env, conns, port, out):
    server = subprocess.Popen([binp, '--bench'], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    load = subprocess.Popen(['wrk', '-t2', f'-c{conns}', '-d3s', f'http://127.0.0.1:{port}/'],
                            stdout=subprocess.PIPE, text=True)
    time.sleep(1.0)
    subprocess.run(['perf', 'record', '-q', '-a', '-e', EVENTS, '-o', out, '--', 'sleep', '0.5'],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    rps = re.search(r'Requests/sec:\s+([\d.]+)', load.communicate()[0])
    server.stdin.close()
    server.wait()
    return float(rps.group(1)) if rps else 0.0


def tally(data):
    text = subprocess.run(['perf', 'script', '-i', data, '-F', 'comm,tid,cpu,time,event,trace'],
                          capture_output=True, text=True).stdout
    names, writes, waits, ready = {}, collections.Counter(), collections.Counter(), collections.Counter()
    sleeps, preempted, timeout = collections.Counter(), collections.Counter(), {}
    wakes = collections.Counter()
    first = last = None
    for line in text.splitlines():
        m = LINE.match(line)
        if not m or m.group(1).startswith('perf'):
            continue
        comm, tid, cpu, t, ev, rest = m.groups()
        tid, t = int(tid), float(t)
        first = first if first is not None else t
        last = t
        names[tid] = comm
        if ev.endswith(('enter_write', 'enter_writev', 'enter_sendto')):
            writes[tid] += 1
        elif ev.endswith('enter_epoll_wait'):
            timeout[tid] = int(re.search(r'timeout: 0x([0-9a-f]+)', rest).group(1), 16)
        elif ev.endswith('exit_epoll_wait'):
            waits[tid] += 1
            ready[tid] += int(re.search(r'0x([0-9a-f]+)', rest).group(1), 16)
        elif ev == 'sched:sched_switch':
            prev = re.search(r'prev_pid=(\d+).*prev_state=(\S+)', rest)
            (sleeps if prev.group(2).startswith(('S', 'D')) else preempted)[int(prev.group(1))] += 1
        elif ev == 'sched:sched_wakeup':
            w = re.search(r'comm=(.+?) pid=\d+.*target_cpu=(\d+)', rest)
            wakes[(comm, w.group(1), 'same CPU' if int(w.group(2)) == int(cpu) else 'across')] += 1
    secs = max(last - first, 1e-9) if first is not None else 1.0
    return names, writes, waits, ready, sleeps, preempted, wakes, secs


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binp, conns = sys.argv[1], int(sys.argv[2])
    for name, env, port, server in http_variants.parse(sys.argv[3:], binp, 18400):
        with tempfile.TemporaryDirectory() as d:
            data = os.path.join(d, 'perf.data')
            rps = record(server, env, conns, port, data)
            names, writes, waits, ready, sleeps, preempted, wakes, secs = tally(data)
        print(f'== {name}: {rps:.0f} req/s under tracing, {secs * 1e3:.0f} ms traced')
        print(f'  {"thread":16} {"tid":>7} {"writes/s":>9} {"waits/s":>8} {"ready/wait":>10}'
              f' {"sleeps/s":>9} {"preempted/s":>11}')
        for tid in sorted(names):
            if writes[tid] + waits[tid] < 10:
                continue
            print(f'  {names[tid]:16} {tid:7} {writes[tid] / secs:9.0f} {waits[tid] / secs:8.0f}'
                  f' {ready[tid] / max(waits[tid], 1):10.2f} {sleeps[tid] / secs:9.0f}'
                  f' {preempted[tid] / secs:11.0f}')
        print('  wake-ups/s (waker -> wakee):')
        for (waker, wakee, where), n in wakes.most_common(8):
            print(f'    {n / secs:7.0f}  {waker} -> {wakee} ({where})')


if __name__ == '__main__':
    main()
