import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, readCustomer, readOverview } from '../helpers/api-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** Issue 26: crmSynchStatus and erpSynchStatus are enums (Enabled, Disabled) in the spec: Disabled unless set, never null. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function idsMatching(query: string): Promise<number[]> {
  const res = await t.call('GET', `/v1/customers?query=${encodeURIComponent(query)}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as Array<{ id: number }>).map((c) => c.id);
}

describe('crmSynchStatus and erpSynchStatus', () => {
  it('are Disabled on a new customer, in its creation, its read, the list and the overview', async () => {
    const created = await createCustomer(t, { firstName: 'Plain' });
    expect(created).toMatchObject({ crmSynchStatus: 'Disabled', erpSynchStatus: 'Disabled' });
    expect(await readCustomer(t, created.id)).toMatchObject({ crmSynchStatus: 'Disabled', erpSynchStatus: 'Disabled' });
    expect((await readOverview(t, created.id)).crmSynchStatus).toBe('Disabled');
    const listed = (await t.call('GET', `/v1/customers?query=${encodeURIComponent(`Id:${created.id}`)}`)).json();
    expect(listed).toMatchObject([{ id: created.id, crmSynchStatus: 'Disabled', erpSynchStatus: 'Disabled' }]);
    // The list filters find it by the value shown.
    expect(await idsMatching('CrmSynchStatus:Disabled')).toContain(created.id);
    expect(await idsMatching('ErpSynchStatusId:Disabled')).toContain(created.id);
  });

  it('keep the value given at creation', async () => {
    const created = await createCustomer(t, { crmSynchStatus: 'Enabled', erpSynchStatus: 'Enabled' });
    expect(await readCustomer(t, created.id)).toMatchObject({ crmSynchStatus: 'Enabled', erpSynchStatus: 'Enabled' });
    expect(await idsMatching('CrmSynchStatus:Enabled')).toContain(created.id);
    expect(await idsMatching('CrmSynchStatus:Disabled')).not.toContain(created.id);
  });
});
