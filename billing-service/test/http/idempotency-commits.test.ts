import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Db } from '../../src/db/database.js';
import { InstanceLiveness } from '../../src/db/instance-liveness.js';
import { KeyClaimLostError, runKeyedWrite } from '../../src/db/keyed-commit.js';
import { claimNewKey, keyedWrite, saveAnswer, takeKey } from '../../src/http/idempotency-store.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { ACTIVATION_FLAGS, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { BASE_URL, basicAuth, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A keyed write whose claim was taken over cannot commit nor save its answer (the fence), and a keyed
 * write that committed but lost its answer is answered from what it committed on its retry, never run twice.
 */
const LIVENESS = { heartbeatMs: 100, staleAfterMs: 600 };
let t: TestApp;
const others: FastifyInstance[] = [];
beforeAll(async () => {
  t = await startTestApp({ app: { bulkWorker: false, webhookWorker: false, liveness: LIVENESS } });
  await t.app.ready();
});
afterAll(async () => {
  for (const app of others) await app.close();
  await t?.close();
});

/** A second app of this account on `db` (another instance), without background work. */
async function appOn(db: Db): Promise<FastifyInstance> {
  const app = await buildApp({
    db,
    catalog: t.catalog,
    rateLimitStore: new MemoryRateLimitStore(),
    publicBaseUrl: BASE_URL,
    backgroundTasks: false,
  });
  others.push(app);
  return app;
}
const send = (app: FastifyInstance, method: 'POST' | 'PUT' | 'DELETE', url: string, body: unknown, key: string) =>
  app.inject({
    method,
    url,
    headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json', 'idempotency-key': key },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const keyRow = (key: string) =>
  t.database.db
    .selectFrom('idempotencyKeys')
    .selectAll()
    .where('accountId', '=', t.account.accountId)
    .where('key', '=', key)
    .executeTakeFirst();
const notesOf = (customerId: number) =>
  t.database.db.selectFrom('customerNotes').select('id').where('customerId', '=', customerId).execute();
const auditOf = (entityType: string, entityId: number) =>
  t.database.db.selectFrom('auditLog').select('action').where('entityType', '=', entityType).where('entityId', '=', entityId).execute();

/** An instance whose heartbeat stopped (as a frozen or killed process's does). */
async function deadInstance(): Promise<InstanceLiveness> {
  const instance = new InstanceLiveness(t.database.db, 'frozen', { heartbeatMs: 3_600_000, staleAfterMs: LIVENESS.staleAfterMs });
  await instance.start();
  // Judged dead once its heartbeat is stale, by an instance that has beaten long enough to judge.
  while (!t.app.ctx.instance.mayJudgeOthers) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, LIVENESS.staleAfterMs + 100));
  return instance;
}

/** `db` whose transactions first wait for `before` and, once committed, call `after` (a frozen process; a commit's aftermath). */
function hookTransactions(db: Db, hooks: { before?: () => Promise<void>; after?: () => void }): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') {
        return () => {
          const builder = target.transaction();
          return new Proxy(builder, {
            get(b, p) {
              if (p !== 'execute') return Reflect.get(b, p, b);
              return async (fn: Parameters<typeof builder.execute>[0]) => {
                await hooks.before?.();
                const result = await b.execute(fn);
                hooks.after?.();
                return result;
              };
            },
          });
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Fails the first statement once `armed()` says so, as a connection the server dropped does. */
function failOnceWhen(armed: () => boolean): KyselyPlugin {
  let failed = false;
  return {
    transformQuery: (args: PluginTransformQueryArgs) => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (armed() && !failed) {
        failed = true;
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      }
      return args.result;
    },
  };
}

describe('the fence: a claim taken over', () => {
  it('cannot be saved nor committed by its former holder', async () => {
    const id = { accountId: t.account.accountId, key: 'fence-store' };
    const first = await claimNewKey(t.database.db, id, 'POST /v1/customernotes', 'h', 'instance-a');
    expect(first).toBeDefined();
    const taker = await takeKey(t.database.db, id, 'instance-a', 'instance-b');
    expect(taker?.token).not.toBe(first?.token);
    const customerId = await newCustomer(t);
    const lateWrite = runKeyedWrite(keyedWrite(id, first!.token), () =>
      t.database.db
        .transaction()
        .execute((trx) =>
          trx.insertInto('customerNotes').values({ accountId: id.accountId, customerId, note: 'late', userWhoCreatedNote: 'a' }).execute(),
        ),
    );
    await expect(lateWrite).rejects.toBeInstanceOf(KeyClaimLostError);
    expect(await notesOf(customerId)).toHaveLength(0);
    expect(Number((await saveAnswer(t.database.db, id, first!.token, 200, '{"late":true}')).numUpdatedRows)).toBe(0);
    expect(Number((await saveAnswer(t.database.db, id, taker!.token, 200, '{"taker":true}')).numUpdatedRows)).toBe(1);
    expect((await keyRow(id.key))?.responseBody).toBe('{"taker":true}');
  });

  it('a holder paused after its claim, resumed after another instance took the key over, neither writes nor answers for the key', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let pausing = false; // the app's own start (its catalogue's sync) runs unpaused
    const frozenApp = await appOn(hookTransactions(t.database.db, { before: async () => (pausing ? paused : undefined) }));
    const customerId = await newCustomer(t);
    const key = `fence-http-${customerId}`;
    const body = { customerId, note: 'once' };
    pausing = true;
    const late = Promise.resolve(send(frozenApp, 'POST', '/v1/customernotes', body, key)); // inject starts when awaited
    // Frozen with the key claimed; its heartbeat stops, so the others judge it dead and take the key over.
    for (let i = 0; !(await keyRow(key)); i++) {
      expect(i).toBeLessThan(400);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    pausing = false;
    const frozenToken = (await keyRow(key))?.claimToken;
    await t.database.db
      .updateTable('idempotencyKeys')
      .set({ claimedBy: (await deadInstance()).id })
      .where('key', '=', key)
      .execute();
    const taken = await send(t.app, 'POST', '/v1/customernotes', body, key);
    expect(taken.statusCode, taken.body).toBe(200);
    expect((await keyRow(key))?.claimToken).toBeNull();
    resume();
    const resumed = await late;
    expect(resumed.statusCode, resumed.body).toBe(409);
    expect(resumed.json().Errors[0].Key).toBe('Idempotency-Key');
    expect(frozenToken).not.toBeNull();
    expect(await notesOf(customerId)).toHaveLength(1);
    const again = await send(t.app, 'POST', '/v1/customernotes', body, key);
    expect(again.body).toBe(taken.body);
  });
});

describe('a commit whose answer was lost', () => {
  it('a claim that committed but whose answer was lost is let go of: the live instance that made it does not hold the key for a day', async () => {
    const id = { accountId: t.account.accountId, key: 'claim-answer-lost' };
    // The insert commits, then its answer is lost (a failover once the synchronous standby has the commit).
    const lostAnswer = t.database.db.withPlugin(failOnceWhen(() => true));
    await expect(claimNewKey(lostAnswer, id, 'POST /v1/customernotes', 'h', t.app.ctx.instance.id)).rejects.toThrow(
      'Connection terminated',
    );
    let row = await keyRow(id.key);
    for (let i = 0; i < 50 && row?.claimedBy !== null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      row = await keyRow(id.key);
    }
    expect(row).toMatchObject({ claimedBy: null, claimToken: null, responseStatus: null });
    // so a retry claims it at once instead of waiting for an answer that will never come
    const retry = await takeKey(t.database.db, id, null, t.app.ctx.instance.id);
    expect(retry).toBeDefined();
  });

  it('the read-back after the commit fails (503 with Retry-After); the keyed retry answers the committed hold, not "already on Hold"', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId);
    expect((await t.call('POST', '/v1/customeractivation', { customerId, ...ACTIVATION_FLAGS })).statusCode).toBe(200);
    // The first statement after the hold's commit (its read-back) fails, as when the connection drops after COMMIT.
    let armed = false;
    let committed = false;
    const faulty = hookTransactions(t.database.db.withPlugin(failOnceWhen(() => committed)), {
      after: () => {
        committed = armed;
      },
    });
    const app = await appOn(faulty);
    const key = `hold-${customerId}`;
    armed = true;
    const lost = await send(app, 'POST', `/v1/customerhold/${customerId}`, undefined, key);
    expect(lost.statusCode, lost.body).toBe(503);
    expect(lost.headers['retry-after']).toBeDefined();
    expect((await keyRow(key))?.committedAt).not.toBeNull();
    const retry = await send(app, 'POST', `/v1/customerhold/${customerId}`, undefined, key);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ id: customerId, status: 'Hold' });
    expect((await auditOf('Customer', customerId)).filter((a) => a.action === 'update')).toHaveLength(2); // activation, hold
    const replay = await send(t.app, 'POST', `/v1/customerhold/${customerId}`, undefined, key);
    expect(replay.body).toBe(retry.body);
    // Without a key the same hold is refused: it is done.
    expect((await t.call('POST', `/v1/customerhold/${customerId}`)).statusCode).toBe(400);
  });

  /** What a lost answer leaves: the write and the key's commit mark, no answer, nobody holding the key. */
  const loseAnswer = (key: string) =>
    t.database.db
      .updateTable('idempotencyKeys')
      .set({ responseStatus: null, responseBody: null, claimedBy: null, claimToken: null })
      .where('key', '=', key)
      .execute();

  it('a create is answered with what it created (the note by the id its commit recorded)', async () => {
    const customerId = await newCustomer(t);
    const key = `note-${customerId}`;
    const first = await send(t.app, 'POST', '/v1/customernotes', { customerId, note: 'n' }, key);
    expect(first.statusCode).toBe(200);
    expect((await keyRow(key))?.committedRef).toEqual({ CustomerNote: [first.json().id] });
    await loseAnswer(key);
    const retry = await send(t.app, 'POST', '/v1/customernotes', { customerId, note: 'n' }, key);
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(await notesOf(customerId)).toHaveLength(1);
  });

  it('an activation is answered Active with its invoices, not run again', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId);
    const key = `activation-${customerId}`;
    const url = '/v1/customeractivation?view=sideEffects';
    const first = await send(t.app, 'POST', url, { customerId, ...ACTIVATION_FLAGS }, key);
    expect(first.statusCode, first.body).toBe(200);
    await loseAnswer(key);
    const retry = await send(t.app, 'POST', url, { customerId, ...ACTIVATION_FLAGS }, key);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toEqual(first.json());
    expect(first.json().invoices).toHaveLength(1);
  });

  it('a route that cannot read its answer back says the write was done (409), and never runs it again', async () => {
    const customerId = await newCustomer(t);
    const key = `advance-${customerId}`;
    const testClockApp = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      backgroundTasks: false,
      testClocks: true,
    });
    others.push(testClockApp);
    const now = (
      await testClockApp.inject({ method: 'GET', url: '/v1/testclock', headers: { authorization: basicAuth(t.account.apiKey) } })
    ).json().now as string;
    const to = new Date(new Date(now).getTime() + 86_400_000).toISOString();
    expect((await send(testClockApp, 'POST', '/v1/testclock/advance', { to }, key)).statusCode).toBe(200);
    // The advance writes outside a transaction of its own, so nothing marks it: here the mark a committed run leaves is set by hand.
    await loseAnswer(key);
    await t.database.db.updateTable('idempotencyKeys').set({ committedAt: new Date() }).where('key', '=', key).execute();
    const retry = await send(testClockApp, 'POST', '/v1/testclock/advance', { to }, key);
    expect(retry.statusCode).toBe(409);
    expect(retry.json().Errors[0]).toMatchObject({ Key: 'Idempotency-Key', Value: expect.stringMatching(/was done/) });
  });
});
