import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthsPerPeriodSql } from '../../src/plans/repository.js';
import { MONTHS_PER_INTERVAL, monthsPerPeriod, type BillingInterval } from '../../src/plans/recurring-revenue.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

// One MRR rule: the API's monthlyRecurringRevenue (monthsPerPeriod) and the console's revenue SQL
// (monthsPerPeriodSql) read the same table of months per interval. The console's current month
// equalling the API's sum is checked in test/console/reads-revenue.test.ts.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('months per billing period', () => {
  it('the SQL the console runs gives, on the real database, the months the API divides by, for every interval and count', async () => {
    const cases = (Object.keys(MONTHS_PER_INTERVAL) as BillingInterval[]).flatMap((interval) =>
      [1, 2, 3, 6].map((numberOfIntervals) => ({ interval, numberOfIntervals })),
    );
    const values = sql.join(cases.map((c) => sql`(${c.interval}::text, ${c.numberOfIntervals}::int)`));
    const rows = await sql<{ interval: string; n: number; months: number | string }>`
      select f.interval, f.n, ${monthsPerPeriodSql('f.interval', 'f.n')} as months from (values ${values}) as f (interval, n)
    `.execute(t.database.db);
    expect(rows.rows).toHaveLength(cases.length);
    for (const row of rows.rows)
      expect(Number(row.months), `${row.interval} × ${row.n}`).toBe(
        monthsPerPeriod({ interval: row.interval as BillingInterval, numberOfIntervals: row.n }),
      );
    expect(monthsPerPeriod({ interval: 'Yearly', numberOfIntervals: 1 })).toBe(12);
    expect(monthsPerPeriod({ interval: 'Monthly', numberOfIntervals: 3 })).toBe(3);
  });

  it('an interval the table does not know has no months in SQL (no revenue), rather than a guessed one', async () => {
    const row = await sql<{ months: number | null }>`
      select ${monthsPerPeriodSql('f.interval', 'f.n')} as months from (values ('Weekly'::text, 1::int)) as f (interval, n)
    `.execute(t.database.db);
    expect(row.rows[0]?.months).toBeNull();
  });
});
