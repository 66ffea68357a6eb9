#!/usr/bin/env bash
# A package's tests: on the embedded database, then again on PostgreSQL when TEST_DATABASE_URL names one.
# The second pass runs even when the first fails, so one CI run shows every failure.
set -uo pipefail
status=0
npx vitest run || status=1
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "--- again on PostgreSQL ($TEST_DATABASE_URL)"
  RENEW_TEST_POSTGRES_URL="$TEST_DATABASE_URL" npx vitest run || status=1
fi
exit $status
