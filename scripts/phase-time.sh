# Sourced by test-all.sh and test-both-databases.sh: `phase NAME COMMAND…` runs the command and appends its
# wall time to RENEW_TEST_TIMES (when set), which `npm test` prints at its end; returns the command's status.
phase() {
  local name=$1 start=$SECONDS status
  shift
  "$@"
  status=$?
  if [ -n "${RENEW_TEST_TIMES:-}" ]; then
    local took=$((SECONDS - start))
    printf '%-34s %3dm%02ds%s\n' "$name" $((took / 60)) $((took % 60)) "$([ $status -eq 0 ] || echo '  (failed)')" >>"$RENEW_TEST_TIMES"
  fi
  return $status
}
