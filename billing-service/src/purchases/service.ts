import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import type { Catalog } from '../catalog/schema.js';
import { lockCustomer } from '../db/customer-lock.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import { money, roundToCurrency, toJsonAmount, type Money } from '../money/money.js';
import { Refusal } from '../refusals/refusal.js';
import type { UriBuilder } from '../uri-builder.js';
import { deleteDraftPurchase, findPurchase, insertPurchase, type PurchaseRow } from './repository.js';
import type { CreatePurchaseInput, PurchaseResponse } from './schemas.js';

/**
 * Invoicing a purchase at once (`invoiceNow`): a port the wiring implements with the invoice and
 * collection paths above this layer (lifecycle/purchase-invoicing.ts), as billing-settings' DefaultCardPort.
 */
export interface PurchaseInvoicing {
  /** In the purchase's transaction, under the customer's lock: an invoice of these purchases, posted. */
  invoiceNow(ctx: AppContext, trx: Queryable, customer: CustomerRow, purchaseIds: number[], now: Date): Promise<void>;
  /** After the commit: the customer's auto-collect settings decide whether what is due is charged now. */
  collect(ctx: AppContext, customer: CustomerRow, now: Date): Promise<void>;
}

/** The customer statuses a purchase may be made in: Draft (billed on activation) and Active. */
const OPEN_STATUSES = ['Draft', 'Active'];

export function toPurchaseResponse(row: PurchaseRow, uris: UriBuilder): PurchaseResponse {
  return {
    customerId: row.customerId,
    status: row.status,
    productCode: row.productCode,
    name: row.name,
    description: row.description,
    quantity: toJsonAmount(row.quantity),
    unitPrice: toJsonAmount(row.unitPrice),
    amount: toJsonAmount(row.amount),
    currency: row.currency,
    invoiceId: row.invoiceId,
    createdTimestamp: row.createdAt.toISOString(),
    invoicedTimestamp: row.invoicedAt?.toISOString() ?? null,
    id: row.id,
    uri: uris.resource('purchases', row.id),
  };
}

export async function getPurchase(ctx: AppContext, caller: Caller, id: number): Promise<PurchaseResponse> {
  const row = await findPurchase(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('purchase', id);
  return toPurchaseResponse(row, ctx.uris);
}

/** What is sold: a catalogue product's name and price in the currency, or the ad hoc name and amount. */
function pricedLine(catalog: Catalog, input: CreatePurchaseInput, currency: string): { name: string; unitPrice: Money } {
  if (input.productCode != null) {
    for (const field of ['name', 'amount'] as const)
      if (input[field] != null) throw Refusal.invalid('give productCode, or name and amount, not both', field, 'value_invalid');
    const product = catalog.oneTimeProducts.find((p) => p.code === input.productCode);
    if (!product) throw Refusal.invalid(`no one-time product ${input.productCode} in the catalogue`, 'productCode', 'value_invalid');
    const price = product.prices.find((p) => p.currency === currency);
    if (!price) throw Refusal.invalid(`${product.code} is not sold in ${currency}`, 'productCode', 'value_invalid');
    return { name: product.name, unitPrice: money(price.amount) };
  }
  for (const field of ['name', 'amount'] as const)
    if (input[field] == null) throw Refusal.invalid('required unless productCode is given', field, 'value_required');
  return { name: input.name ?? '', unitPrice: amountInCurrency(input.amount ?? '0', currency, 'amount') };
}

/**
 * A purchase, under the customer's lock: a Draft customer's is Draft (activation bills it with
 * `activateAllDraftPurchases`); an Active customer's waits as Pending for the next renewal's invoice,
 * or with `invoiceNow` is invoiced and posted in this transaction, then collected after the commit.
 * Held, suspended and cancelled customers are refused: nothing would bill it.
 */
export async function createPurchase(
  ctx: AppContext,
  caller: Caller,
  input: CreatePurchaseInput,
  invoicing: PurchaseInvoicing,
): Promise<PurchaseResponse> {
  const now = await ctx.clock.now(caller.accountId);
  const { row, customer } = await ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, caller.accountId, input.customerId);
    if (!customer) throw Refusal.notFound('customer', input.customerId);
    if (!OPEN_STATUSES.includes(customer.status))
      throw Refusal.conflict(`a ${customer.status} customer cannot make a purchase`, 'customerId', 'state_conflict');
    if (input.invoiceNow && customer.status === 'Draft')
      throw Refusal.conflict("a Draft customer's purchases are invoiced at its activation", 'invoiceNow', 'state_conflict');
    const { name, unitPrice } = pricedLine(ctx.catalog, input, customer.currency);
    const quantity = money(input.quantity);
    const created = await insertPurchase(trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      status: customer.status === 'Draft' ? 'Draft' : 'Pending',
      productCode: input.productCode ?? null,
      name,
      description: input.description ?? null,
      quantity: quantity.toString(),
      unitPrice: unitPrice.toString(),
      amount: roundToCurrency(quantity.times(unitPrice), customer.currency).toString(),
      currency: customer.currency,
      createdAt: now,
    });
    await recordChange(trx, caller, {
      entityType: 'Purchase',
      entityId: created.id,
      action: 'create',
      changes: { customerId: customer.id, productCode: created.productCode, name, quantity: created.quantity, amount: created.amount },
    });
    await ctx.webhooks?.purchaseCreated(trx, caller.accountId, customer.id, toPurchaseResponse(created, ctx.uris), now);
    if (input.invoiceNow) await invoicing.invoiceNow(ctx, trx, customer, [created.id], now);
    return { row: created, customer };
  });
  if (input.invoiceNow) await invoicing.collect(ctx, customer, now);
  return getPurchase(ctx, caller, row.id);
}

/** Deletes a Draft purchase (one not billed yet, of a customer not activated); any other is a 409. */
export async function deletePurchase(ctx: AppContext, caller: Caller, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const found = await findPurchase(trx, caller.accountId, id);
    if (!found) throw Refusal.notFound('purchase', id);
    // the customer's lock first: activation reads the Draft purchases under it
    await lockCustomer(trx, caller.accountId, found.customerId);
    const deleted = await deleteDraftPurchase(trx, caller.accountId, id);
    if (!deleted) throw Refusal.conflict(`only a Draft purchase can be deleted; this one is ${found.status}`, 'id', 'purchase_not_draft');
    await recordChange(trx, caller, {
      entityType: 'Purchase',
      entityId: id,
      action: 'delete',
      changes: { customerId: deleted.customerId, name: deleted.name, amount: deleted.amount },
    });
  });
}
