#!/usr/bin/env python3
"""Counts the wake-ups of an idle server's threads: starts SERVER (a command that listens on
ADDR), opens CONNS connections that then stay silent, waits SETTLE seconds, and counts each
thread's context switches (voluntary + involuntary, /proc/PID/task/*/status) over SECONDS.
A runtime with nothing to do should make none.

Usage: scripts/idle-wakeups.py [--conns N] [--seconds S] [--addr HOST:PORT] -- SERVER ARGS...
Example: scripts/idle-wakeups.py -- target/release/examples/echo_server 127.0.0.1:7878
"""
import argparse
import os
import socket
import subprocess
import sys
import time


def switches(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                st = dict(line.split(":", 1) for line in f if ":" in line)
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except FileNotFoundError:
            continue
        n = int(st["voluntary_ctxt_switches"]) + int(st["nonvoluntary_ctxt_switches"])
        out[tid] = (name, n)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conns", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--settle", type=float, default=1.0)
    ap.add_argument("--addr", default="127.0.0.1:7878")
    ap.add_argument("server", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = [c for c in a.server if c != "--"]
    host, port = a.addr.rsplit(":", 1)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        conns = []
        while True:
            try:
                conns.append(socket.create_connection((host, int(port))))
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    sys.exit("server did not start listening")
                time.sleep(0.05)
        for _ in range(a.conns - 1):
            conns.append(socket.create_connection((host, int(port))))
        # One round trip on each, so every connection task has run and is waiting.
        for c in conns:
            c.sendall(b"x")
        for c in conns:
            c.recv(1)
        time.sleep(a.settle)
        before = switches(proc.pid)
        time.sleep(a.seconds)
        after = switches(proc.pid)
        total = 0
        for tid, (name, n) in sorted(after.items(), key=lambda kv: kv[1][0]):
            d = n - before.get(tid, (name, 0))[1]
            total += d
            print(f"{name:16} tid {tid:>7}: {d:6d} switches")
        print(f"idle-wakeups: {total} switches in {a.seconds:.0f} s "
              f"({total / a.seconds:.1f}/s) with {a.conns} silent connections")
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
