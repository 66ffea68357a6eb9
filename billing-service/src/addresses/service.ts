import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';
import { diffFields, recordChange } from '../audit/audit-log.js';
import { lockCustomer, customerExists } from '../db/customer-lock.js';
import type { Queryable } from '../db/database.js';
import { locationNames, resolveLocation } from '../geo/resolve-location.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { UriBuilder } from '../uri-builder.js';
import {
  findAddress,
  findAddressOfType,
  findAddressPreferences,
  findCustomerAddresses,
  insertAddressRow,
  isSecondAddressOfType,
  saveAddressPreferences,
  updateAddressRow,
  type AddressRow,
} from './repository.js';
import type {
  AddressPreferencesResponse,
  AddressResponse,
  CreateAddressInput,
  EmbeddedAddressInput,
  UpdateAddressInput,
  UpdateAddressPreferencesInput,
} from './schemas.js';

export function toAddressResponse(row: AddressRow, uris: UriBuilder): AddressResponse {
  return {
    customerAddressPreferenceId: row.customerId,
    addressType: row.addressType as AddressResponse['addressType'],
    companyName: row.companyName,
    line1: row.line1,
    line2: row.line2,
    countryId: row.countryId,
    stateId: row.stateId,
    ...locationNames(row.countryId, row.stateId),
    city: row.city,
    postalZip: row.postalZip,
    valid: row.valid,
    id: row.id,
    uri: uris.resource('Addresses', row.id),
  };
}

/** The stored columns for an address body: PUT semantics, omitted lines become null. */
function addressColumns(input: EmbeddedAddressInput | CreateAddressInput | UpdateAddressInput, keyPrefix: string) {
  const location = resolveLocation(
    { country: input.countryId, state: input.stateId },
    { country: `${keyPrefix}countryId`, state: `${keyPrefix}stateId` },
  );
  return {
    companyName: input.companyName ?? null,
    line1: input.line1 ?? null,
    line2: input.line2 ?? null,
    city: input.city ?? null,
    postalZip: input.postalZip ?? null,
    ...location,
    ...(input.valid != null ? { valid: input.valid } : {}),
  };
}

const oneOfEachType = (type: string) => `only one ${type.toLowerCase()} address per customer; update the existing one instead`;

export async function getAddress(ctx: AppContext, caller: Caller, id: number): Promise<AddressResponse> {
  const row = await findAddress(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('address', id);
  return toAddressResponse(row, ctx.uris);
}

export async function createAddress(ctx: AppContext, caller: Caller, input: CreateAddressInput): Promise<AddressResponse> {
  const columns = addressColumns(input, '');
  const row = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const customer = await lockCustomer(trx, caller.accountId, input.customerAddressPreferenceId);
      if (!customer) throw Refusal.notFound('customer', input.customerAddressPreferenceId);
      if (await findAddressOfType(trx, customer.id, input.addressType))
        throw Refusal.invalid(oneOfEachType(input.addressType), API_ERROR_KEY, 'value_taken');
      const created = await insertAddressRow(trx, {
        accountId: caller.accountId,
        customerId: customer.id,
        addressType: input.addressType,
        ...columns,
      });
      await recordChange(trx, caller, { entityType: 'Address', entityId: created.id, action: 'create', changes: { ...input } });
      return created;
    })
    .catch((error) => {
      if (isSecondAddressOfType(error)) throw Refusal.invalid(oneOfEachType(input.addressType), API_ERROR_KEY, 'value_taken');
      throw error;
    });
  return toAddressResponse(row, ctx.uris);
}

export async function updateAddress(ctx: AppContext, caller: Caller, input: UpdateAddressInput): Promise<AddressResponse> {
  const columns = addressColumns(input, '');
  const row = await ctx.db.transaction().execute(async (trx) => {
    const current = await findAddress(trx, caller.accountId, input.id);
    if (!current) throw Refusal.notFound('address', input.id);
    if (input.customerAddressPreferenceId != null && input.customerAddressPreferenceId !== current.customerId) {
      throw Refusal.invalid('an address cannot move to another customer', 'customerAddressPreferenceId', 'value_invalid');
    }
    if (input.addressType != null && input.addressType !== current.addressType) {
      throw Refusal.invalid(
        `addressType cannot change (it is ${current.addressType}); create a ${input.addressType} address instead`,
        'addressType',
        'value_invalid',
      );
    }
    const updated = await updateAddressRow(trx, current.id, columns);
    await recordChange(trx, caller, {
      entityType: 'Address',
      entityId: current.id,
      action: 'update',
      changes: diffFields(current, columns),
    });
    return updated;
  });
  return toAddressResponse(row, ctx.uris);
}

async function readAddressPreferences(db: Queryable, uris: UriBuilder, customerId: number): Promise<AddressPreferencesResponse> {
  const [preferences, addresses] = await Promise.all([findAddressPreferences(db, customerId), findCustomerAddresses(db, customerId)]);
  const ofType = (type: string) => {
    const row = addresses.find((a) => a.addressType === type);
    return row ? toAddressResponse(row, uris) : null;
  };
  return {
    contactName: preferences?.contactName ?? null,
    shippingInstructions: preferences?.shippingInstructions ?? null,
    useBillingAddressAsShippingAddress: preferences?.useBillingAddressAsShippingAddress ?? false,
    billingAddress: ofType('Billing'),
    shippingAddress: ofType('Shipping'),
    id: customerId,
    uri: uris.resource('customerAddressPreferences', customerId),
  };
}

export async function getAddressPreferences(ctx: AppContext, caller: Caller, customerId: number): Promise<AddressPreferencesResponse> {
  if (!(await customerExists(ctx.db, caller.accountId, customerId))) throw Refusal.notFound('customer', customerId);
  return readAddressPreferences(ctx.db, ctx.uris, customerId);
}

/**
 * Replaces the preferences. An embedded billing or shipping address is saved
 * as that customer's address of the type (created or updated); an omitted or
 * null one is left as it is, since addresses have their own endpoints.
 */
export async function updateAddressPreferences(
  ctx: AppContext,
  caller: Caller,
  input: UpdateAddressPreferencesInput,
): Promise<AddressPreferencesResponse> {
  const embedded = [
    { type: 'Billing', input: input.billingAddress, key: 'billingAddress.' },
    { type: 'Shipping', input: input.shippingAddress, key: 'shippingAddress.' },
  ].flatMap((e) => (e.input ? [{ ...e, input: e.input, columns: addressColumns(e.input, e.key) }] : []));
  return ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, caller.accountId, input.id);
    if (!customer) throw Refusal.notFound('customer', input.id);
    // Left out (under both names), the flag keeps its stored value; only an explicit null is refused (by the schema).
    const current = await findAddressPreferences(trx, customer.id);
    const useBillingAsShipping =
      input.useBillingAddressAsShippingAddress ?? input.useBillingAsShipping ?? current?.useBillingAddressAsShippingAddress ?? false;
    await saveAddressPreferences(trx, {
      customerId: customer.id,
      contactName: input.contactName ?? null,
      shippingInstructions: input.shippingInstructions ?? null,
      useBillingAddressAsShippingAddress: useBillingAsShipping,
    });
    for (const address of embedded) {
      if (address.input.addressType != null && address.input.addressType !== address.type) {
        throw Refusal.invalid(
          `the ${address.key.slice(0, -1)} is the ${address.type} address; its addressType cannot be ${address.input.addressType}`,
          `${address.key}addressType`,
          'value_invalid',
        );
      }
      if (address.input.customerAddressPreferenceId != null && address.input.customerAddressPreferenceId !== customer.id) {
        throw Refusal.invalid('an address cannot move to another customer', `${address.key}customerAddressPreferenceId`, 'value_invalid');
      }
      const existing = await findAddressOfType(trx, customer.id, address.type);
      if (address.input.id != null && address.input.id !== existing?.id) {
        throw Refusal.invalid(
          `address ${address.input.id} is not this customer's ${address.type.toLowerCase()} address`,
          `${address.key}id`,
          'value_invalid',
        );
      }
      if (existing) await updateAddressRow(trx, existing.id, address.columns);
      else
        await insertAddressRow(trx, {
          accountId: caller.accountId,
          customerId: customer.id,
          addressType: address.type,
          ...address.columns,
        });
    }
    await recordChange(trx, caller, {
      entityType: 'CustomerAddressPreferences',
      entityId: customer.id,
      action: 'update',
      changes: { ...input },
    });
    return readAddressPreferences(trx, ctx.uris, customer.id);
  });
}
