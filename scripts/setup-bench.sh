#!/usr/bin/env bash
# Installs the load generators of the benchmarks that drive real servers: wrk (benches/http.rs,
# scripts/http-ab.py, scripts/service-cost.py http) and redis-benchmark from Debian's redis-tools
# (scripts/service-cost.py redis). Without wrk the HTTP benchmark falls back to its in-process rt
# client.
set -euo pipefail
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v redis-benchmark >/dev/null 2>&1 || missing+=(redis-tools)
if [ ${#missing[@]} -eq 0 ]; then
    echo "load generators already installed: $(command -v wrk) $(command -v redis-benchmark)"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
$SUDO apt-get install -y "${missing[@]}"
