#!/usr/bin/env bash
# `npm test`: lint, types, then every package's tests. Each package runs all its passes even when one fails,
# and the failures of every vitest run are repeated at the end (CI logs are read from the tail), then the
# time each phase took.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/phase-time.sh
export RENEW_TEST_FAILURES="${RENEW_TEST_FAILURES:-$PWD/.test-failures.log}"
export RENEW_TEST_TIMES="${RENEW_TEST_TIMES:-$PWD/.test-times.log}"
: > "$RENEW_TEST_FAILURES"
: > "$RENEW_TEST_TIMES"
started=$SECONDS
status=0
# One build (the server's JavaScript, the widget, the console, the capture host's scripts): the compiled-start tests,
# the demo store's and the end-to-end tests use it, and their own build checks (scripts/build.mjs --if-changed) find it current.
phase lint npm run lint && phase typecheck npm run typecheck && phase build npm run build || exit 1
# Every workspace with a test script, in package.json's order (what `npm run test --workspaces --if-present` ran).
for workspace in $(node -p "require('./package.json').workspaces.join(' ')"); do
  if node -e "process.exit(require('./$workspace/package.json').scripts?.test ? 0 : 1)"; then
    phase "$workspace (all of it)" npm run test -w "$workspace" || status=1
  fi
done
if [ -s "$RENEW_TEST_FAILURES" ]; then
  echo
  echo "=== failed tests (all vitest runs) ==="
  cat "$RENEW_TEST_FAILURES"
  status=1
fi
echo
echo "=== time per phase ==="
cat "$RENEW_TEST_TIMES"
took=$((SECONDS - started))
printf '%-34s %3dm%02ds\n' total $((took / 60)) $((took % 60))
exit $status
