import { item, Refusal } from '../refusals/refusal.js';
import { diffFields, recordChange } from '../audit/audit-log.js';
import { findCustomerRowOnce, lockCustomer } from '../customers/repository.js';
import type { Insertable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { CustomerRow, PaymentMethodsTable } from '../db/schema.js';
import { locationNames, resolveLocation } from '../geo/resolve-location.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { ResourceWebhooks } from '../outbox/webhook-events.js';
import { API_ERROR_KEY, type ErrorCode } from '../refusals/error-codes.js';
import type { UriBuilder } from '../uri-builder.js';
import { checkCard } from '../gateway/card-checks.js';
import { callGateway } from '../gateway/call-gateway.js';
import type { GatewayAction, ValidatedCard } from '../gateway/payment-gateway.js';
import { turnOffAutoCollect } from '../billing-settings/repository.js';
import type { DefaultCardPort } from '../billing-settings/service.js';
import {
  clearDefaultCard,
  lockCustomerCountingCards,
  findPaymentMethod,
  hasActiveCard,
  insertPaymentMethod,
  makeDefaultCard,
  newestPaymentMethod,
  updatePaymentMethodRow,
  type PaymentMethodRow,
} from './repository.js';
import type { CreateCreditCardInput, CreditCardResponse, UpdateCreditCardInput } from './schemas.js';

export function toCreditCardResponse(row: PaymentMethodRow, uris: UriBuilder): CreditCardResponse {
  return {
    maskedCardNumber: `************${row.lastFour ?? ''}`,
    cardType: row.cardBrand ?? 'Unknown',
    expirationMonth: row.expirationMonth ?? 0,
    expirationYear: (row.expirationYear ?? 0) % 100,
    customerId: row.customerId,
    firstName: row.firstName,
    lastName: row.lastName,
    address1: row.address1,
    address2: row.address2,
    countryId: row.countryId,
    stateId: row.stateId,
    ...locationNames(row.countryId, row.stateId),
    city: row.city,
    postalZip: row.postalZip,
    isDefault: row.isDefault,
    externalCustomerId: row.gatewayCustomerId,
    externalCardId: row.gatewayToken,
    storedInPlatformVault: true,
    email: row.email,
    modifiedDate: row.modifiedAt.toISOString(),
    originalPaymentMethodId: null,
    id: row.id,
    uri: uris.resource('paymentMethods', `${row.id}/creditCard`),
  };
}

/** Where the card comes from changes what is required: the capture host passes risk signals. */
export interface AddCardOptions {
  /** Forces the new card to be the default (the first card is the default regardless). */
  makeDefault?: boolean;
  /**
   * Set when this caller may not take the default from an existing card (the capture host without a
   * capture token): asking to is then refused with this reason and code, 400 keyed makeDefault, never ignored.
   */
  mayNotMoveDefault?: DefaultMoveRefusal;
  risk?: { riskToken: string; clientIp: string; email: string } | null;
}

/**
 * Validates a card with the gateway and keeps only what it gives back: the
 * token, brand, last four digits and expiry. The first card of a customer
 * becomes its default; isDefault moves the default.
 */
export async function addCreditCard(
  ctx: AppContext,
  caller: Caller,
  input: CreateCreditCardInput,
  options: AddCardOptions = {},
): Promise<CreditCardResponse> {
  const card = await validateCard(ctx, caller, input, options);
  const row = await ctx.db
    .transaction()
    .execute(async (trx) =>
      insertValidatedCard(trx, caller, card, { webhooks: ctx.webhooks, now: await ctx.clock.now(caller.accountId, trx) }),
    );
  return toCreditCardResponse(row, ctx.uris);
}

/** A card the gateway validated, for its customer, not stored yet. */
export interface CardReadyToStore {
  customer: CustomerRow;
  /** Every column of the new row but its default flag and removal. */
  values: Omit<Insertable<PaymentMethodsTable>, 'isDefault' | 'removedAt'>;
  /** Asked to become the default (the first card is the default regardless). */
  wantsDefault: boolean;
  /** Why this caller may not move an existing default (AddCardOptions.mayNotMoveDefault), if it may not. */
  mayNotMoveDefault?: DefaultMoveRefusal;
}

/** The refusal a caller that may not move a customer's default card gets when it asks to. */
export interface DefaultMoveRefusal {
  message: string;
  code: ErrorCode;
}

/** A card asked to take the default from an existing one by a caller that may not: refused, never stored as a silent non-default. */
function refuseMovingDefault(refusal: DefaultMoveRefusal): Refusal {
  return Refusal.invalid(refusal.message, 'makeDefault', refusal.code);
}

/** A card its bank wants the customer to authenticate before it is saved: everything to store it, but the gateway's token. */
export interface CardAwaitingAuthentication {
  customer: CustomerRow;
  values: Omit<CardReadyToStore['values'], 'gatewayToken' | 'gatewayCustomerId' | 'cardBrand' | 'lastFour'>;
  wantsDefault: boolean;
  mayNotMoveDefault?: DefaultMoveRefusal;
  action: GatewayAction;
}

/**
 * Checks the card locally, then with the gateway, for an existing, not cancelled customer; nothing is
 * stored (insertValidatedCard does that, in the caller's transaction). A card whose bank asks for
 * authentication (3-D Secure) comes back as `awaiting`, to be completed by `cardAfterAuthentication`.
 */
export async function startCardValidation(
  ctx: AppContext,
  caller: Caller,
  input: CreateCreditCardInput,
  options: AddCardOptions = {},
): Promise<{ ready: CardReadyToStore } | { awaiting: CardAwaitingAuthentication }> {
  const { number, fullYear } = checkCard(input);
  const location = resolveLocation({ country: input.countryId, state: input.stateId }, { country: 'countryId', state: 'stateId' });
  // Once per transaction or read scope: a capture's earlier steps read it already.
  const customer = await findCustomerRowOnce(ctx.db, caller.accountId, input.customerId);
  if (!customer) throw Refusal.notFound('customer', input.customerId);
  if (customer.status === 'Cancelled')
    throw Refusal.invalid('a cancelled customer cannot get payment methods', 'customerId', 'state_conflict');
  const wantsDefault = input.isDefault === true || options.makeDefault === true;
  // Checked before the gateway is called (and again under the customer's lock, in lockCustomerForNewCard).
  if (wantsDefault && options.mayNotMoveDefault !== undefined && (await hasActiveCard(ctx.db, customer.id)))
    throw refuseMovingDefault(options.mayNotMoveDefault);

  const outcome = await callGateway(ctx, (signal) =>
    ctx.payments.gateway.validateCard(
      {
        number,
        expirationMonth: input.expirationMonth,
        expirationYear: fullYear,
        cvv: input.cvv,
        firstName: input.firstName,
        lastName: input.lastName,
        postalZip: input.postalZip,
        risk: options.risk,
      },
      signal,
    ),
  );
  if (outcome.status === 'declined') throw cardDeclined(outcome);
  const kept = {
    customer,
    values: {
      accountId: caller.accountId,
      customerId: customer.id,
      expirationMonth: input.expirationMonth,
      expirationYear: fullYear,
      ...holderColumns(input, location),
    },
    wantsDefault,
    ...(options.mayNotMoveDefault !== undefined ? { mayNotMoveDefault: options.mayNotMoveDefault } : {}),
  };
  if (outcome.status === 'requiresAction') return { awaiting: { ...kept, action: outcome.action } };
  return { ready: withGatewayCard(kept, outcome.value) };
}

/** The card as the gateway saved it, ready to store (after its validation, or its completed authentication). */
export function withGatewayCard(card: Omit<CardAwaitingAuthentication, 'action'>, saved: ValidatedCard): CardReadyToStore {
  return {
    customer: card.customer,
    values: {
      ...card.values,
      gatewayToken: saved.token,
      gatewayCustomerId: saved.gatewayCustomerId,
      cardBrand: saved.brand,
      lastFour: saved.lastFour,
    },
    wantsDefault: card.wantsDefault,
    ...(card.mayNotMoveDefault !== undefined ? { mayNotMoveDefault: card.mayNotMoveDefault } : {}),
  };
}

/**
 * The 400 of a card the gateway refused at validation (or whose authentication failed), with the gateway's
 * `declineCode` as a declined payment's 402 has it: the checkout and the portal tell the reason in the customer's words.
 */
export function cardDeclined(outcome: { code: string; message: string }): Refusal {
  const code = outcome.code.startsWith('authentication_') ? 'authentication_failed' : 'card_declined';
  return new Refusal('invalid', [
    item(API_ERROR_KEY, `validation error: ${outcome.message} (${outcome.code})`, code),
    item('declineCode', outcome.code, code),
  ]);
}

/**
 * startCardValidation for a caller that cannot bring the customer to a challenge (the private API's
 * POST of a card): a card that asks for authentication is refused, pointing to the card-capture host.
 */
export async function validateCard(
  ctx: AppContext,
  caller: Caller,
  input: CreateCreditCardInput,
  options: AddCardOptions = {},
): Promise<CardReadyToStore> {
  const started = await startCardValidation(ctx, caller, input, options);
  if ('ready' in started) return started.ready;
  throw Refusal.invalid(
    "the card's bank asks the customer to authenticate it (3-D Secure): add it through the card-capture host (the checkout or the hosted card fields), where the customer can",
    API_ERROR_KEY,
    'authentication_required',
  );
}

/**
 * Stores a validated card in the caller's transaction, under the customer's lock:
 * the first card, or one asked to be, becomes the default. `removed` stores it
 * already removed (a card whose first charge failed: kept for the record, never used).
 */
export async function insertValidatedCard(
  trx: Queryable,
  caller: Caller,
  card: CardReadyToStore,
  options: { now: Date; removed?: boolean; webhooks?: ResourceWebhooks | undefined },
): Promise<PaymentMethodRow> {
  const isDefault = await lockCustomerForNewCard(trx, caller, card, options.removed === true);
  const now = options.now;
  const created = await insertPaymentMethod(trx, {
    ...card.values,
    isDefault,
    modifiedAt: now,
    ...(options.removed ? { removedAt: now } : {}),
  });
  await recordChange(trx, caller, {
    entityType: 'PaymentMethod',
    entityId: created.id,
    action: 'create',
    changes: newCardAuditChanges(card, isDefault, options.removed === true),
  });
  if (!options.removed) await options.webhooks?.paymentMethod(trx, created, 'paymentMethod.created', now);
  return created;
}

/**
 * Locks the customer for a new card (404 when it is gone) and says whether the card becomes the
 * default: the first card, or one asked to be (never a removed one). A new default takes the flag
 * off the customer's other cards here. A caller that may not move the default and asks to is refused.
 */
export async function lockCustomerForNewCard(trx: Queryable, caller: Caller, card: CardReadyToStore, removed: boolean): Promise<boolean> {
  const customerId = card.customer.id;
  const locked = await lockCustomerCountingCards(trx, caller.accountId, customerId);
  if (!locked) throw Refusal.notFound('customer', customerId);
  const isFirst = locked.paymentMethodCount === 0;
  if (!removed && !isFirst && card.wantsDefault && card.mayNotMoveDefault !== undefined) throw refuseMovingDefault(card.mayNotMoveDefault);
  const isDefault = !removed && (isFirst || card.wantsDefault);
  if (isDefault && !isFirst) {
    await clearDefaultCard(trx, customerId);
  }
  return isDefault;
}

/** The audit entry's changes of a new card. Only what the gateway returned is audited: never the number or the CVV. */
export function newCardAuditChanges(card: CardReadyToStore, isDefault: boolean, removed: boolean): Record<string, unknown> {
  return {
    customerId: card.customer.id,
    cardType: card.values.cardBrand ?? null,
    lastFour: card.values.lastFour ?? null,
    isDefault,
    ...(removed ? { removed: true } : {}),
  };
}

export async function getCreditCard(ctx: AppContext, caller: Caller, id: number): Promise<CreditCardResponse> {
  const row = await findPaymentMethod(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('payment method', id);
  return toCreditCardResponse(row, ctx.uris);
}

/** Name, address, expiry and default can change; the card itself cannot (add a new one). */
export async function updateCreditCard(ctx: AppContext, caller: Caller, input: UpdateCreditCardInput): Promise<CreditCardResponse> {
  if (input.expirationMonth < 1 || input.expirationMonth > 12) throw Refusal.invalid('must be 1-12', 'expirationMonth', 'card_invalid');
  if (input.expirationYear < 0 || input.expirationYear > 99)
    throw Refusal.invalid('must be two digits (YY)', 'expirationYear', 'card_invalid');
  const location = resolveLocation({ country: input.countryId, state: input.stateId }, { country: 'countryId', state: 'stateId' });
  const row = await ctx.db.transaction().execute(async (trx) => {
    const current = await findPaymentMethod(trx, caller.accountId, input.id);
    if (!current) throw Refusal.notFound('payment method', input.id);
    await lockCustomer(trx, caller.accountId, current.customerId);
    if (input.isDefault && !current.isDefault) {
      await clearDefaultCard(trx, current.customerId);
    }
    const columns = {
      ...holderColumns(input, location),
      expirationMonth: input.expirationMonth,
      expirationYear: 2000 + input.expirationYear,
      // The default can move to this card; it is never left without one by PUT.
      isDefault: current.isDefault || input.isDefault === true,
    };
    const updated = await updatePaymentMethodRow(trx, current.id, { ...columns, modifiedAt: await ctx.clock.now(caller.accountId, trx) });
    await recordChange(trx, caller, {
      entityType: 'PaymentMethod',
      entityId: current.id,
      action: 'update',
      changes: diffFields(current, columns),
    });
    return updated;
  });
  return toCreditCardResponse(row, ctx.uris);
}

/**
 * Clears a card: it stays in the records (payments refer to it) but is gone from
 * the customer. A removed default passes to the newest remaining card; with no
 * card left, auto-collection is switched off.
 */
export async function removeCreditCard(ctx: AppContext, caller: Caller, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const current = await findPaymentMethod(trx, caller.accountId, id);
    if (!current) throw Refusal.notFound('payment method', id);
    await lockCustomer(trx, caller.accountId, current.customerId);
    const now = await ctx.clock.now(caller.accountId, trx);
    await updatePaymentMethodRow(trx, id, { removedAt: now, isDefault: false, modifiedAt: now });
    if (current.isDefault) {
      const next = await newestPaymentMethod(trx, current.customerId);
      if (next) await updatePaymentMethodRow(trx, next.id, { isDefault: true, modifiedAt: now });
      else {
        await turnOffAutoCollect(trx, current.customerId);
      }
    }
    await recordChange(trx, caller, {
      entityType: 'PaymentMethod',
      entityId: id,
      action: 'delete',
      changes: { customerId: current.customerId, lastFour: current.lastFour },
    });
    const removed = await findPaymentMethod(trx, caller.accountId, id);
    if (removed) await ctx.webhooks?.paymentMethod(trx, removed, 'paymentMethod.deleted', now);
  });
}

/** A billing setting's `defaultPaymentMethodId` moves the default card through this (the wiring hands it to billing-settings). */
export const defaultCards: DefaultCardPort = { makeDefault: makeDefaultCard };

/** The card holder's name and address as stored, from a create or an update. */
function holderColumns<Location extends object>(input: HolderInput, location: Location) {
  return {
    firstName: input.firstName,
    lastName: input.lastName,
    address1: input.address1 ?? null,
    address2: input.address2 ?? null,
    ...location,
    city: input.city ?? null,
    postalZip: input.postalZip ?? null,
    email: input.email ?? null,
  };
}

interface HolderInput {
  firstName: string;
  lastName: string;
  address1?: string | null | undefined;
  address2?: string | null | undefined;
  city?: string | null | undefined;
  postalZip?: string | null | undefined;
  email?: string | null | undefined;
}
