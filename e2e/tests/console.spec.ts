import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import jsqr from 'jsqr';
import type { Browser, Page } from '@playwright/test';
import { PRODUCT_FILE } from '../support/global-setup.js';
import { expect, meteredCustomer, test } from './fixtures.js';

/**
 * The merchant console (issue 29) in a real browser: the first owner's sign-in link, invitations accepted in fresh
 * browsers, what each role sees and may do (the support agent has no Refund button and the server refuses the call),
 * a refund and a hold through their dialogs checked against the API, the revenue page's figure against the API's
 * subscriptions, and axe on every page in both themes at 1280 and 768 px.
 *
 * The tests run in order: the first creates the operators the others sign in as.
 */
test.describe.configure({ mode: 'serial' });

interface RunningProduct {
  billingUrl: string;
  apiKey: string;
  consoleFirstOwnerLink?: string;
}
const running = JSON.parse(readFileSync(PRODUCT_FILE, 'utf8')) as RunningProduct & { console?: RunningProduct };
/** The console's own product (serve-product.ts): no other test writes to it while these run. */
const product = running.console?.consoleFirstOwnerLink ? running.console : undefined;

/** The billing API with the private key, as the merchant's back office calls it. */
async function call<T = any>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
  if (!product) throw new Error('the product line has no consoleFirstOwnerLink');
  const res = await fetch(new URL(path, product.billingUrl), {
    method,
    headers: { authorization: `Basic ${product.apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

const consoleUrl = (hash: string) => new URL(`/console/#/${hash}`, product!.billingUrl).toString();
const BASIC_MONTHLY = 11;
const run = Date.now();
const PASSWORD = 'correct horse battery staple';

interface Credentials {
  email: string;
  name: string;
}
const operators: { owner?: Credentials; support?: Credentials; billing?: Credentials } = {};

/** A customer of the console's product: Draft, or Active on Basic monthly with its first invoice posted and, with `paid`, paid by check. */
async function customer(options: { lastName?: string; subscribed?: boolean; active?: boolean; paid?: boolean } = {}) {
  const created = await call<{ id: number }>('POST', '/v1/customers', {
    firstName: `Console${run}`,
    lastName: options.lastName ?? 'Customer',
    primaryEmail: `console.${run}.${Math.random().toString(36).slice(2)}@example.com`,
    currency: 'USD',
  });
  if (!options.subscribed && !options.active && !options.paid) return { id: created.id };
  await call('POST', '/v1/subscriptions', { customerId: created.id, planFrequencyId: BASIC_MONTHLY });
  if (!options.active && !options.paid) return { id: created.id };
  await call('POST', '/v1/customeractivation', {
    customerId: created.id,
    activateAllSubscriptions: true,
    activateAllDraftPurchases: false,
    temporarilyDisableAutoPost: false,
  });
  const invoices = await call<Array<{ id: number; outstandingBalance: number; status: string }>>(
    'GET',
    `/v1/Customers/${created.id}/Invoices`,
  );
  const invoice = invoices[0]!;
  if (!options.paid) return { id: created.id, invoiceId: invoice.id };
  const payment = await call<{ id: number; status: string }>('POST', '/v1/payments', {
    customerId: created.id,
    amount: invoice.outstandingBalance,
    paymentMethod: 'Check',
    paymentAllocations: [{ invoiceId: invoice.id, amount: invoice.outstandingBalance }],
  });
  expect(payment.status).toBe('Succeeded');
  expect((await call<{ status: string }>('GET', `/v1/Invoices/${invoice.id}`)).status).toBe('Paid');
  return { id: created.id, invoiceId: invoice.id, paymentId: payment.id, amount: invoice.outstandingBalance };
}

const shell = (page: Page) => page.locator('renew-console');
const mainHeading = (page: Page) => shell(page).locator('main h1');

/** Waits until the page's data is in: its heading shown, no "Loading…" left. */
async function settled(page: Page) {
  await expect(mainHeading(page)).toBeVisible();
  await expect(shell(page).getByText('Loading…')).toHaveCount(0);
}

async function signIn(page: Page, who: Credentials) {
  await page.goto(consoleUrl('sign-in'));
  await expect(mainHeading(page)).toHaveText('Sign in');
  await shell(page).getByLabel('E-mail').fill(who.email);
  await shell(page).getByLabel('Password').fill(PASSWORD);
  await shell(page).getByRole('button', { name: 'Sign in' }).click();
  await expect(mainHeading(page)).toHaveText('Customers');
}

/**
 * Opens an invitation link in a browser of its own (no cookie), sets name and password, and lands on the console.
 * An invitation names its e-mail; the first owner's names none, and they give `email`.
 */
async function accept(browser: Browser, link: string, name: string, role: string, email?: string): Promise<Credentials> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(link);
    await expect(mainHeading(page)).toHaveText('Accept your invitation');
    const invitation = shell(page).getByText(/You are invited as/);
    await expect(invitation).toContainText(role);
    let address = email;
    if (address) await shell(page).getByLabel('E-mail').fill(address);
    else address = /with the e-mail (\S+)\.$/.exec((await invitation.innerText()).trim())?.[1];
    expect(address).toBeTruthy();
    await shell(page).getByLabel('Your name').fill(name);
    await shell(page)
      .getByLabel(/^Password/)
      .fill(PASSWORD);
    await shell(page).getByRole('button', { name: 'Create my account' }).click();
    await expect(mainHeading(page)).toHaveText('Customers');
    await expect(shell(page).locator('header')).toContainText(`Signed in as ${name} (${role})`);
    return { email: address!, name };
  } finally {
    await context.close();
  }
}

/** Invites through the Team page and answers the link the page shows. */
async function invite(page: Page, email: string, role: 'Support' | 'Billing' | 'Viewer' | 'Owner'): Promise<string> {
  await shell(page).getByRole('link', { name: 'Team' }).click();
  await expect(mainHeading(page)).toHaveText('Team');
  await shell(page).getByLabel('E-mail').fill(email);
  await shell(page).getByLabel('Role', { exact: true }).selectOption({ label: role });
  await shell(page).getByRole('button', { name: 'Invite' }).click();
  const link = shell(page).locator('pre[data-invitation-link]');
  await expect(shell(page).getByText(`Invitation link for ${email}`)).toBeVisible();
  const text = (await link.innerText()).trim();
  expect(text).toMatch(/\/console\/#\/invitation\/\S+$/);
  return text;
}

test('the first owner opens the printed link, sets a name and password, and invites a support agent and a billing operator', async ({
  page,
  browser,
}) => {
  expect(product, 'serve-product.ts prints consoleFirstOwnerLink').toBeTruthy();
  operators.owner = await accept(browser, product!.consoleFirstOwnerLink!, 'Olive Owner', 'Owner', `owner.${run}@example.com`);

  await signIn(page, operators.owner);
  await expect(shell(page).getByRole('navigation')).toBeVisible();
  const supportEmail = `support.${run}@example.com`;
  const billingEmail = `billing.${run}@example.com`;
  const supportLink = await invite(page, supportEmail, 'Support');
  const billingLink = await invite(page, billingEmail, 'Billing');
  // Both are open invitations until accepted.
  await expect(shell(page).getByRole('table', { name: 'Open invitations' })).toContainText(supportEmail);
  await expect(shell(page).getByRole('table', { name: 'Open invitations' })).toContainText(billingEmail);

  operators.support = await accept(browser, supportLink, 'Sam Support', 'Support');
  operators.billing = await accept(browser, billingLink, 'Bill Billing', 'Billing');
  expect([operators.support.email, operators.billing.email]).toEqual([supportEmail, billingEmail]);

  // The owner's team page now lists the three operators with their roles.
  await page.reload();
  await expect(mainHeading(page)).toHaveText('Team');
  const team = shell(page).getByRole('table', { name: 'Operators' });
  await expect(team.getByRole('row')).toHaveCount(4);
  await expect(team.getByLabel('Role of Sam Support')).toHaveValue('support');
  await expect(team.getByLabel('Role of Bill Billing')).toHaveValue('billing');
  // A used link does not open again.
  const used = await browser.newContext();
  const again = await used.newPage();
  await again.goto(supportLink);
  await expect(shell(again).getByText('This invitation is not valid any more.')).toBeVisible();
  await used.close();
});

test('the support agent finds LastName:Wal* customers, has no Refund button, and the server refuses a refund from the page', async ({
  page,
}) => {
  for (const lastName of ['Walker', 'Wallace', 'Smith']) await customer({ lastName });
  const paid = await customer({ paid: true });

  await signIn(page, operators.support!);
  await shell(page).getByLabel('Query').fill('LastName:Wal*');
  await shell(page).getByRole('button', { name: 'Search', exact: true }).click();
  const table = shell(page).getByRole('table', { name: /^Customers, 2 of / });
  await expect(table).toBeVisible();
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(2);
  const names = (await rows.locator('td:nth-child(2)').allInnerTexts()).map((name) => name.trim()).sort();
  expect(names).toEqual([`Console${run} Walker`, `Console${run} Wallace`]);

  // Sorting by name descending puts Wallace first.
  await table.getByRole('button', { name: /^Name/ }).click();
  await expect(table.getByRole('columnheader', { name: /^Name/ })).toHaveAttribute('aria-sort', 'ascending');
  await table.getByRole('button', { name: /^Name/ }).click();
  await expect(table.getByRole('columnheader', { name: /^Name/ })).toHaveAttribute('aria-sort', 'descending');
  await expect(rows.first().locator('td:nth-child(2)')).toHaveText(`Console${run} Wallace`);

  await page.goto(consoleUrl(`customers/${paid.id}`));
  await settled(page);
  const paymentRow = shell(page).locator(`tr[data-payment="${paid.paymentId}"]`);
  await expect(paymentRow).toContainText('Succeeded');
  await expect(shell(page).getByRole('button', { name: 'Refund' })).toHaveCount(0);
  await expect(shell(page).getByRole('button', { name: 'Hold' })).toHaveCount(0);
  // What support may do is there: notes and the portal link.
  await expect(shell(page).getByRole('button', { name: 'Add note' })).toBeVisible();
  await expect(shell(page).getByRole('button', { name: 'Portal link' })).toBeVisible();

  const refused = await page.evaluate(async (paymentId) => {
    const session = (await (await fetch('/console/api/session')).json()) as { csrfToken: string };
    const res = await fetch('/console/api/v1/refunds', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
      body: JSON.stringify({ originalPaymentId: paymentId, amount: '1.00' }),
    });
    return { status: res.status, body: await res.json() };
  }, paid.paymentId!);
  expect(refused.status).toBe(403);
  expect(JSON.stringify(refused.body)).toContain('console_role_forbidden');
  const payment = await call<{ refundedAmount: number; refunds: unknown[] }>('GET', `/v1/payments/${paid.paymentId}`);
  expect(payment.refunds).toEqual([]);
});

test('the billing operator refunds 5.00 of a paid invoice through the dialog, and the invoice is open again in the API', async ({
  page,
}) => {
  const paid = await customer({ paid: true });
  await signIn(page, operators.billing!);
  await page.goto(consoleUrl(`customers/${paid.id}`));
  await settled(page);

  await shell(page).locator(`tr[data-payment="${paid.paymentId}"]`).getByRole('button', { name: 'Refund' }).click();
  const dialog = shell(page).getByRole('dialog', { name: `Refund payment ${paid.paymentId}` });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel(/^Amount/).fill('5.00');
  await dialog.getByLabel('Reason').fill('Goodwill, e2e');
  await dialog.getByRole('button', { name: 'Refund' }).click();
  await expect(dialog).toBeHidden();
  await expect(shell(page).getByText('Refunded $5.00.')).toBeVisible();

  const invoice = await call<{ status: string; outstandingBalance: number }>('GET', `/v1/invoices/${paid.invoiceId}`);
  expect(invoice.status).toBe('PartiallyPaid');
  expect(invoice.outstandingBalance).toBe(5);
  const payment = await call<{ refundedAmount: number; refunds: Array<{ amount: number; status: string }> }>(
    'GET',
    `/v1/payments/${paid.paymentId}`,
  );
  expect(payment.refunds).toEqual([expect.objectContaining({ amount: 5, status: 'Succeeded' })]);
  // The page shows the invoice open too, after reloading its data.
  await expect(shell(page).locator(`tr[data-invoice="${paid.invoiceId}"]`)).toContainText('PartiallyPaid');
});

test('the billing operator voids one invoice, writes off another and credits a third, each previewed; revenue shows the write-off; support sees none of it', async ({
  page,
  browser,
}) => {
  const unpaid = await customer({ active: true });
  const owing = await customer({ active: true });
  const paid = await customer({ paid: true });
  await signIn(page, operators.billing!);

  // Void: the dialog says what leaves AR before anything happens
  await page.goto(consoleUrl(`customers/${unpaid.id}`));
  await settled(page);
  const unpaidRow = shell(page).locator(`tr[data-invoice="${unpaid.invoiceId}"]`);
  await unpaidRow.getByRole('button', { name: 'Void', exact: true }).click();
  const voiding = shell(page).getByRole('dialog', { name: /^Void invoice/ });
  await expect(voiding).toContainText("$29.99 leaves accounts receivable: the customer's balance goes from $29.99 to $0.00.");
  await voiding.getByRole('button', { name: /^Void invoice/ }).click();
  await expect(voiding).toBeHidden();
  await expect(unpaidRow).toContainText('Void');
  await expect(unpaidRow.getByRole('button')).toHaveCount(0);
  expect((await call<{ status: string }>('GET', `/v1/Invoices/${unpaid.invoiceId}`)).status).toBe('Void');

  // Write-off: a reason is required (the API's refusal is shown), then it closes the invoice
  await page.goto(consoleUrl(`customers/${owing.id}`));
  await settled(page);
  const owingRow = shell(page).locator(`tr[data-invoice="${owing.invoiceId}"]`);
  await owingRow.getByRole('button', { name: 'Write off', exact: true }).click();
  const writing = shell(page).getByRole('dialog', { name: /^Write off invoice/ });
  await writing.getByRole('button', { name: /^Write off invoice/ }).click();
  await expect(writing.getByRole('alert')).not.toBeEmpty();
  await writing.getByLabel('Reason').fill('Customer went out of business, e2e');
  await writing.getByRole('button', { name: /^Write off invoice/ }).click();
  await expect(writing).toBeHidden();
  await expect(owingRow).toContainText('Written off');
  expect((await call<{ status: string }>('GET', `/v1/Invoices/${owing.invoiceId}`)).status).toBe('WrittenOff');

  // Credit note on a paid invoice: confirmed only after the server's preview; the excess is the customer's credit
  await page.goto(consoleUrl(`customers/${paid.id}`));
  await settled(page);
  await shell(page).locator(`tr[data-invoice="${paid.invoiceId}"]`).getByRole('button', { name: 'Credit note' }).click();
  const crediting = shell(page).getByRole('dialog', { name: /^Credit invoice/ });
  const confirmCredit = crediting.getByRole('button', { name: /^Credit invoice/ });
  await expect(confirmCredit).toBeDisabled();
  await crediting
    .getByLabel(/^Amount to credit on/)
    .first()
    .fill('5');
  await crediting.getByLabel('Reason').fill('Late delivery, e2e');
  await crediting.getByRole('button', { name: 'Preview' }).click();
  const figures = crediting.locator('[data-preview="credit-note"]');
  await expect(figures).toContainText('Total$5.00');
  await expect(figures).toContainText('Customer credit$5.00');
  await confirmCredit.click();
  await expect(crediting).toBeHidden();
  const notes = await call<Array<{ id: number; total: number; creditedToCustomer: number }>>('GET', `/v1/customers/${paid.id}/creditNotes`);
  expect(notes.map((n) => [n.total, n.creditedToCustomer])).toEqual([[5, 5]]);
  await expect(shell(page).locator(`tr[data-credit-note="${notes[0]!.id}"]`)).toContainText('$5.00');

  // The revenue table has the write-off in this month's row
  await page.goto(consoleUrl('revenue'));
  await settled(page);
  await expect(shell(page).getByRole('columnheader', { name: 'Written off' }).first()).toBeVisible();
  await expect(shell(page).locator('tbody tr').filter({ hasText: '$29.99' }).first()).toBeVisible();

  // Support (a browser of its own) reads the invoices but has no correction buttons
  const support = await (await browser.newContext()).newPage();
  await signIn(support, operators.support!);
  await support.goto(consoleUrl(`customers/${paid.id}`));
  await settled(support);
  await expect(shell(support).locator(`tr[data-invoice="${paid.invoiceId}"]`)).toBeVisible();
  await expect(shell(support).getByRole('button', { name: 'Credit note' })).toHaveCount(0);
  await expect(shell(support).getByRole('columnheader', { name: 'Corrections' })).toHaveCount(0);
  await support.context().close();
});

test('the billing operator sells a one-time charge invoiced at once: the total is shown first, the API has the purchase on an invoice of its own', async ({
  page,
}) => {
  const active = await customer({ active: true });
  await signIn(page, operators.billing!);
  await page.goto(consoleUrl(`customers/${active.id}`));
  await settled(page);
  const form = shell(page).getByRole('form', { name: 'Add a one-time charge' });
  await form.getByLabel('Name').fill('Training day, e2e');
  await form.getByLabel(/^Price per unit/).fill('150');
  await form.getByLabel('Quantity').fill('2');
  await expect(form.locator('[data-preview="purchase"]')).toHaveText('Total before tax: $300.00');
  await form.getByRole('checkbox', { name: /Invoice now/ }).check();
  await form.getByRole('button', { name: 'Add the charge' }).click();
  await expect(shell(page).getByText('One-time charge “Training day, e2e” added.')).toBeVisible();
  const purchases = await call<Array<{ id: number; name: string; status: string; amount: number; invoiceId: number | null }>>(
    'GET',
    `/v1/customers/${active.id}/purchases`,
  );
  expect(purchases.map((p) => [p.name, p.status, p.amount])).toEqual([['Training day, e2e', 'Invoiced', 300]]);
  const invoice = await call<{ invoiceAmount: number; charges: Array<{ chargeType: string }> }>(
    'GET',
    `/v1/Invoices/${purchases[0]!.invoiceId}`,
  );
  expect([invoice.invoiceAmount, invoice.charges.map((c) => c.chargeType)]).toEqual([300, ['Purchase']]);
  await expect(shell(page).locator(`tr[data-purchase="${purchases[0]!.id}"]`)).toContainText('$300.00');
});

test("the customer page shows a metered subscription's usage this period, and its running total after more events", async ({ page }) => {
  const metered = await meteredCustomer(call, { firstName: `Console${run}`, lastName: 'Metered' });
  const basic = await customer({ active: true });
  await metered.send('views_calls', 5);
  await metered.send('views_data', 1, { gb: 1.5 });
  await metered.send('views_data', 1, { gb: 2.25 });
  await signIn(page, operators.support!);
  await page.goto(consoleUrl(`customers/${metered.id}`));
  await settled(page);
  const section = shell(page).getByRole('region', { name: 'Usage this period' });
  const table = section.locator(`[data-usage="${metered.subscriptionId}"]`);
  const usage = await call<{ periodStart: string; periodEnd: string }>('GET', `/v1/subscriptions/${metered.subscriptionId}/usage`);
  const day = (iso: string) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));
  await expect(table.locator('caption')).toHaveText(
    `Subscription ${metered.subscriptionId} (Metered), ${day(usage.periodStart)} – ${day(usage.periodEnd)}`,
  );
  // 5 calls, the first 3 free, then 0.25 each; 3.75 GB at 0.5 = 1.875, rounded once to 1.88.
  await expect(table.locator('tr[data-metric="views_calls"] td')).toHaveText(['API calls', '5', '5', '$0.50']);
  await expect(table.locator('tr[data-metric="views_data"] td')).toHaveText(['Data transfer', '3.75', '3.75', '$1.88']);
  await expect(table.locator('[data-field="usage-total"]')).toHaveText('$2.38');
  await metered.send('views_calls', 4);
  await page.reload();
  await settled(page);
  await expect(table.locator('tr[data-metric="views_calls"] td')).toHaveText(['API calls', '9', '9', '$1.50']);
  await expect(table.locator('[data-field="usage-total"]')).toHaveText('$3.38');
  expect((await call<{ amount: number }>('GET', `/v1/subscriptions/${metered.subscriptionId}/usage`)).amount).toBe(3.38);
  // A customer whose plan charges no usage has no such section.
  await page.goto(consoleUrl(`customers/${basic.id}`));
  await settled(page);
  await expect(shell(page).getByRole('heading', { name: 'Subscriptions' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  await expect(shell(page).getByRole('region', { name: 'Usage this period' })).toHaveCount(0);
});

test('a payment with the disputed test card (0259) shows its dispute on the customer page once the processor opens it', async ({
  page,
}) => {
  const active = await customer({ active: true });
  const invoice = await call<{ outstandingBalance: number }>('GET', `/v1/Invoices/${active.invoiceId}`);
  const card = await call<{ id: number }>('POST', '/v1/paymentmethods/creditcard', {
    customerId: active.id,
    cardNumber: '4000000000000259',
    firstName: 'Dee',
    lastName: 'Spute',
    expirationMonth: 12,
    expirationYear: 30,
    cvv: '123',
    isDefault: true,
  });
  const payment = await call<{ id: number; status: string }>('POST', '/v1/payments', {
    customerId: active.id,
    amount: invoice.outstandingBalance,
    paymentMethodId: card.id,
  });
  expect(payment.status).toBe('Succeeded');
  // The sandbox opens the dispute 5 s after the charge; the gateway events task fetches it every 5 s.
  await expect
    .poll(async () => (await call<Array<{ status: string }>>('GET', `/v1/customers/${active.id}/disputes`)).map((d) => d.status), {
      timeout: 30_000,
    })
    .toEqual(['NeedsResponse']);

  await signIn(page, operators.support!);
  await page.goto(consoleUrl(`customers/${active.id}`));
  await settled(page);
  const row = shell(page).locator(`tr[data-payment="${payment.id}"]`);
  await expect(row).toContainText('NeedsResponse (fraudulent)');
  await expect(row).toContainText('evidence due');
  await expect(row).toContainText('fee $15.00');
  // The dispute took the money back: the invoice is open again.
  await expect(shell(page).locator(`tr[data-invoice="${active.invoiceId}"]`)).toContainText('Posted');
});

test('a hold is previewed, then confirmed: the status the page shows is the one the API reports', async ({ page }) => {
  const active = await customer({ active: true });
  await signIn(page, operators.billing!);
  await page.goto(consoleUrl(`customers/${active.id}`));
  await settled(page);
  const status = shell(page).locator('dd[data-field="status"]');
  await expect(status).toHaveText('Active');

  await shell(page).getByRole('button', { name: 'Hold', exact: true }).click();
  const dialog = shell(page).getByRole('dialog', { name: 'Hold: preview' });
  await expect(dialog).toContainText('The status goes from Active to Hold.');
  // Escape closes it and nothing changes.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect((await call<{ status: string }>('GET', `/v1/customers/${active.id}`)).status).toBe('Active');

  await shell(page).getByRole('button', { name: 'Hold', exact: true }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Confirm: Hold' }).click();
  await expect(dialog).toBeHidden();
  await expect(status).toHaveText('Hold');
  const after = await call<{ status: string }>('GET', `/v1/customers/${active.id}`);
  expect(after.status).toBe('Hold');
  await expect(status).toHaveText(after.status);
  // The lifecycle now offers what Hold allows; unhold is previewed by the API (preview: true), then confirmed.
  await shell(page).getByRole('button', { name: 'Unhold' }).click();
  const unhold = shell(page).getByRole('dialog', { name: 'Unhold: preview' });
  await expect(unhold).toContainText('The status goes from Hold to Active.');
  await expect(unhold.getByRole('table', { name: 'Invoice this posts' }).or(unhold.getByText('No invoice is posted.'))).toBeVisible();
  await unhold.getByRole('button', { name: 'Confirm: Unhold' }).click();
  await expect(unhold).toBeHidden();
  await expect(status).toHaveText('Active');
  expect((await call<{ status: string }>('GET', `/v1/customers/${active.id}`)).status).toBe('Active');
});

test('an activation shows the first invoice as the API previews it, and confirming posts that invoice', async ({ page }) => {
  const draft = await customer({ subscribed: true });
  const preview = await call<{ invoicePreview: { total: number } }>('POST', '/v1/customeractivation?preview=true', {
    customerId: draft.id,
  });
  const total = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(preview.invoicePreview.total);
  await signIn(page, operators.billing!);
  await page.goto(consoleUrl(`customers/${draft.id}`));
  await settled(page);
  await expect(shell(page).locator('dd[data-field="status"]')).toHaveText('Draft');

  await shell(page).getByRole('button', { name: 'Activate' }).click();
  const dialog = shell(page).getByRole('dialog', { name: 'Activate: preview' });
  const invoice = dialog.getByRole('table', { name: 'Invoice this posts' });
  await expect(invoice.locator('tfoot')).toContainText(total);
  await dialog.getByRole('button', { name: 'Confirm: Activate' }).click();
  await expect(dialog).toBeHidden();
  await expect(shell(page).locator('dd[data-field="status"]')).toHaveText('Active');
  const invoices = await call<Array<{ invoiceAmount: number }>>('GET', `/v1/Customers/${draft.id}/Invoices`);
  expect(invoices.map((posted) => posted.invoiceAmount)).toEqual([preview.invoicePreview.total]);
  await expect(shell(page).getByRole('region', { name: 'Invoices', exact: true }).locator('tbody')).toContainText(total);
});

test("the revenue page's current MRR is the sum of the Active subscriptions' monthlyRecurringRevenue the API shows", async ({ page }) => {
  await customer({ active: true });
  // Every customer's subscriptions, as the API shows them, summed per currency over the Active ones.
  const customers = await call<Array<{ id: number; currency: string }>>('GET', '/v1/customers?pageSize=10000');
  const sums = new Map<string, number>();
  for (const { id, currency } of customers) {
    const subscriptions = await call<Array<{ status: string; monthlyRecurringRevenue: number }>>(
      'GET',
      `/v1/customers/${id}/subscriptions`,
    );
    for (const subscription of subscriptions)
      if (subscription.status === 'Active')
        sums.set(currency, Math.round(((sums.get(currency) ?? 0) + subscription.monthlyRecurringRevenue) * 100) / 100);
  }
  expect(sums.get('USD')).toBeGreaterThan(0);

  await signIn(page, operators.support!);
  await shell(page).getByRole('link', { name: 'Revenue' }).click();
  await settled(page);
  for (const [currency, sum] of sums) {
    const shown = shell(page).locator(`dd[data-figure="mrr"][data-currency="${currency}"]`);
    await expect(shown).toHaveText(new Intl.NumberFormat('en', { style: 'currency', currency }).format(sum));
  }
  // The table beside the charts ends with the current month, the same figure.
  const table = shell(page).getByRole('table', { name: 'MRR by month, USD' });
  await expect(table.locator('tbody tr').last().locator('td').first()).toHaveText(
    new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(sums.get('USD')!),
  );
  await expect(shell(page).locator('#mrr-USD canvas')).toBeAttached();
});

test('the bulk page lists a job submitted through the API, newest first, and opening it shows its records', async ({ page }) => {
  const { id: customerId } = await customer();
  const reference = `console-bulk-${run}`;
  const job = await call<{ id: number }>('POST', '/v1/bulkPaymentSubmit', {
    accountUploadType: 'bulkPayment',
    reference,
    data: [
      { customerId, reference: `${reference}-1`, amount: 12.5, paymentMethod: 'Check' },
      { customerId: 987654321, reference: `${reference}-2`, amount: 3, paymentMethod: 'Check' },
    ],
  });
  await signIn(page, operators.billing!);
  await shell(page).getByRole('link', { name: 'Bulk jobs' }).click();
  await settled(page);
  const jobs = shell(page).getByRole('table', { name: /^Bulk jobs \(/ });
  // Newest first: the job just submitted is the first row, with its records counted (one valid waiting, one invalid).
  const first = jobs.locator('tbody tr').first();
  await expect(first.locator('td').nth(0)).toHaveText(String(job.id));
  await expect(first.locator('td').nth(1)).toHaveText('Validated');
  await expect(first.locator('td').nth(2)).toHaveText(reference);
  await expect(first.locator('td').nth(5)).toHaveText('2');
  await expect(first.locator('td').nth(6)).toHaveText('1');
  await expect(first.locator('td').nth(7)).toHaveText('1');
  await first.getByRole('button', { name: `Open bulk job ${job.id}` }).click();
  const records = shell(page).getByRole('table', { name: `Records of job ${job.id}` });
  await expect(records).toContainText(`${reference}-1`);
  await expect(records).toContainText(`${reference}-2`);
  // Billing has no API keys page (owner only).
  await expect(shell(page).getByRole('link', { name: 'API keys' })).toHaveCount(0);
});

test('the owner sees both API keys; "Roll key" asks first and warns that the old key stops working; cancelled, nothing is rolled', async ({
  page,
}) => {
  await signIn(page, operators.owner!);
  await shell(page).getByRole('link', { name: 'API keys' }).click();
  await settled(page);
  const keys = shell(page).getByRole('table', { name: "The account's API keys" });
  await expect(keys.locator('tbody tr')).toHaveCount(2);
  await expect(keys.locator('tbody tr').nth(0).locator('td').first()).toHaveText('Private key');
  await expect(keys.locator('tbody tr').nth(1).locator('td').first()).toHaveText('Public key');
  const publicRow = await keys.locator('tbody tr').nth(1).innerText();
  // The rest of the suite runs on this product and its saved keys: the dialog is opened and cancelled, never confirmed.
  await shell(page).getByRole('button', { name: 'Roll key: Public key' }).click();
  const dialog = shell(page).getByRole('dialog', { name: 'Roll key: Public key?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('The old key stops working within 30 seconds');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(shell(page).locator('pre[data-new-key]')).toHaveCount(0);
  await expect(keys.locator('tbody tr').nth(1)).toHaveText(publicRow);
  // The saved private key still works.
  await call('GET', '/v1/plans');
});

/** The authenticator app's 6 digits (RFC 6238: HMAC-SHA1 of the 30-second step) for a base32 secret, at `at`. */
function totp(secret: string, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...secret.replace(/[=\s]/g, '').toUpperCase()].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const PAGES = ['customers', 'payments', 'dunning', 'revenue', 'webhooks', 'emails', 'bulk', 'team', 'api-keys', 'account', 'test-clock'];
const WIDTHS = [320, 768, 1280];
const THEMES = ['light', 'dark'] as const;

test('every console page has no axe violation of any impact at 320, 768 and 1280 px in both themes, and no sideways scrolling', async ({
  page,
  browser,
  problems,
}) => {
  // 14 pages, 3 more states and 3 dialogs × 2 themes × 3 widths (about 4 minutes here): one signed-in browser, the viewport and the system theme set per check.
  test.setTimeout(600_000);
  const paid = await customer({ paid: true });
  await call('POST', '/v1/bulkPaymentSubmit', {
    accountUploadType: 'bulkPayment',
    reference: `console-axe-${run}`,
    data: [{ customerId: paid.id, reference: `console-axe-${run}-1`, amount: 1, paymentMethod: 'Check' }],
  });
  const found: string[] = [];
  // Every rule axe has (best practices too), not only the WCAG-tagged ones: region, skip-link, scrollable regions…
  const everyWay = async (target: Page, where: string) => {
    for (const theme of THEMES) {
      // The theme follows prefers-color-scheme until the operator picks one.
      await target.emulateMedia({ colorScheme: theme });
      await expect(shell(target)).toHaveAttribute('theme', theme);
      for (const width of WIDTHS) {
        await target.setViewportSize({ width, height: 900 });
        const results = await new AxeBuilder({ page: target }).options({ resultTypes: ['violations'] }).analyze();
        for (const violation of results.violations)
          found.push(
            `${where} ${theme} ${width}px: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
          );
        const scrollWidth = await target.evaluate(() => document.documentElement.scrollWidth);
        if (scrollWidth > width) found.push(`${where} ${theme} ${width}px: the page scrolls sideways (${scrollWidth} px)`);
      }
    }
  };
  const open = async (target: Page, route: string) => {
    await target.goto(consoleUrl(route));
    await settled(target);
  };

  await signIn(page, operators.owner!);
  for (const route of PAGES) {
    await open(page, route);
    await everyWay(page, route);
  }
  // The account page while two-factor is set up, and on (its "Turn off" button); turned off again after.
  await open(page, 'account');
  const account = shell(page).locator('console-account-page');
  await account.getByRole('button', { name: 'Set up two-factor authentication' }).click();
  const secret = (await account.locator('code').innerText()).trim();
  await everyWay(page, 'account, setting up two-factor');
  await account.getByLabel('Authentication code').fill(totp(secret));
  await account.getByRole('button', { name: 'Confirm', exact: true }).click();
  await expect(account.getByRole('button', { name: 'Turn off' })).toBeVisible();
  await everyWay(page, 'account, two-factor on');
  // A code is taken once: the next step's (the server accepts one step either side).
  await account.getByLabel('Authentication code').fill(totp(secret, Date.now() + 30_000));
  await account.getByRole('button', { name: 'Turn off' }).click();
  await expect(account.getByText('Two-factor authentication is off.').first()).toBeVisible();
  await expect(account.getByRole('button', { name: 'Set up two-factor authentication' })).toBeVisible();
  // A bulk job opened, with its records.
  await open(page, 'bulk');
  await shell(page)
    .getByRole('button', { name: /^Open bulk job / })
    .first()
    .click();
  await expect(shell(page).getByRole('table', { name: /^Records of job / })).toBeVisible();
  await everyWay(page, 'bulk job');
  await open(page, `customers/${paid.id}`);
  await everyWay(page, 'customer');
  // The dialogs, open.
  await shell(page).locator(`tr[data-payment="${paid.paymentId}"]`).getByRole('button', { name: 'Refund' }).click();
  await expect(shell(page).getByRole('dialog')).toBeVisible();
  await everyWay(page, 'refund dialog');
  await page.keyboard.press('Escape');
  await expect(shell(page).getByRole('dialog')).toBeHidden();
  await shell(page).getByRole('button', { name: 'Hold', exact: true }).click();
  await expect(shell(page).getByRole('dialog')).toBeVisible();
  await everyWay(page, 'hold dialog');
  await page.keyboard.press('Escape');
  await open(page, 'api-keys');
  await shell(page).getByRole('button', { name: 'Roll key: Public key' }).click();
  await expect(shell(page).getByRole('dialog')).toBeVisible();
  await everyWay(page, 'roll key dialog');
  await page.keyboard.press('Escape');
  await expect(shell(page).getByRole('dialog')).toBeHidden();

  // Signed out: the sign-in page, and an invitation not yet accepted.
  await page.goto(consoleUrl('team'));
  const link = await invite(page, `viewer.axe.${run}@example.com`, 'Viewer');
  const context = await browser.newContext();
  const stranger = await context.newPage();
  await open(stranger, 'sign-in');
  await everyWay(stranger, 'sign-in');
  await stranger.goto(link);
  await settled(stranger);
  await everyWay(stranger, 'invitation');
  await context.close();
  expect(found, found.join('\n')).toEqual([]);

  // The operator's own choice wins over the system's and is kept.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
  await shell(page).getByLabel('Dark theme').check();
  await expect(shell(page)).toHaveAttribute('theme', 'dark');
  await page.reload();
  await expect(shell(page)).toHaveAttribute('theme', 'dark');
  // No CSP violation and no script error on any page.
  expect(problems.filter((problem) => /Content Security Policy|Refused to|Uncaught|TypeError|ReferenceError/.test(problem))).toEqual([]);
});

test('the language picker shows the console in French, amounts and dates in the French way', async ({ page }) => {
  const paid = await customer({ paid: true });
  await signIn(page, operators.billing!);
  await shell(page).getByLabel('Language').selectOption('fr');
  await expect(shell(page).getByRole('link', { name: 'Clients' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
  await page.goto(consoleUrl(`customers/${paid.id}`));
  await expect(shell(page).getByRole('heading', { name: 'Paiements' })).toBeVisible();
  // "29,99 $US": the currency sign's form varies between ICU versions, the decimal comma does not.
  const amount = new Intl.NumberFormat('fr', { minimumFractionDigits: 2 }).format(paid.amount!);
  await expect(shell(page).locator(`tr[data-payment="${paid.paymentId}"]`)).toContainText(amount);
  await expect(shell(page).getByRole('button', { name: 'Rembourser' })).toBeVisible();
});

// ---- issue 38: search, exports, settings, webhook endpoints, test clock, readable audit, TOTP QR code

/** The text of a file the page downloads when `click` runs. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

test('support finds a customer by typing a name, an e-mail or an id (English, 1280 px), and downloads the list as CSV', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const surname = `Lovelace${run}`;
  const ada = await call<{ id: number; primaryEmail: string }>('POST', '/v1/customers', {
    firstName: 'Ada',
    lastName: surname,
    companyName: 'Engines, "Analytical"',
    primaryEmail: `ada.${run}@engines.example`,
    currency: 'USD',
  });
  const formula = await call<{ id: number }>('POST', '/v1/customers', { firstName: '=cmd', lastName: surname, currency: 'USD' });

  await signIn(page, operators.support!);
  const box = shell(page).getByLabel('Query');
  await box.fill(surname.toLowerCase());
  await shell(page).locator('main').getByRole('button', { name: 'Search', exact: true }).click();
  const table = shell(page).getByRole('table', { name: /^Customers, 2 of 2/ });
  await expect(table).toBeVisible();
  await expect(table.locator('tbody tr')).toHaveCount(2);

  await box.fill(ada.primaryEmail.toUpperCase());
  await shell(page).locator('main').getByRole('button', { name: 'Search', exact: true }).click();
  await expect(shell(page).getByRole('table', { name: /^Customers, 1 of 1/ })).toContainText(ada.primaryEmail);

  // The header's search box, from another page: an exact id comes first.
  await shell(page).getByRole('link', { name: 'Payments' }).click();
  await expect(mainHeading(page)).toHaveText('Payments');
  await shell(page).getByRole('search', { name: 'Search customers' }).getByRole('searchbox').fill(String(ada.id));
  await shell(page).getByRole('search', { name: 'Search customers' }).getByRole('button', { name: 'Search customers' }).click();
  await expect(mainHeading(page)).toHaveText('Customers');
  await expect(shell(page).locator('main tbody tr').first().locator('td').first()).toHaveText(String(ada.id));
  // The nav's Customers link is the whole list again.
  await shell(page).getByRole('navigation').getByRole('link', { name: 'Customers' }).click();
  await expect(box).toHaveValue('');
  // Every customer (the caption counts the matches of the whole list: no filter, so all of them).
  await expect(shell(page).getByRole('table', { name: /^Customers, (\d+) of \1$/ })).toBeVisible();
  await expect.poll(() => shell(page).locator('main tbody tr').count()).toBeGreaterThan(2);

  // The export has the search's filter, quotes the company and defuses the formula-looking name.
  await box.fill(surname);
  await shell(page).locator('main').getByRole('button', { name: 'Search', exact: true }).click();
  await expect(shell(page).getByRole('table', { name: /^Customers, 2 of 2/ })).toBeVisible();
  const csv = await downloaded(page, () => shell(page).getByRole('link', { name: 'Download CSV' }).click());
  expect(csv.name).toMatch(/^customers-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = csv.text.trimEnd().split('\r\n');
  expect(lines[0]).toBe('Id,First name,Last name,Company,E-mail,Reference,Status,Account status,Currency,Created');
  expect(lines).toHaveLength(3);
  expect(csv.text).toContain(`${ada.id},Ada,${surname},"Engines, ""Analytical""",${ada.primaryEmail}`);
  expect(csv.text).toContain(`${formula.id},'=cmd,${surname}`);

  // The query language is still there for experts.
  await box.fill(`LastName:${surname}`);
  await shell(page).locator('main').getByRole('button', { name: 'Search', exact: true }).click();
  await expect(shell(page).getByRole('table', { name: /^Customers, 2 of / })).toBeVisible();
});

test('in French at 320 px the header search finds a customer by name, in French words', async ({ page }) => {
  const surname = `Durand${run}`;
  const customerId = (await call<{ id: number }>('POST', '/v1/customers', { firstName: 'Zoé', lastName: surname, currency: 'USD' })).id;
  await page.setViewportSize({ width: 320, height: 800 });
  await signIn(page, operators.billing!);
  await shell(page).getByLabel('Language').selectOption('fr');
  const search = shell(page).getByRole('search', { name: 'Rechercher des clients' });
  await expect(search).toBeVisible();
  await search.getByRole('searchbox').fill(`zoé ${surname.toLowerCase()}`);
  await search.getByRole('button', { name: 'Rechercher des clients' }).click();
  await expect(mainHeading(page)).toHaveText('Clients');
  const row = shell(page).locator('main tbody tr');
  await expect(row).toHaveCount(1);
  await expect(row.first()).toContainText(surname);
  await expect(shell(page).getByText(/chaque mot correspond au début/)).toBeVisible();
  await expect(shell(page).getByRole('link', { name: 'Télécharger en CSV' })).toBeVisible();
  // The search box fits the narrow screen.
  const box = await search.boundingBox();
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(320);
  await row.first().getByRole('link').click();
  await expect(shell(page).getByRole('heading', { name: 'Paramètres de facturation' })).toBeVisible();
  await expect(mainHeading(page)).toContainText(`#${customerId}`);
});

test('the billing operator edits a customer’s billing settings; the API has them and the audit trail reads as changes', async ({
  page,
}) => {
  const active = await customer({ active: true });
  await signIn(page, operators.billing!);
  await page.goto(consoleUrl(`customers/${active.id}`));
  await settled(page);
  const settings = shell(page).getByRole('region', { name: 'Billing settings' });
  await expect(settings.locator('dd[data-setting="term"]')).toHaveText('Net0');
  await settings.getByRole('button', { name: 'Edit billing settings' }).click();
  const dialog = shell(page).getByRole('dialog', { name: 'Edit billing settings' });
  await expect(dialog).toBeVisible();
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(results.violations.map((v) => v.id)).toEqual([]);
  // No card on file: turning auto-collect on is refused by the API, and the dialog says why.
  await dialog.getByLabel('Auto-collect').selectOption({ label: 'on' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).not.toBeEmpty();
  await dialog.getByLabel('Auto-collect').selectOption({ label: 'off' });
  await dialog.getByLabel('Payment terms').selectOption('Net30');
  await dialog.getByLabel('Standing PO number').fill('PO-4711');
  await dialog.getByLabel('Returning from suspension').selectOption('ChargeForLastMissedPeriods');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(settings.getByText('Billing settings saved.')).toBeVisible();
  await expect(settings.locator('dd[data-setting="term"]')).toHaveText('Net30');
  const api = await call<Record<string, unknown>>('GET', `/v1/customerbillingsetting/${active.id}`);
  expect(api).toMatchObject({
    term: 'Net30',
    autoCollect: false,
    standingPoNumber: 'PO-4711',
    customerServiceStartOption: 'ChargeForLastMissedPeriods',
  });

  await page.reload();
  await settled(page);
  const audit = shell(page).getByRole('region', { name: 'Audit trail', exact: true });
  await expect(audit).toContainText(/Payment terms: [^\n]* → Net30/);
  await expect(audit).toContainText('Standing PO number: (none) → PO-4711');
  await expect(audit.locator('code')).toHaveCount(0);
});

test('support sees the billing settings but no edit button', async ({ page }) => {
  const draft = await customer();
  await signIn(page, operators.support!);
  await page.goto(consoleUrl(`customers/${draft.id}`));
  await settled(page);
  await expect(shell(page).getByRole('region', { name: 'Billing settings' })).toBeVisible();
  await expect(shell(page).getByRole('button', { name: 'Edit billing settings' })).toHaveCount(0);
});

test('the owner creates a webhook endpoint (its secret shown once), edits it, and sends a test event that shows in the deliveries', async ({
  page,
}) => {
  await signIn(page, operators.owner!);
  await shell(page).getByRole('link', { name: 'Webhooks' }).click();
  await expect(mainHeading(page)).toHaveText('Webhooks');
  await shell(page).getByRole('button', { name: 'New endpoint' }).click();
  const dialog = shell(page).getByRole('dialog', { name: 'New endpoint' });
  await expect(dialog).toBeVisible();
  const url = `http://127.0.0.1:9/hooks/${run}`;
  await dialog.getByLabel('URL').fill(url);
  await dialog.getByLabel('Description').fill('e2e receiver');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Choose at least one event.');
  await dialog.getByLabel('invoice.paid').check();
  await dialog.getByLabel('payment.failed').check();
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(results.violations.map((v) => v.id)).toEqual([]);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(shell(page).locator('pre[data-endpoint-secret]')).toHaveText(/^whsec_/);
  const endpoints = await call<Array<{ id: number; url: string; eventTypes: string[]; status: string }>>('GET', '/v1/webhookEndpoints');
  const created = endpoints.find((e) => e.url === url);
  expect(created?.eventTypes.sort()).toEqual(['invoice.paid', 'payment.failed']);

  await shell(page)
    .getByRole('button', { name: `Edit ${url}` })
    .click();
  const edit = shell(page).getByRole('dialog', { name: `Edit ${url}` });
  await edit.getByLabel('All events').check();
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  expect((await call<{ eventTypes: string[] }>('GET', `/v1/webhookEndpoints/${created!.id}`)).eventTypes).toEqual(['*']);

  await shell(page)
    .getByRole('button', { name: `Send a test event to ${url}` })
    .click();
  await expect(shell(page).getByText(/^Test event evt_\w+ queued for/)).toBeVisible();
  await expect(shell(page).locator('main tbody tr', { hasText: 'webhookEndpoint.test' }).first()).toContainText(url);

  // Disabled, it offers no test event, and the API has it Disabled.
  await shell(page)
    .getByRole('button', { name: `Edit ${url}` })
    .click();
  await edit.getByLabel('Enabled').uncheck();
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  await expect(shell(page).getByRole('button', { name: `Send a test event to ${url}` })).toHaveCount(0);
  expect((await call<{ status: string }>('GET', `/v1/webhookEndpoints/${created!.id}`)).status).toBe('Disabled');
});

test('TOTP set-up shows a QR code of the otpauth URI, and the secret as text', async ({ page }) => {
  await signIn(page, operators.billing!);
  await shell(page).getByRole('link', { name: 'Account' }).click();
  await shell(page).getByRole('button', { name: 'Set up two-factor authentication' }).click();
  const qr = shell(page).getByRole('img', { name: 'QR code for your authenticator app' });
  await expect(qr).toBeVisible();
  expect(Number(await qr.getAttribute('data-qr-modules'))).toBeGreaterThanOrEqual(25);
  await expect(shell(page).locator('pre[data-otpauth-uri]')).toHaveText(/^otpauth:\/\/totp\//);
  await expect(shell(page).getByText(/^Secret:/)).toBeVisible();
  // The drawing is the URI: its modules, read back from the SVG path, decode (jsQR, an independent reader) to the text shown.
  const path = (await qr.locator('path').getAttribute('d')) ?? '';
  const size = Number((await qr.getAttribute('viewBox'))?.split(' ')[2]);
  const scale = 4;
  const pixels = new Uint8ClampedArray(size * scale * size * scale * 4).fill(255);
  for (const [, x, y] of path.matchAll(/M(\d+),(\d+)/g))
    for (let dy = 0; dy < scale; dy += 1)
      for (let dx = 0; dx < scale; dx += 1) {
        const at = ((Number(y) * scale + dy) * size * scale + Number(x) * scale + dx) * 4;
        pixels.fill(0, at, at + 3);
      }
  // jsqr is CommonJS: its function is also its `default` property, which is how NodeNext types it.
  const decoded = jsqr.default(pixels, size * scale, size * scale);
  expect(decoded?.data).toBe((await shell(page).locator('pre[data-otpauth-uri]').innerText()).trim());
});

test('the test clock page shows the account clock and advances it; a payment is dated by it on Payments and on the customer page alike', async ({
  page,
}) => {
  const paid = await customer({ paid: true });
  await signIn(page, operators.billing!);
  await shell(page).getByRole('link', { name: 'Test clock' }).click();
  await expect(mainHeading(page)).toHaveText('Test clock');
  const clock = shell(page).locator('[data-account-clock]');
  await expect(clock).toContainText('Account clock:');
  const before = Date.parse((await clock.getAttribute('data-account-clock'))!);
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(results.violations.map((v) => v.id)).toEqual([]);
  await shell(page).getByLabel('By').fill('3');
  await shell(page).getByLabel('Unit').selectOption('days');
  await shell(page).getByRole('button', { name: 'Advance the clock' }).click();
  await expect(shell(page).locator('[data-clock-summary]')).toBeVisible({ timeout: 60_000 });
  await expect(clock).toContainText('advanced');
  const after = Date.parse((await clock.getAttribute('data-account-clock'))!);
  expect(Math.round((after - before) / 86_400_000)).toBe(3);
  const api = await call<{ now: string; advanced: boolean }>('GET', '/v1/testclock');
  expect(api).toMatchObject({ now: new Date(after).toISOString(), advanced: true });

  // A payment recorded now is dated on the account's clock: the same date on both pages.
  const payment = await call<{ id: number; effectiveTimestamp: string }>('POST', '/v1/payments', {
    customerId: paid.id,
    amount: 1,
    paymentMethod: 'Check',
  });
  expect(payment.effectiveTimestamp.slice(0, 10)).toBe(new Date(after).toISOString().slice(0, 10));
  await shell(page).getByRole('link', { name: 'Payments' }).click();
  await settled(page);
  const onPayments = (
    await shell(page)
      .locator('main tbody tr', { has: page.locator(`a[href="#/customers/${paid.id}"]`) })
      .first()
      .locator('td')
      .first()
      .innerText()
  ).trim();
  await page.goto(consoleUrl(`customers/${paid.id}`));
  await settled(page);
  const onCustomer = (await shell(page).locator(`tr[data-payment="${payment.id}"] td`).nth(1).innerText()).trim();
  expect(onPayments).toBe(onCustomer);
  expect(onCustomer).toBe(
    new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(payment.effectiveTimestamp)),
  );
});

/** Every value of the enums the console shows (statuses, payment methods, unhold options), as the API spells them in English. */
const ENGLISH_ENUM_WORDS = [
  ...['Draft', 'Active', 'Hold', 'Suspended', 'Cancelled', 'Good', 'Collection', 'PoorStanding', 'Expired'],
  ...['Posted', 'PartiallyPaid', 'Paid', 'Void', 'Succeeded', 'Failed', 'RequiresAction', 'Refunded', 'PartiallyRefunded'],
  ...['NeedsResponse', 'UnderReview', 'Won', 'Lost', 'Validated', 'Processing', 'Completed', 'Invalid', 'Pending', 'Sent'],
  ...['Enabled', 'Disabled', 'CreditCard', 'Cash', 'Check', 'DirectDeposit', 'NoChargesForMissedPeriods', 'InvoicePost', 'PaymentReceived'],
];

/**
 * The text a person sees in the console, through every shadow root: visible text and the options of its selects.
 * `<code>` (raw data: keys, URIs, JSON) is left out.
 */
async function visibleText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const parts: string[] = [];
    const walk = (node: Node) => {
      if (node instanceof HTMLElement) {
        if (node.tagName === 'CODE' || node.tagName === 'STYLE' || node.tagName === 'SCRIPT') return;
        if (node.tagName === 'OPTION') {
          parts.push(node.textContent ?? '');
          return;
        }
        if (node.shadowRoot) walk(node.shadowRoot);
      }
      if (node.nodeType === Node.TEXT_NODE) {
        const parent = node.parentElement;
        if (parent?.checkVisibility() && !parent.closest('.visually-hidden')) parts.push(node.textContent ?? '');
      }
      for (const child of node.childNodes) walk(child);
    };
    walk(document.body);
    return parts.join(' ');
  });
}

test('in French at 320 px no English status word is on screen, and a refusal of the server is told in French', async ({ page }) => {
  const paid = await customer({ paid: true });
  const draft = await customer({ subscribed: true });
  // A charge the sandbox declines for insufficient funds (card 9995): a Failed payment with its decline code.
  const declined = await customer({ active: true });
  const card = await call<{ id: number }>('POST', '/v1/paymentmethods/creditcard', {
    customerId: declined.id,
    cardNumber: '4000000000009995',
    firstName: 'Nora',
    lastName: 'Funds',
    expirationMonth: 12,
    expirationYear: 30,
    cvv: '123',
    isDefault: true,
  });
  await call('POST', '/v1/payments', { customerId: declined.id, amount: 1, paymentMethodId: card.id }).catch(() => undefined);
  const failed = (
    await call<Array<{ id: number; status: string; declineCode: string }>>('GET', `/v1/customers/${declined.id}/payments`)
  )[0]!;
  expect([failed.status, failed.declineCode]).toEqual(['Failed', 'insufficient_funds']);
  await page.setViewportSize({ width: 320, height: 800 });
  await signIn(page, operators.billing!);
  await shell(page).getByLabel('Language').selectOption('fr');
  await expect(shell(page).getByRole('link', { name: 'Clients' })).toBeVisible();

  const routes = [
    'customers',
    `customers/${paid.id}`,
    `customers/${draft.id}`,
    `customers/${declined.id}`,
    'payments',
    'dunning',
    'revenue',
    'webhooks',
    'emails',
    'bulk',
    'account',
  ];
  const english: string[] = [];
  for (const route of routes) {
    await page.goto(consoleUrl(route));
    await expect(mainHeading(page)).toBeVisible();
    await expect(shell(page).getByText('Chargement…')).toHaveCount(0);
    const text = await visibleText(page);
    for (const word of ENGLISH_ENUM_WORDS) if (new RegExp(`\\b${word}\\b`).test(text)) english.push(`#/${route}: ${word}`);
  }
  expect(english).toEqual([]);
  // The statuses are there, in French.
  await page.goto(consoleUrl(`customers/${paid.id}`));
  await expect(shell(page).locator('dd[data-field="status"]')).toHaveText('Actif');
  await expect(shell(page).locator(`tr[data-invoice="${paid.invoiceId}"]`)).toContainText('Payée');
  await expect(shell(page).locator(`tr[data-payment="${paid.paymentId}"]`)).toContainText('Chèque');

  // The skip button (the banner's first control) takes the keyboard to the page's heading.
  await shell(page).getByRole('button', { name: 'Aller au contenu' }).focus();
  await page.keyboard.press('Enter');
  await expect(mainHeading(page)).toBeFocused();
  await page.goto(consoleUrl(`customers/${declined.id}`));
  const failedRow = shell(page).locator(`tr[data-payment="${failed.id}"]`);
  await expect(failedRow).toContainText('Échoué');
  await expect(failedRow).toContainText('Provision insuffisante sur la carte.');
  await page.goto(consoleUrl(`customers/${paid.id}`));
  await settled(page);

  // A refund of more than the payment: the server refuses (value_invalid on amount), the dialog says so in French.
  await shell(page).locator(`tr[data-payment="${paid.paymentId}"]`).getByRole('button', { name: 'Rembourser' }).click();
  const dialog = shell(page).getByRole('dialog');
  await dialog.getByLabel(/^Montant/).fill('999999');
  await dialog.getByRole('button', { name: 'Rembourser' }).click();
  const refusal = dialog.getByRole('alert');
  await expect(refusal).toHaveText('Cette valeur n’est pas acceptée : Montant.');
  expect(await refusal.innerText()).not.toMatch(/more than|left to refund/);
});
