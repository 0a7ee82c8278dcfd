"""What the HTTP bench scripts (`http-ab.py`, `http-prof.py`, `sched-tally.py`) share: the VARIANT
grammar, and finding and pinning a process's threads.

A VARIANT is NAME or NAME:KEY=VALUE,KEY=VALUE. The pairs are environment for that server; a
NAME starting with "tokio" serves hyper on tokio, any other rt; the key BIN=PATH runs that
variant from another build of the http bench binary instead of the default one.
"""
import os
import subprocess


def parse(specs, default_bin, first_port):
    """[(name, env, port, bin)] for `specs`, the i-th listening on first_port + i."""
    out = []
    for i, spec in enumerate(specs):
        name, _, pairs = spec.partition(':')
        env = dict(os.environ)
        env['HTTP_BENCH_SERVE'] = 'tokio' if name.startswith('tokio') else 'rt'
        for kv in filter(None, pairs.split(',')):
            k, _, v = kv.partition('=')
            env[k] = v
        port = first_port + i
        env['HTTP_BENCH_ADDR'] = f'127.0.0.1:{port}'
        out.append((name, env, port, env.pop('BIN', default_bin)))
    return out


def threads(pid, comm):
    """The ids of `pid`'s threads named `comm` (the main thread left out), in creation order."""
    out = []
    for t in sorted(os.listdir(f'/proc/{pid}/task'), key=int):
        try:
            if open(f'/proc/{pid}/task/{t}/comm').read().strip() == comm and int(t) != pid:
                out.append(int(t))
        except FileNotFoundError:
            pass
    return out


def pin(tid, cpu):
    """Pins thread `tid` to CPU `cpu`."""
    subprocess.run(['taskset', '-p', '-c', str(cpu), str(tid)], stdout=subprocess.DEVNULL, check=True)
