#!/usr/bin/env bash
# `npm run setup:test`: installs what the full test suite needs beyond npm, where apt is available
# (Debian's chromium for the editor's browser tests, postgresql for the PostgreSQL suites, pgbouncer
# for the suites that run through it in transaction mode, haproxy for the suites that run several
# servers behind it, neovim for the language server's third-party client test, ripgrep and a
# code-server build of VS Code for the extension's end-to-end test: scripts/install-vscode.sh),
# starts a PostgreSQL cluster with a test database, and prints the two variables `npm test` reads.
# Without them those suites are skipped with the reason printed. .ci/run sources this script.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup:test: no apt-get here; install Chromium, PostgreSQL, PgBouncer, HAProxy and Neovim yourself, then set CHROMIUM_PATH and TEST_DATABASE_URL" >&2
  exit 1
fi
if ! command -v chromium >/dev/null 2>&1 || ! command -v pg_ctlcluster >/dev/null 2>&1 || ! command -v pgbouncer >/dev/null 2>&1 || ! command -v haproxy >/dev/null 2>&1 || ! command -v nvim >/dev/null 2>&1 || ! command -v rg >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium postgresql pgbouncer haproxy neovim ripgrep >/dev/null
fi
# VS Code (code-server, about 350 MB, 2 to 3 minutes the first time): a failure here only skips its test.
bash "$(dirname "${BASH_SOURCE[0]}")/install-vscode.sh" || echo "setup:test: VS Code (code-server) could not be installed: the extension's end-to-end test will skip" >&2

ver=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | grep -q online; then
  pg_lsclusters -h | grep -q "^$ver" || $SUDO pg_createcluster "$ver" main >/dev/null
  $SUDO pg_ctlcluster "$ver" main start
fi
$SUDO su postgres -c "psql -qtAc \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null
$SUDO su postgres -c "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname='setup_pack_test'\"" | grep -q 1 \
  || $SUDO su postgres -c "createdb setup_pack_test"

export TEST_DATABASE_URL="postgres://postgres:postgres@127.0.0.1:5432/setup_pack_test"
export CHROMIUM_PATH="$(command -v chromium)"
cat <<MSG
setup:test: Chromium, PostgreSQL, PgBouncer, HAProxy, Neovim and VS Code are ready. For the full suite:
  export TEST_DATABASE_URL=$TEST_DATABASE_URL
  export CHROMIUM_PATH=$CHROMIUM_PATH
  npm test
MSG
