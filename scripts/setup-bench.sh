#!/usr/bin/env bash
# Installs the load generator of the HTTP benchmark (benches/http.rs): wrk, the Debian package.
# Without it the benchmark falls back to its in-process rt client.
set -euo pipefail
if command -v wrk >/dev/null 2>&1; then
    echo "wrk already installed: $(command -v wrk)"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
$SUDO apt-get install -y wrk
