/**
 * Model-based test of the ledger (issues 11 and 24): random sequences of commands run against the
 * real service on a fresh database and against the reference model of ledger-model.ts; after every
 * step harness.ts checks the ledger's invariants and that both agree on every amount.
 *
 * Each sequence starts a customer with one to three BASIC subscriptions (every 1, 2 or 3 months or 2
 * years), each with up to two coupons in random order (10 % once, 5.00 for three periods, 100 %
 * forever, 100 % once, 50 % for two periods), on SingleInvoice or MultipleInvoices per interval.
 * Besides single commands, a step may be hold → time passes → unhold, or cancel → time passes →
 * uncancel, so returns mid-period and after whole periods are common. Runs are in USD (half), JPY
 * or BHD; start days favour month ends and February 2028. Plan changes (issue 28): to another BASIC
 * or PLUS frequency (BASIC → PLUS allowed, PLUS → BASIC and → PRO refused), other seats (sometimes out
 * of bounds), now, at the period end or by default, half of them previewed first (preview = posted,
 * line by line), often right after the clock caught up; and withdrawals of a pending change.
 *
 * Environment:
 *   RENEW_MODEL_RUNS=n          sequences (default 25, about 20 commands each; the count is printed)
 *   RENEW_MODEL_MAX_COMMANDS=n  commands per sequence at most (default 30)
 *   RENEW_MODEL_DRAFTS=1        also activations and unholds with temporarilyDisableAutoPost, and
 *                               POST /v1/invoices/{id}/post (the endpoint of issue 24, item 5)
 *   RENEW_MODEL_RACE=1          also 2-4 concurrent card payments explicitly allocated to one invoice
 *                               (exactly one honoured, the card charged once: issue 24, item 1)
 *   RENEW_MODEL_KEEP_GOING=1    a failing sequence is recorded and the campaign goes on (no
 *                               shrinking); every failure is printed at the end, then the test fails
 *   RENEW_MODEL_SEED, RENEW_MODEL_PATH   replay a failure fast-check reported (it shrinks it)
 *   RENEW_MODEL_NO_SHRINK=1     stop at the first failure without shrinking
 *
 * A campaign of more than 10,000 commands, with everything on (after the fixes of N1-N4, 600 runs gave
 * 11,680 commands in 654 s on PGlite and 11,359 in 516 s on PostgreSQL, none failing, on a shared
 * machine under load; the sequences it found failing before are in found-sequences.test.ts):
 *   cd billing-service && RENEW_MODEL_RUNS=600 RENEW_MODEL_DRAFTS=1 RENEW_MODEL_RACE=1 RENEW_MODEL_KEEP_GOING=1 \
 *     npx vitest run test/ledger-model/ledger-model.test.ts
 * and the same on PostgreSQL with RENEW_TEST_POSTGRES_URL=postgres://… in front. With plan changes (issue 28),
 * RENEW_MODEL_RUNS=270 RENEW_MODEL_DRAFTS=1 RENEW_MODEL_KEEP_GOING=1 gave 5,897 commands on PGlite (1,279 changes,
 * 223 applied) and 6,203 on PostgreSQL (1,337 changes, 220 applied), none failing; the default run (25) takes
 * about 10 s more than before.
 * With purchases, voids and write-offs (issue 40), after the fixes of the three sequences it found (found-sequences.test.ts:
 * the last invoice to bill a period decides whether an uncancel bills its rest again), the same command with 600 runs
 * gave 13,096 commands on PGlite (236 s) and 13,169 on PostgreSQL (199 s), none failing.
 * With credit notes too (a `creditNote` command: part or all of any line of any invoice), 600 runs gave 12,536 commands on
 * PGlite (483 s) and 12,647 on PostgreSQL (466 s), none failing, on a machine running other tests at the same time.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  checkAll,
  coverage,
  describeCommand,
  describeSetup,
  endRun,
  modelCatalog,
  startRun,
  step,
  type Command,
  type Run,
} from './harness.js';
import { COUPONS, type Currency, FREQUENCIES, type Setup } from './ledger-model.js';
import { dayOf, isoDay } from './model-arith.js';

const RUNS = Number(process.env.RENEW_MODEL_RUNS ?? 25);
const MAX_COMMANDS = Number(process.env.RENEW_MODEL_MAX_COMMANDS ?? 30);
const DRAFTS = process.env.RENEW_MODEL_DRAFTS === '1';
const RACE = process.env.RENEW_MODEL_RACE === '1';
const KEEP_GOING = process.env.RENEW_MODEL_KEEP_GOING === '1';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: modelCatalog(), app: { testClocks: true } });
});
afterAll(async () => t?.close());

/** One command, or a few in a row (hold, time passes, unhold). */
class ModelCommand implements fc.AsyncCommand<object, Run> {
  constructor(readonly cs: Command[]) {}
  check() {
    return true;
  }
  async run(_m: object, run: Run) {
    for (const c of this.cs) await step(run, c);
  }
  toString() {
    return this.cs.map(describeCommand).join('; ');
  }
}

const cents = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(1999, 2999, 1000, 999, 1) },
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 6000 }) },
);
const draft = DRAFTS ? fc.integer({ min: 0, max: 2 }).map((x) => x === 0) : fc.constant(false);
const unholdCommand = fc
  .record({
    option: fc.constantFrom(
      'ChargeForAllMissedPeriods' as const,
      'ChargeForLastMissedPeriods' as const,
      'NoChargesForMissedPeriods' as const,
      'ChargeForCurrentFullPeriod' as const,
    ),
    prorate: fc.boolean(),
    draft,
  })
  .map(({ draft: d, ...p }): Command => ({ type: 'unhold', ...p, ...(d ? { draft: true } : {}) }));
/**
 * A plan change: to another frequency of the model (BASIC ones, PLUS ones: BASIC → PLUS allowed, PLUS → BASIC not),
 * to PRO (-1, never allowed) or the same (null, a quantity change); seats within the bounds mostly, sometimes
 * out of them; timing given or the default (upgrades now, downgrades at the period end).
 */
const changeCommand: fc.Arbitrary<Command> = fc
  .record({
    pick: fc.nat({ max: 2 }),
    target: fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 6, arbitrary: fc.nat({ max: FREQUENCIES.length - 1 }) },
      { weight: 1, arbitrary: fc.constant(-1) },
    ),
    quantity: fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 12 }) },
      { weight: 1, arbitrary: fc.constantFrom(0, 11, 21) },
    ),
    timing: fc.constantFrom(null, 'now' as const, 'now' as const, 'periodEnd' as const),
    preview: fc.boolean(),
  })
  .map((p): Command => ({ type: 'change', ...p }));
const commandArbs: Array<fc.Arbitrary<Command>> = [
  fc
    .tuple(draft, fc.boolean())
    .map(([d, purchases]): Command => ({ type: 'activate', ...(d ? { draft: true } : {}), ...(purchases ? { purchases: true } : {}) })),
  fc
    .record({ cents, quantity: fc.integer({ min: 1, max: 3 }), invoiceNow: fc.boolean() })
    .map((p): Command => ({ type: 'purchase', ...p })),
  fc
    .oneof(
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 3 }) },
      { weight: 5, arbitrary: fc.integer({ min: 1, max: 35 }) },
      { weight: 2, arbitrary: fc.integer({ min: 25, max: 75 }) },
    )
    .map((days): Command => ({ type: 'clock', days })),
  fc.integer({ min: 1, max: 20 }).map((days): Command => ({ type: 'wait', days })),
  fc.record({ mode: fc.constantFrom('auto' as const, 'unallocated' as const), cents }).map((p): Command => ({ type: 'pay', ...p })),
  fc
    .record({
      parts: fc.array(
        fc.record({ pick: fc.nat({ max: 20 }), permille: fc.oneof(fc.constantFrom(1000, 500, 1001), fc.integer({ min: 1, max: 1200 })) }),
        { minLength: 1, maxLength: 3 },
      ),
      extraCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 })),
      short: fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
    })
    .map((p): Command => ({ type: 'payExplicit', ...p })),
  cents.map((c): Command => ({ type: 'declined', cents: c })),
  fc
    .record({
      pick: fc.nat({ max: 20 }),
      permille: fc.oneof(fc.constantFrom(1000, 500, 1), fc.integer({ min: 1, max: 1000 })),
      extraCents: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }) }),
    })
    .map((p): Command => ({ type: 'refund', ...p })),
  fc.constantFrom('None' as const, 'Unearned' as const, 'Full' as const).map((option): Command => ({ type: 'cancel', option })),
  fc.constant<Command>({ type: 'uncancel' }),
  fc.constant<Command>({ type: 'hold' }),
  unholdCommand,
  ...(DRAFTS
    ? [
        fc
          .record({ pick: fc.nat({ max: 20 }), anyInvoice: fc.integer({ min: 0, max: 4 }).map((x) => x === 0) })
          .map((p): Command => ({ type: 'postDraft', ...p })),
      ]
    : []),
  ...(RACE
    ? [fc.record({ pick: fc.nat({ max: 20 }), requests: fc.integer({ min: 2, max: 4 }) }).map((p): Command => ({ type: 'race', ...p }))]
    : []),
  // Plan changes (issue 28), three times as likely as another command: now and at the period end, previewed or not.
  changeCommand,
  changeCommand,
  changeCommand,
  fc.nat({ max: 2 }).map((pick): Command => ({ type: 'withdraw', pick })),
  // Void and write-off (issue 40) of any invoice: drafts, paid and closed ones are refused (409).
  fc.nat({ max: 20 }).map((pick): Command => ({ type: 'void', pick })),
  fc.nat({ max: 20 }).map((pick): Command => ({ type: 'writeOff', pick })),
  // Credit notes (issue 40) of any line of any invoice, a part or all of it, sometimes a cent more than is left.
  fc
    .record({
      pick: fc.nat({ max: 20 }),
      line: fc.nat({ max: 4 }),
      permille: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(1000)),
      extraCents: fc.constantFrom(0, 0, 0, 1),
    })
    .map((p): Command => ({ type: 'creditNote', ...p })),
];
/** A customer is on hold or cancelled in few of the states reached: these put it there and bring it back after a while. */
const timePasses = fc
  .record({ clock: fc.boolean(), days: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 100 })) })
  .map(({ clock, days }): Command => ({ type: clock ? 'clock' : 'wait', days }));
const holdThenUnhold = fc.tuple(timePasses, unholdCommand).map(([time, unhold]): Command[] => [{ type: 'hold' }, time, unhold]);
const cancelThenUncancel = fc
  .tuple(fc.constantFrom('None' as const, 'Unearned' as const, 'Full' as const), timePasses)
  .map(([option, time]): Command[] => [{ type: 'cancel', option }, time, { type: 'uncancel' }]);
/** The billing clock catches up, then a change: fewer changes refused because the renewal is due (409). */
const clockThenChange = fc
  .tuple(fc.integer({ min: 0, max: 40 }), changeCommand)
  .map(([days, change]): Command[] => [{ type: 'clock', days }, change]);
/**
 * Most customers of a run owe something, soon PoorStanding then Suspended (a change refused): a payment of
 * everything or more (the rest held, so the change's invoice takes it), the clock reactivates, then a change.
 */
const payThenChange = fc
  .tuple(fc.integer({ min: 5_000, max: 60_000 }), fc.integer({ min: 0, max: 3 }), changeCommand)
  .map(([cents, days, change]): Command[] => [{ type: 'pay', mode: 'auto', cents }, { type: 'clock', days }, change]);
const modelCommands = [
  ...commandArbs.map((arb) => arb.map((c) => new ModelCommand([c]))),
  clockThenChange.map((cs) => new ModelCommand(cs)),
  clockThenChange.map((cs) => new ModelCommand(cs)),
  payThenChange.map((cs) => new ModelCommand(cs)),
  payThenChange.map((cs) => new ModelCommand(cs)),
  holdThenUnhold.map((cs) => new ModelCommand(cs)),
  cancelThenUncancel.map((cs) => new ModelCommand(cs)),
];

/** Start days 2026-2028, month ends (28-31) often: the anniversary clamps there; some in February 2028 (29 days). */
const startDay = fc.oneof(
  {
    weight: 9,
    arbitrary: fc
      .record({
        year: fc.integer({ min: 2026, max: 2028 }),
        month: fc.integer({ min: 1, max: 12 }),
        day: fc.oneof(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 28, max: 31 })),
      })
      .map(({ year, month, day }) => dayOf(year, month, Math.min(day, new Date(Date.UTC(year, month, 0)).getUTCDate()))),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 29 }).map((day) => dayOf(2028, 2, day)) },
);

const frequencyId = fc.oneof(
  { weight: 3, arbitrary: fc.constant(11) },
  { weight: 4, arbitrary: fc.constantFrom(...FREQUENCIES.filter((f) => f.id !== 11).map((f) => f.id)) },
);
/** Coupons of the currency: the Amount coupon (FIVEOFF) is in USD. */
const couponCodes = (currency: Currency) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    {
      weight: 1,
      arbitrary: fc.shuffledSubarray(
        COUPONS.filter((c) => c.kind === 'Percentage' || currency === 'USD').map((c) => c.code),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );
const rule = fc.constantFrom('SingleInvoice' as const, 'MultipleInvoices' as const);
/** Half the runs in USD, a quarter each in JPY (no minor unit) and BHD (three). */
const currency = fc.constantFrom<Currency>('USD', 'USD', 'JPY', 'BHD');
const setup: fc.Arbitrary<Setup> = currency.chain((cur) =>
  fc.record({
    subscriptions: fc.oneof(
      { weight: 3, arbitrary: fc.array(fc.record({ frequencyId, coupons: couponCodes(cur) }), { minLength: 1, maxLength: 1 }) },
      { weight: 3, arbitrary: fc.array(fc.record({ frequencyId, coupons: couponCodes(cur) }), { minLength: 2, maxLength: 3 }) },
    ),
    rules: fc.record({ Monthly: rule, Yearly: rule }),
    currency: fc.constant(cur),
  }),
);

/** Three sequences in four start with an activation (with drafts on, a third of those leave the invoices Draft). */
const activation: fc.Arbitrary<Command> = DRAFTS
  ? fc.constantFrom<Command>({ type: 'activate' }, { type: 'activate' }, { type: 'activate', draft: true })
  : fc.constant<Command>({ type: 'activate' });
const firstCommand: fc.Arbitrary<Command | null> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: activation },
);

const stats = { runs: 0, commands: 0 };
const failures: string[] = [];

/** A failure's message, with what the service and the model said when the assertion compared them. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as Error & { actual?: unknown; expected?: unknown };
  if (!('actual' in e && 'expected' in e)) return e.message;
  const json = (x: unknown) => JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  if (!Array.isArray(e.actual) || !Array.isArray(e.expected))
    return `${e.message}\n  service: ${json(e.actual)}\n  model:   ${json(e.expected)}`;
  // Lists (invoices, ledger entries, payments, subscriptions): only the items that differ.
  const [actual, expected] = [e.actual, e.expected];
  const differing = Array.from({ length: Math.max(actual.length, expected.length) }, (_, i) => i).filter(
    (i) => json(actual[i]) !== json(expected[i]),
  );
  return `${e.message}\n${differing.map((i) => `  [${i}] service: ${json(actual[i])}\n  [${i}] model:   ${json(expected[i])}`).join('\n')}`;
}

function commandsOf(run: Run): number {
  return run.log.filter((l) => !l.startsWith(' ') && !l.startsWith('start')).length;
}

describe('the ledger against its reference model', () => {
  it(`agrees on every amount over ${RUNS} random command sequences`, { timeout: Math.max(60_000, RUNS * 10_000) }, async () => {
    const started = Date.now();
    try {
      await fc.assert(
        fc.asyncProperty(
          startDay,
          setup,
          firstCommand,
          fc.commands(modelCommands, { maxCommands: MAX_COMMANDS, size: 'max' }),
          async (start, s, first, cmds) => {
            const run = await startRun(t, start, s);
            run.log.push(`start ${isoDay(start)}: ${describeSetup(s)}`);
            try {
              await checkAll(run);
              if (first) await step(run, first);
              await fc.asyncModelRun(() => ({ model: {}, real: run }), cmds);
            } catch (error) {
              if (!KEEP_GOING) throw error;
              failures.push(describeFailure(error));
            } finally {
              stats.runs++;
              stats.commands += commandsOf(run);
              await endRun(run);
            }
          },
        ),
        {
          numRuns: RUNS,
          ...(process.env.RENEW_MODEL_SEED ? { seed: Number(process.env.RENEW_MODEL_SEED) } : {}),
          ...(process.env.RENEW_MODEL_PATH ? { path: process.env.RENEW_MODEL_PATH } : {}),
          endOnFailure: process.env.RENEW_MODEL_NO_SHRINK === '1',
        },
      );
    } finally {
      // Printed failing or not: how much the campaign covered (shrinking replays count too).
      const flags = [DRAFTS && 'drafts', RACE && 'race', KEEP_GOING && 'keep going'].filter(Boolean).join(', ');
      console.log(
        `ledger model: ${stats.runs} runs, ${stats.commands} commands in ${((Date.now() - started) / 1000).toFixed(1)} s${flags ? ` (${flags})` : ''}`,
      );
      console.log(
        Object.entries(coverage)
          .sort()
          .map(([k, v]) => `  ${k}: ${v.ok} accepted, ${v.refused} refused`)
          .join('\n'),
      );
    }
    if (failures.length > 0) console.log(`${failures.length} failing sequences:\n\n${failures.join('\n\n----\n\n')}`);
    expect(failures.length, 'failing sequences (printed above)').toBe(0);
  });
});
