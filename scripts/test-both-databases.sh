#!/usr/bin/env bash
# A package's tests: on the embedded database, then again on PostgreSQL when TEST_DATABASE_URL names one.
# The second pass runs even when the first fails, so one CI run shows every failure. It leaves out the files
# that never reach a database (RENEW_TEST_ONLY_DATABASE_FILES, see vitest.shared.ts): they ran in the first.
# With TEST_PGBOUNCER_URL too (PgBouncer in transaction mode in front of that server), a package's chosen part
# (its `test:pgbouncer` script) runs a third time with its connections through PgBouncer.
set -uo pipefail
source "$(dirname "$0")/phase-time.sh"
package=$(basename "$PWD")
status=0
phase "$package: PGlite" npx vitest run || status=1
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "--- again on PostgreSQL ($TEST_DATABASE_URL), the files that use a database"
  # A streaming standby of it, when one is named, for the read-standby tests (billing-service/test/db/read-standby.test.ts).
  RENEW_TEST_POSTGRES_STANDBY_URL="${TEST_DATABASE_STANDBY_URL:-}" RENEW_TEST_POSTGRES_URL="$TEST_DATABASE_URL" RENEW_TEST_ONLY_DATABASE_FILES=1 phase "$package: PostgreSQL" npx vitest run || status=1
fi
if [ -n "${TEST_DATABASE_URL:-}" ] && [ -n "${TEST_PGBOUNCER_URL:-}" ] &&
  node -e "process.exit(require('./package.json').scripts?.['test:pgbouncer'] ? 0 : 1)"; then
  echo "--- again through PgBouncer ($TEST_PGBOUNCER_URL): npm run test:pgbouncer"
  RENEW_TEST_POSTGRES_URL="$TEST_DATABASE_URL" RENEW_TEST_PGBOUNCER_URL="$TEST_PGBOUNCER_URL" RENEW_TEST_ONLY_DATABASE_FILES=1 \
    phase "$package: PgBouncer" npm run --silent test:pgbouncer || status=1
fi
exit $status
