import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageOf } from '../../billing-service/src/notifications/email-content.js';
import { startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

let t: CaptureTest;
beforeAll(async () => {
  t = await startCaptureTest();
});
afterAll(async () => t?.close());

/** The customer's e-mails, each with its subject as the outbox worker writes it out when it sends. */
const outbox = async (customerId: number) => {
  const rows = await t.billing.database.db.selectFrom('emailOutbox').selectAll().where('customerId', '=', customerId).execute();
  return Promise.all(
    rows.map(async (m) => ({ emailType: m.emailType, toAddress: m.toAddress, subject: (await messageOf(m)).subject, status: m.status })),
  );
};

describe('e-mail of a payment collected on the capture host', () => {
  it('is written to the outbox with the payment when e-mail is on (the billing API sends it)', async () => {
    const app = await t.build({ emailEnabled: true });
    const customerId = await t.customer({ primaryEmail: 'ada@example.com' });
    const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '31.19' } }), { app });
    expect(res.statusCode, res.body).toBe(200);
    expect(await outbox(customerId)).toEqual([
      {
        emailType: 'PaymentReceived',
        toAddress: 'ada@example.com',
        subject: 'Inkwell: payment of $31.19 received',
        status: 'Pending',
      },
    ]);
  });

  it('is not written when e-mail is off, nor for a declined card', async () => {
    const quiet = await t.customer({ primaryEmail: 'quiet@example.com' });
    expect((await t.post(t.params(quiet, { paymentCollectOptions: { collectionAmount: '5.00' } }))).statusCode).toBe(200);
    expect(await outbox(quiet)).toEqual([]);

    const app = await t.build({ emailEnabled: true });
    const declined = await t.customer({ primaryEmail: 'declined@example.com' });
    const res = await t.post(t.params(declined, { cardNumber: '4000000000000341', paymentCollectOptions: { collectionAmount: '5.00' } }), {
      app,
    });
    expect(res.statusCode).toBe(400);
    expect(await outbox(declined)).toEqual([]);
  });
});
