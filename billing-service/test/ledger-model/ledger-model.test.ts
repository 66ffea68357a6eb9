/**
 * Model-based test of the ledger (issue 11): random sequences of commands run against the real
 * service on a fresh database and against the reference model of ledger-model.ts; after every
 * step harness.ts checks the ledger's invariants and that both agree on every amount.
 *
 * RENEW_MODEL_RUNS=n runs n sequences (default 25); RENEW_MODEL_SEED and RENEW_MODEL_PATH replay
 * a failure fast-check reported.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { checkAll, coverage, describeCommand, endRun, startRun, step, type Command, type Run } from './harness.js';
import { dayOf, isoDay } from './model-arith.js';

const RUNS = Number(process.env.RENEW_MODEL_RUNS ?? 25);
const MAX_COMMANDS = Number(process.env.RENEW_MODEL_MAX_COMMANDS ?? 30);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { testClocks: true } });
});
afterAll(async () => t?.close());

class ModelCommand implements fc.AsyncCommand<object, Run> {
  constructor(readonly c: Command) {}
  check() {
    return true;
  }
  async run(_m: object, run: Run) {
    await step(run, this.c);
  }
  toString() {
    return describeCommand(this.c);
  }
}

const cents = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(1999, 2999, 1000, 999, 1) },
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 6000 }) },
);
const commandArbs: Array<fc.Arbitrary<fc.AsyncCommand<object, Run>>> = [
  fc.constant<Command>({ type: 'activate' }),
  fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 3 }) },
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 35 }) },
    { weight: 2, arbitrary: fc.integer({ min: 25, max: 75 }) },
  ).map((days): Command => ({ type: 'clock', days })),
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
  fc
    .record({
      option: fc.constantFrom(
        'ChargeForAllMissedPeriods' as const,
        'ChargeForLastMissedPeriods' as const,
        'NoChargesForMissedPeriods' as const,
        'ChargeForCurrentFullPeriod' as const,
      ),
      prorate: fc.boolean(),
    })
    .map((p): Command => ({ type: 'unhold', ...p })),
].map((arb) => (arb as fc.Arbitrary<Command>).map((c) => new ModelCommand(c)));

/** Start days 2026-2028, month ends (28-31) often: the anniversary clamps there. */
const startDay = fc
  .record({ year: fc.integer({ min: 2026, max: 2028 }), month: fc.integer({ min: 1, max: 12 }), day: fc.oneof(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 28, max: 31 })) })
  .map(({ year, month, day }) => dayOf(year, month, Math.min(day, new Date(Date.UTC(year, month, 0)).getUTCDate())));

export const stats = { runs: 0, commands: 0 };

describe('the ledger against its reference model', () => {
  it(`agrees on every amount over ${RUNS} random command sequences`, { timeout: Math.max(60_000, RUNS * 6_000) }, async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(startDay, fc.boolean(), fc.commands(commandArbs, { maxCommands: MAX_COMMANDS, size: 'max' }), async (start, activateFirst, cmds) => {
        const run = await startRun(t, start);
        run.log.push(`start ${isoDay(start)}`);
        try {
          await checkAll(run);
          if (activateFirst) await step(run, { type: 'activate' });
          await fc.asyncModelRun(() => ({ model: {}, real: run }), cmds);
          stats.runs++;
          stats.commands += run.log.filter((l) => !l.startsWith(' ') && !l.startsWith('start')).length;
        } finally {
          await endRun(run);
        }
      }),
      {
        numRuns: RUNS,
        ...(process.env.RENEW_MODEL_SEED ? { seed: Number(process.env.RENEW_MODEL_SEED) } : {}),
        ...(process.env.RENEW_MODEL_PATH ? { path: process.env.RENEW_MODEL_PATH } : {}),
        endOnFailure: process.env.RENEW_MODEL_NO_SHRINK === '1',
      },
    );
    console.log(`ledger model: ${stats.runs} runs, ${stats.commands} commands in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(Object.entries(coverage).sort().map(([k, v]) => `  ${k}: ${v.ok} accepted, ${v.refused} refused`).join('\n'));
  });
});
