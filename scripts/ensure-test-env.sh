#!/usr/bin/env bash
# Makes sure what the test suite needs outside npm is present on this machine:
# Debian's Chromium for the browser tests and a running local PostgreSQL.
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  echo "Installing Debian chromium for the browser tests..."
  if [ "$(id -u)" -ne 0 ]; then
    echo "chromium is missing and this is not root: run 'sudo apt-get install -y chromium'" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  echo "Starting the local PostgreSQL cluster..."
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  echo "PostgreSQL is not reachable on 127.0.0.1:5432; the PostgreSQL tests need it." >&2
  exit 1
fi
