import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { createCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function addNote(customerId: number, note: string, options: { as?: TestAccount; headers?: Record<string, string> } = {}) {
  const res = await t.call('POST', '/v1/customernotes', { customerId, note }, options);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function notesOf(customerId: number, params = '', as?: TestAccount) {
  const res = await t.call('GET', `/v1/customers/${customerId}/notes${params ? `?${params}` : ''}`, undefined, as ? { as } : {});
  expect(res.statusCode, res.body).toBe(200);
  return { notes: res.json() as Array<{ id: number; note: string }>, headers: res.headers };
}

describe('POST /v1/customernotes', () => {
  it('adds a note and returns it with id, uri, timestamp, customer and text', async () => {
    const customer = await createCustomer(t, { firstName: 'Noted' });
    const before = Date.now();
    const note = await addNote(customer.id, 'Called about the March invoice; promised payment Friday.');
    expect(note).toEqual({
      id: expect.any(Number),
      uri: `https://billing.test/v1/customerNotes/${note.id}`,
      createdTimestamp: expect.any(String),
      customerId: customer.id,
      note: 'Called about the March invoice; promised payment Friday.',
      userWhoCreatedNote: 'API',
    });
    expect(Date.parse(note.createdTimestamp)).toBeGreaterThanOrEqual(before - 5_000);
    expect(Date.parse(note.createdTimestamp)).toBeLessThanOrEqual(Date.now() + 5_000);
  });

  it('records who wrote the note: the given name, else the x-audit-source', async () => {
    const customer = await createCustomer(t, {});
    const labelled = await addNote(customer.id, 'From the desk', { headers: { 'x-audit-source': 'Support desk' } });
    expect(labelled.userWhoCreatedNote).toBe('Support desk');
    const named = await t.call('POST', '/v1/customernotes', { customerId: customer.id, note: 'Signed', userWhoCreatedNote: 'jane.doe' });
    expect(named.json().userWhoCreatedNote).toBe('jane.doe');
  });

  it('accepts a note of exactly 2000 characters', async () => {
    const customer = await createCustomer(t, {});
    const note = await addNote(customer.id, 'n'.repeat(2000));
    expect(note.note).toHaveLength(2000);
  });

  it('refuses a note of 2001 characters with 400 keyed note, and stores nothing', async () => {
    const customer = await createCustomer(t, {});
    const res = await t.call('POST', '/v1/customernotes', { customerId: customer.id, note: 'n'.repeat(2001) });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'note', Value: expect.any(String), Code: 'value_invalid' }]);
    expect((await notesOf(customer.id)).notes).toEqual([]);
  });

  it.each([
    ['missing', {}],
    ['empty', { note: '' }],
    ['not text', { note: 42 }],
  ])('refuses a %s note with 400 keyed note', async (_what, body) => {
    const customer = await createCustomer(t, {});
    const res = await t.call('POST', '/v1/customernotes', { customerId: customer.id, ...body });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual(['note']);
  });

  it('refuses a note without a customer id with 400 keyed customerId', async () => {
    const res = await t.call('POST', '/v1/customernotes', { note: 'Orphan' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual(['customerId']);
  });

  it('answers 404 for a customer that does not exist or belongs to another account', async () => {
    const unknown = await t.call('POST', '/v1/customernotes', { customerId: 987654, note: 'Nobody' });
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);

    const huge = await t.call('POST', '/v1/customernotes', { customerId: 99999999999, note: 'Nobody' });
    expect(huge.statusCode).toBe(404);

    const other = await t.newAccount();
    const theirs = await createCustomer(t, {}, other);
    const res = await t.call('POST', '/v1/customernotes', { customerId: theirs.id, note: 'Not mine' });
    expect(res.statusCode).toBe(404);
    expect((await notesOf(theirs.id, '', other)).notes).toEqual([]);
  });

  it('answers the path in any casing', async () => {
    const customer = await createCustomer(t, {});
    const res = await t.call('POST', '/v1/CustomerNotes', { customerId: customer.id, note: 'Cased' });
    expect(res.statusCode).toBe(200);
    expect(res.json().note).toBe('Cased');
  });
});

describe('GET /v1/customerNotes/{id}', () => {
  it("answers the note's uri with the note as created and listed", async () => {
    const customer = await createCustomer(t, {});
    const note = await addNote(customer.id, 'Read me back');
    const res = await t.call('GET', new URL(note.uri).pathname);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(note);
    expect((await notesOf(customer.id)).notes).toEqual([note]);
  });

  it("answers 404 for another account's note, a deleted note and an id nobody has", async () => {
    const customer = await createCustomer(t, {});
    const note = await addNote(customer.id, 'Mine only');
    const other = await t.newAccount();
    expect((await t.call('GET', `/v1/customerNotes/${note.id}`, undefined, { as: other })).statusCode).toBe(404);
    await t.call('DELETE', `/v1/customerNotes/${note.id}`);
    for (const id of [note.id, 987654, 99999999999]) {
      const res = await t.call('GET', `/v1/customerNotes/${id}`);
      expect(res.statusCode, String(id)).toBe(404);
      expect(errorsOf(res)[0]!.Key).toBe('Api Error');
    }
  });
});

describe('DELETE /v1/customerNotes/{id}', () => {
  it('deletes a note with 204 and an empty body; a second delete is 404', async () => {
    const customer = await createCustomer(t, {});
    const keep = await addNote(customer.id, 'Keep me');
    const drop = await addNote(customer.id, 'Drop me');

    const res = await t.call('DELETE', `/v1/customerNotes/${drop.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    const again = await t.call('DELETE', `/v1/customerNotes/${drop.id}`);
    expect(again.statusCode).toBe(404);
    expect(errorsOf(again)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);
    expect((await notesOf(customer.id)).notes.map((n) => n.id)).toEqual([keep.id]);
  });

  it('also deletes through the /v1/customerNotes/Delete/{id} form', async () => {
    const customer = await createCustomer(t, {});
    const note = await addNote(customer.id, 'Old client deletes me');
    const res = await t.call('DELETE', `/v1/customerNotes/Delete/${note.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.call('DELETE', `/v1/customerNotes/Delete/${note.id}`)).statusCode).toBe(404);
    expect((await notesOf(customer.id)).notes).toEqual([]);
  });

  it('answers 404 for a note id nobody has, however large', async () => {
    for (const id of [987654, 99999999999]) {
      const res = await t.call('DELETE', `/v1/customerNotes/${id}`);
      expect(res.statusCode, String(id)).toBe(404);
      expect(errorsOf(res)[0]!.Key).toBe('Api Error');
    }
  });

  it('does not let another account delete a note (404, and the note stays)', async () => {
    const customer = await createCustomer(t, {});
    const note = await addNote(customer.id, 'Private');
    const other = await t.newAccount();
    for (const path of [`/v1/customerNotes/${note.id}`, `/v1/customerNotes/Delete/${note.id}`]) {
      const res = await t.call('DELETE', path, undefined, { as: other });
      expect(res.statusCode, path).toBe(404);
    }
    expect((await notesOf(customer.id)).notes.map((n) => n.note)).toEqual(['Private']);
  });

  it('records the deletion in the audit log', async () => {
    const customer = await createCustomer(t, {});
    const note = await addNote(customer.id, 'Audited note');
    await t.call('DELETE', `/v1/customerNotes/${note.id}`, undefined, { headers: { 'x-audit-source': 'Cleanup' } });
    const rows = await t.database.db
      .selectFrom('auditLog')
      .select(['action', 'source', 'changes'])
      .where('entityType', '=', 'CustomerNote')
      .where('entityId', '=', note.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { action: 'create', source: 'API', changes: { customerId: customer.id, note: 'Audited note' } },
      { action: 'delete', source: 'Cleanup', changes: { customerId: customer.id, note: 'Audited note' } },
    ]);
  });
});

describe('GET /v1/customers/{id}/notes', () => {
  it("lists the customer's notes, oldest first, with the paging headers", async () => {
    const customer = await createCustomer(t, {});
    const neighbour = await createCustomer(t, {});
    const written = [];
    for (const text of ['First call', 'Sent refund form', 'Refund approved']) written.push(await addNote(customer.id, text));
    await addNote(neighbour.id, 'Someone else');

    const all = await notesOf(customer.id);
    expect(all.notes).toEqual(written);
    expect(all.headers).toMatchObject({
      'x-count': '3',
      'x-maxcount': '3',
      'x-pagesize': '100',
      'x-currentpage': '0',
      'x-sortexpression': 'Id',
    });

    const page = await notesOf(customer.id, 'pageSize=2&pageNumber=1');
    expect(page.notes.map((n) => n.note)).toEqual(['Refund approved']);
    expect(page.headers).toMatchObject({
      'x-nextpage': '-1',
      'x-count': '3',
      'x-maxcount': '3',
      'x-currentpage': '1',
      'x-previouspage': '0',
      'x-pagesize': '2',
      'x-maxpageindex': '1',
      'x-sortorder': 'Ascending',
      'x-sortexpression': 'Id',
    });
  });

  it('filters and sorts notes with the list query language', async () => {
    const customer = await createCustomer(t, {});
    for (const text of ['Alpha call', 'refund asked', 'Refund paid']) await addNote(customer.id, text);
    const refunds = await notesOf(customer.id, 'query=Note:*refund*');
    expect(refunds.notes.map((n) => n.note)).toEqual(['refund asked', 'Refund paid']);
    expect(refunds.headers).toMatchObject({ 'x-count': '2', 'x-maxcount': '3' });
    const newestFirst = await notesOf(customer.id, 'sortOrder=Descending&sortExpression=Id');
    expect(newestFirst.notes.map((n) => n.note)).toEqual(['Refund paid', 'refund asked', 'Alpha call']);

    const bad = await t.call('GET', `/v1/customers/${customer.id}/notes?query=Colour:red`);
    expect(bad.statusCode).toBe(400);
    expect(errorsOf(bad)[0]!.Value.startsWith('query not valid')).toBe(true);
  });

  it('answers an empty list for a customer without notes', async () => {
    const customer = await createCustomer(t, {});
    const { notes, headers } = await notesOf(customer.id);
    expect(notes).toEqual([]);
    expect(headers).toMatchObject({ 'x-count': '0', 'x-maxcount': '0' });
  });

  it('answers 404 for an unknown customer and hides notes from another account', async () => {
    const unknown = await t.call('GET', '/v1/customers/987654/notes');
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)[0]!.Key).toBe('Api Error');

    const customer = await createCustomer(t, {});
    await addNote(customer.id, 'Confidential');
    const other = await t.newAccount();
    const res = await t.call('GET', `/v1/customers/${customer.id}/notes`, undefined, { as: other });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('Confidential');
  });
});
