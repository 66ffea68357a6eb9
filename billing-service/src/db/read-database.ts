import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

type Db = Kysely<Database>;

/** Where a stale-tolerant read goes right now. */
export type ReadSource = 'standby' | 'primary';
type StandbyState = 'current' | 'behind' | 'unreachable';

/** At most this often the standby's lag is measured (cached between checks, never per request). */
export const READ_CHECK_INTERVAL_MS = 1_000;

const MAX_SAMPLES = 3_600;

interface Sample {
  at: number;
  lsn: bigint;
}

/** '16/B374D848' → its byte position. */
export function lsnOf(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * Reads that tolerate staleness (the console's lists, revenue, CSV exports) go to a streaming standby while it is
 * at most `maxLagMs` behind; otherwise, or when it is unreachable, to the primary. Lag is not
 * `now() - pg_last_xact_replay_timestamp()`, which grows on an idle primary: each check notes the primary's
 * `pg_current_wal_lsn()` and when, and the standby is as old as the newest noted position its
 * `pg_last_wal_replay_lsn()` has reached. An idle primary does not move, so an idle standby stays current.
 */
export class StaleReads {
  private state: StandbyState = 'unreachable';
  private samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly primary: Db,
    private readonly standby: Db | undefined,
    private readonly options: { maxLagMs: number; log?: (message: string) => void; onSource?: (source: ReadSource) => void } = {
      maxLagMs: 0,
    },
  ) {}

  /** The database for a stale-tolerant read now: the standby while it is current, else the primary. */
  db(): Db {
    return this.source() === 'standby' && this.standby ? this.standby : this.primary;
  }

  source(): ReadSource {
    return this.standby && this.state === 'current' ? 'standby' : 'primary';
  }

  /** Measures at once, then every READ_CHECK_INTERVAL_MS; no-op without a standby. */
  async start(): Promise<void> {
    if (!this.standby) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), READ_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** One measurement (a check already running is waited for, not doubled). */
  check(): Promise<void> {
    this.checking ??= this.measure().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async measure(): Promise<void> {
    if (!this.standby) return;
    try {
      const at = performance.now();
      const primary = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(this.primary);
      this.samples.push({ at, lsn: lsnOf(primary.rows[0]?.lsn ?? '0/0') });
      // A standby stuck for an hour is behind whatever the bound; older samples add nothing.
      if (this.samples.length > MAX_SAMPLES) this.samples.shift();
      const replayed = await sql<{ lsn: string | null }>`select pg_last_wal_replay_lsn()::text as lsn`.execute(this.standby);
      const lsn = replayed.rows[0]?.lsn;
      // null: not a standby (a promoted or misconfigured server); its data may be anything, so it is not read.
      if (!lsn) return this.become('unreachable', 'the read database is not a standby');
      const standbyAt = lsnOf(lsn);
      const reached = this.samples.filter((s) => s.lsn <= standbyAt).at(-1);
      // Not even the oldest position noted is replayed: its lag is unknown (a just-started instance), so not read.
      if (!reached) return this.become('behind', 'the read standby has not replayed what the primary had a check ago');
      this.samples = this.samples.filter((s) => s.at >= reached.at);
      const lagMs = performance.now() - reached.at;
      this.become(lagMs <= this.options.maxLagMs ? 'current' : 'behind', `the read standby is ${(lagMs / 1000).toFixed(1)} s behind`);
    } catch (error) {
      this.become('unreachable', `the read standby is unreachable (${(error as Error).message})`);
    }
  }

  private become(state: StandbyState, why: string) {
    if (state === this.state) return;
    const before = this.source();
    this.state = state;
    // Logged once per change of state, not per check.
    this.options.log?.(
      state === 'current' ? 'stale-tolerant reads go to the read standby' : `stale-tolerant reads go to the primary: ${why}`,
    );
    if (this.source() !== before) this.options.onSource?.(this.source());
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.checking;
    await this.standby?.destroy();
  }
}
