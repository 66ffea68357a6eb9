/**
 * Whether an error means the database could not be reached or dropped the connection
 * (a restart, a failover, a network cut), as opposed to a statement it refused. Such a
 * failure is the database's, not the client's nor a bug: the request is answered 503 and
 * may be retried, and background work waits and tries again.
 */

/**
 * SQLSTATEs of a lost or refused connection (admin_shutdown, crash_shutdown, cannot_connect_now,
 * too_many_connections), and of a session or statement the server gave up on under the limits set in
 * database.ts (idle_in_transaction_session_timeout, lock_not_available: a lock held by a frozen
 * process), and of a write sent to a read-only server (read_only_sql_transaction, 25006: a connection
 * still open to a primary that a failover demoted, or made during the switch): all say "retry later",
 * and the connection is not reused (prepared-statements.ts), so the retry reaches the new primary.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '25P03', '55P03', '25006']);

/** Socket errors of a server that is down, restarting or unreachable. */
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * pg's and pg-pool's own words for a connection that ended or never came: they carry no code.
 * "Connection terminated unexpectedly" (the server went away), "Connection terminated due to
 * connection timeout", "timeout exceeded when trying to connect" (the pool's connectionTimeoutMillis),
 * "Client has encountered a connection error and is not queryable".
 */
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * PgBouncer's words for a server it lost or cannot reach, or a wait it gave up (README "PgBouncer"): it sends
 * them as 08P01, the code of a protocol violation, so they are told apart by their text.
 */
const POOLER_UNAVAILABLE_MESSAGE =
  /^(server conn crashed\?|server login has been failing|query_wait_timeout|no more connections allowed|pgbouncer cannot connect to server|idle_transaction_timeout)/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Class 08: connection exception (08000, 08003, 08006, 08001 …), except a protocol violation
    // (08P01: a statement the server could not read, such as one with over 65,535 parameters), a bug that retrying does not cure.
    if (code === '08P01') return POOLER_UNAVAILABLE_MESSAGE.test(error.message);
    if (UNAVAILABLE_SQLSTATES.has(code) || (code.length === 5 && code.startsWith('08')) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  if (UNAVAILABLE_MESSAGE.test(error.message)) return true;
  // Node's connect to a name with several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError.
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}
