import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isOverdueSql, overdueFrom } from './overdue.js';

/**
 * A customer's account status, as SQL over `customers`: PoorStanding while at least one posted
 * invoice is unpaid and overdue (the spec's one stated rule; overdue as ./overdue.ts says),
 * otherwise the stored status (Good, or Collection when set). Reads and list filters use this one
 * expression, so they always agree. `now`: the account's time.
 */
export const customerAccountStatusSql = (now: Date) => sql<string>`(case when exists (
    select 1 from ledger_entries le
    where le.customer_id = customers.id and le.entry_type = 'invoice' and le.open_amount > 0 and ${isOverdueSql('le.dueAt', now)}
  ) then 'PoorStanding' else customers.customer_account_status end)`;

/** When a customer's account status last changed between Good and PoorStanding, as of `now`. */
export interface AccountStatusChanges {
  /** Start of the PoorStanding spell running at `now` (null: the customer is not PoorStanding). */
  poorStandingSince: Date | null;
  /** The last move into or out of PoorStanding at or before `now` (null: never PoorStanding). */
  lastChangeAt: Date | null;
}

/**
 * Derived from the ledger, like the status itself: each invoice kept the customer PoorStanding from
 * when it was both open and overdue (the later of its posting, or reopening by a refund, and the
 * start of the day after its due date) until it was settled (its open amount reached zero). The
 * status changes where the union of those spells starts or ends. Spells of one invoice before its
 * last reopening are not kept (only its last opening and settling are): an invoice paid, refunded
 * and paid again counts from its reopening.
 */
export async function accountStatusChanges(db: Queryable, customerId: number, now: Date): Promise<AccountStatusChanges> {
  const rows = await db
    .selectFrom('ledgerEntries')
    .select(['dueAt', 'openedAt', 'settledAt', sql<boolean>`open_amount > 0`.as('open')])
    .where('customerId', '=', customerId)
    .where('entryType', '=', 'invoice')
    .where(isOverdueSql('ledgerEntries.dueAt', now))
    // still open, or settled after its due date: the only invoices that were ever overdue
    .where((eb) => eb.or([eb('openAmount', '>', '0'), eb('settledAt', '>=', eb.ref('dueAt'))]))
    .execute();
  // The spells agree with the ledger as it is: an open invoice (overdue, by the query) is PoorStanding
  // at `now`, a settled one is not. Times after `now` come only from writes dated ahead of the clock
  // that reads them (a test's; an account's clock never runs back): an invoice opened later counts
  // from `now`, and one settled later has no spell before `now` that could be told.
  const at = now.getTime();
  const spells = rows
    .map((row) => {
      const from = Math.max(new Date(row.openedAt).getTime(), overdueFrom(new Date(row.dueAt ?? row.openedAt)).getTime());
      if (row.open || row.settledAt === null) return { from: Math.min(from, at), until: Infinity };
      return { from, until: new Date(row.settledAt).getTime() };
    })
    .filter((spell) => spell.until > spell.from && (spell.until === Infinity || spell.until <= at))
    .sort((a, b) => a.from - b.from);

  // Merged: a spell that starts when (or before) the previous one ends continues it.
  const merged: Array<{ from: number; until: number }> = [];
  for (const spell of spells) {
    const last = merged.at(-1);
    if (last && spell.from <= last.until) last.until = Math.max(last.until, spell.until);
    else merged.push({ ...spell });
  }
  const running = merged.find((spell) => spell.until > at);
  if (running) return { poorStandingSince: new Date(running.from), lastChangeAt: new Date(running.from) };
  const last = merged.at(-1);
  return { poorStandingSince: null, lastChangeAt: last ? new Date(last.until) : null };
}
