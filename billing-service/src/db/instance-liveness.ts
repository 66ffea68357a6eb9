import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from './database.js';

export interface LivenessOptions {
  /** How often the instance's heartbeat is written (default 2 s). */
  heartbeatMs?: number;
  /** A holder whose heartbeat is older than this is dead and its claims are taken over (default 30 s, RENEW_CLAIM_STALE_MS). */
  staleAfterMs?: number;
  /** Where heartbeats are written (default: the instance's database): a pool of their own, so busy statements do not delay them. */
  heartbeatDb?: Db;
}

export const DEFAULT_HEARTBEAT_MS = 2_000;
/**
 * Well above the scheduling delays a live process meets: heartbeats 12 s apart were seen on a busy
 * 2-core machine with no fault at all (10 s judged it dead and sent its e-mails twice). The price is
 * the time a killed instance's claims wait; fencing (db/claims.ts), not this margin, keeps a paused
 * holder from recording twice.
 */
export const DEFAULT_STALE_AFTER_MS = 30_000;

/**
 * This process's identity for claims, and its heartbeat. Every claim a process
 * makes (an idempotency key in flight, an outbox e-mail or webhook being sent, a
 * bulk record being paid, a test-clock advance) carries `id`; the claim is taken
 * over once the holder's heartbeat is older than `staleAfterMs`. Heartbeats are
 * written on the database's clock (`now()`), so hosts whose clocks differ agree.
 *
 * While the database is away nobody's heartbeat is written. So that a process
 * which comes back first does not judge the others dead before they have had the
 * chance to beat again, a process judges others only once its own heartbeats have
 * gone through unbroken for `staleAfterMs` (`mayJudgeOthers`).
 */
export class InstanceLiveness {
  readonly id = randomUUID();
  readonly heartbeatMs: number;
  readonly staleAfterMs: number;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  /** Monotonic time of the first heartbeat of the current unbroken run of them; unset after a failed one. */
  private aliveSince: number | undefined;
  private users = 0;
  private readonly heartbeatDb: Db;
  /** Monotonic time of the last heartbeat that went through. */
  private lastBeatAt: number | undefined;
  /** The longest time between two heartbeats that went through since start (ms): how close a live process came to being judged dead. */
  worstGapMs = 0;

  constructor(
    private readonly db: Db,
    readonly role: string,
    options: LivenessOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.heartbeatDb = options.heartbeatDb ?? db;
  }

  /** Whether this process's own heartbeats have gone through for `staleAfterMs`: only then may it take over others' claims. */
  get mayJudgeOthers(): boolean {
    return this.aliveSince !== undefined && performance.now() - this.aliveSince >= this.staleAfterMs;
  }

  /**
   * Starts beating (counted: two apps of one process, e.g. `npm start`, share one
   * instance; the row goes when the last stops). The first beat is awaited so the
   * instance exists before it claims anything; a database that is away now is not
   * an error (the next beat registers it).
   */
  async start(): Promise<void> {
    this.users += 1;
    if (this.timer) return;
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref();
    await this.beat();
  }

  /** Writes the heartbeat (registering the instance if its row is missing); never throws. */
  beat(): Promise<void> {
    this.beating ??= this.writeHeartbeat().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async writeHeartbeat(): Promise<void> {
    try {
      await sql`
        insert into service_instances (id, role, host, pid) values (${this.id}, ${this.role}, ${hostname()}, ${process.pid})
        on conflict (id) do update set heartbeat_at = now()`.execute(this.heartbeatDb);
      const now = performance.now();
      if (this.lastBeatAt !== undefined) this.worstGapMs = Math.max(this.worstGapMs, now - this.lastBeatAt);
      this.lastBeatAt = now;
      this.aliveSince ??= now;
    } catch {
      // the database is away: this instance stops judging others until its own beats run unbroken again
      this.aliveSince = undefined;
      this.lastBeatAt = undefined; // a gap across an outage is the database's, not this process's scheduling
    }
  }

  /** Stops beating and removes the row, so this instance's leftover claims are free at once (a killed process's lapse after `staleAfterMs`). */
  async stop(): Promise<void> {
    this.users = Math.max(0, this.users - 1);
    if (this.users > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    this.aliveSince = undefined;
    await this.db
      .deleteFrom('serviceInstances')
      .where('id', '=', this.id)
      .execute()
      .catch(() => undefined);
    // rows of instances gone for a day: nothing claims in their name any more
    await sql`delete from service_instances where heartbeat_at < now() - interval '1 day'`.execute(this.db).catch(() => undefined);
  }

  /**
   * SQL: true when the claim's holder (the column `holderColumn`, an instance id or null)
   * may be taken over by this instance: nobody holds it, or the holder's heartbeat is
   * older than `staleAfterMs` and this instance may judge others.
   */
  /**
   * SQL: true while this instance's own last heartbeat is younger than half `staleAfterMs`, so that
   * nobody may take its claims for at least that long. Checked (with the claim token) right before an
   * effect outside the database (an e-mail, a webhook): a holder that was paused past that does not
   * send, and leaves the claim to whoever takes it. An instance that does not beat (a private one
   * in tests, whose claims lapse only by lease) is always fresh.
   */
  ownHeartbeatFresh(): RawBuilder<SqlBool> {
    if (!this.timer) return sql<SqlBool>`true`;
    return sql<SqlBool>`exists (
      select 1 from service_instances si
      where si.id = ${this.id} and si.heartbeat_at > now() - ${Math.floor(this.staleAfterMs / 2)} * interval '1 millisecond')`;
  }

  holderGone(holderColumn: string): RawBuilder<SqlBool> {
    const holder = sql.ref(holderColumn);
    if (!this.mayJudgeOthers) return sql<SqlBool>`(${holder} is null)`;
    return sql<SqlBool>`(${holder} is null or not exists (
      select 1 from service_instances si
      where si.id = ${holder} and si.heartbeat_at > now() - ${this.staleAfterMs} * interval '1 millisecond'))`;
  }
}
