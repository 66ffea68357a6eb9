#!/usr/bin/env bash
# `npm test`: lint, types, then every package's tests. Each package runs all its passes even when one fails,
# and the failures of every vitest run are repeated at the end (CI logs are read from the tail).
set -uo pipefail
cd "$(dirname "$0")/.."
export RENEW_TEST_FAILURES="${RENEW_TEST_FAILURES:-$PWD/.test-failures.log}"
: > "$RENEW_TEST_FAILURES"
status=0
npm run lint && npm run typecheck && npm run build -w @renew/widget && npm run build -w @renew/console || exit 1
npm run test --workspaces --if-present || status=1
if [ -s "$RENEW_TEST_FAILURES" ]; then
  echo
  echo "=== failed tests (all vitest runs) ==="
  cat "$RENEW_TEST_FAILURES"
  status=1
fi
exit $status
