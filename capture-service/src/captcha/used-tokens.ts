import { wallClockNow } from '@renew/billing-service';
import { createHash } from 'node:crypto';
import { reusableQuery, type CustomerRow, type Db, type Queryable } from '@renew/billing-service/db';

const KEEP_MS = 86_400_000;
const SWEEP_EVERY_MS = 600_000;

const claimTokenHash = reusableQuery((db: Db, tokenHash: string, usedAt: Date) =>
  db
    .insertInto('usedCaptchaTokens')
    .values({ tokenHash, usedAt })
    .onConflict((oc) => oc.column('tokenHash').doNothing())
    .returning('tokenHash'),
);

// The claim and the read of the customer the capture is for, in one round trip: the customer row
// (every column, null ones when there is no such customer) and whether the token was new.
const claimTokenHashReadingCustomer = reusableQuery(
  (db: Queryable, tokenHash: string, usedAt: Date, accountId: number, customerId: number) =>
    db
      .with('claim', (qc) =>
        qc
          .insertInto('usedCaptchaTokens')
          .values({ tokenHash, usedAt })
          .onConflict((oc) => oc.column('tokenHash').doNothing())
          .returning('tokenHash'),
      )
      .with('oneRow', (qc) => qc.selectNoFrom((eb) => eb.lit(1).as('one')))
      .selectFrom('oneRow')
      .leftJoin('customers', (join) => join.on('customers.accountId', '=', accountId).on('customers.id', '=', customerId))
      .selectAll('customers')
      .select((eb) => eb.exists(eb.selectFrom('claim').select('claim.tokenHash')).as('claimed')),
);

/**
 * Single use of CAPTCHA tokens: a token's SHA-256 is inserted into
 * used_captcha_tokens before it is verified; a conflict means it was used
 * before (in this or another instance sharing the database).
 */
export class UsedCaptchaTokens {
  private lastSweep = 0;

  constructor(private readonly db: Db) {}

  static hash(token: string): string {
    return createHash('sha256').update(token, 'utf8').digest('hex');
  }

  /** true: the token was not seen before and is now spent. */
  async claim(token: string, now = wallClockNow().getTime()): Promise<boolean> {
    const rows = await claimTokenHash(this.db, UsedCaptchaTokens.hash(token), new Date(now));
    this.sweep(now);
    return rows.length > 0;
  }

  /**
   * claim, reading the account's customer in the same statement (saves a round trip per capture):
   * `customer` is undefined when the account has no such customer. `customerId` must be a storable id.
   */
  async claimReadingCustomer(
    token: string,
    accountId: number,
    customerId: number,
    now = wallClockNow().getTime(),
  ): Promise<{ claimed: boolean; customer: CustomerRow | undefined }> {
    const [row] = await claimTokenHashReadingCustomer(this.db, UsedCaptchaTokens.hash(token), new Date(now), accountId, customerId);
    this.sweep(now);
    // The statement answers one row whether or not the token was claimed or the customer exists.
    if (!row) throw new Error('claiming a CAPTCHA token answered no row');
    const { claimed, ...customer } = row;
    return { claimed: Boolean(claimed), customer: customer.id === null ? undefined : (customer as CustomerRow) };
  }

  /** Gives a claimed token back, when it could not be verified at all (the CAPTCHA service was down). */
  async release(token: string): Promise<void> {
    await this.db.deleteFrom('usedCaptchaTokens').where('tokenHash', '=', UsedCaptchaTokens.hash(token)).execute();
  }

  /** Rows older than a day are deleted now and then, in the background (reCAPTCHA tokens expire after two minutes). */
  private sweep(now: number) {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    void this.db
      .deleteFrom('usedCaptchaTokens')
      .where('usedAt', '<', new Date(now - KEEP_MS))
      .execute()
      .catch(() => undefined);
  }
}
