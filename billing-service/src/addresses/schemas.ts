import { z } from 'zod';
import { optionalText } from '../http/field-schemas.js';

export const ADDRESS_TYPES = ['Billing', 'Shipping'] as const;

const text = optionalText;
/** A state id, or its ISO 3166-2 code in its place (`CA-ON`). */
const stateIdInput = z.union([z.number().int().positive(), z.string().min(1).max(10)]).nullish();

/** Address lines as the spec bounds them; shared by the address endpoints and the address-preferences PUT. */
export const addressFields = {
  companyName: text(255),
  line1: text(60),
  line2: text(60),
  countryId: z.number().int().positive().nullish(),
  stateId: stateIdInput,
  city: text(50),
  postalZip: text(10),
  valid: z.boolean().nullish(),
};

export const CreateAddressBody = z.object({
  customerAddressPreferenceId: z.number().int().positive(),
  addressType: z.enum(ADDRESS_TYPES),
  ...addressFields,
});
export type CreateAddressInput = z.infer<typeof CreateAddressBody>;

export const UpdateAddressBody = z.object({
  id: z.number().int().positive(),
  customerAddressPreferenceId: z.number().int().positive().nullish(),
  addressType: z.enum(ADDRESS_TYPES).nullish(),
  ...addressFields,
});
export type UpdateAddressInput = z.infer<typeof UpdateAddressBody>;

/**
 * An address embedded in the address-preferences PUT: its type comes from where it
 * sits. The GET's `addressType` and `customerAddressPreferenceId` sent back are
 * accepted; another type or customer is refused by the service, not ignored.
 */
export const EmbeddedAddressInput = z.object({
  id: z.number().int().positive().nullish(),
  customerAddressPreferenceId: z.number().int().positive().nullish(),
  addressType: z.enum(ADDRESS_TYPES).nullish(),
  ...addressFields,
});
export type EmbeddedAddressInput = z.infer<typeof EmbeddedAddressInput>;

export const AddressIdParams = z.object({ addressId: z.coerce.number().int().positive() });

export const AddressResponse = z.object({
  customerAddressPreferenceId: z.number(),
  addressType: z.enum(ADDRESS_TYPES),
  companyName: z.string().nullable(),
  line1: z.string().nullable(),
  line2: z.string().nullable(),
  countryId: z.number().nullable(),
  country: z.string().nullable(),
  stateId: z.number().nullable(),
  state: z.string().nullable(),
  city: z.string().nullable(),
  postalZip: z.string().nullable(),
  valid: z.boolean(),
  id: z.number(),
  uri: z.string(),
});
export type AddressResponse = z.infer<typeof AddressResponse>;

export const AddressPreferencesResponse = z.object({
  contactName: z.string().nullable(),
  shippingInstructions: z.string().nullable(),
  useBillingAddressAsShippingAddress: z.boolean(),
  billingAddress: AddressResponse.nullable(),
  shippingAddress: AddressResponse.nullable(),
  id: z.number(),
  uri: z.string(),
});
export type AddressPreferencesResponse = z.infer<typeof AddressPreferencesResponse>;

const conversionError = 'conversion error: must be true or false, not null';
/**
 * `useBillingAsShipping` is the update description's name for the same flag.
 * null is refused with the spec's conversion error on the field; left out, the
 * stored value stays; both names with different values are refused.
 */
export const UpdateAddressPreferencesBody = z
  .object({
    id: z.number().int().positive(),
    contactName: text(100),
    shippingInstructions: text(1000),
    useBillingAddressAsShippingAddress: z.boolean({ error: conversionError }).nullable().optional(),
    useBillingAsShipping: z.boolean({ error: conversionError }).nullable().optional(),
    billingAddress: EmbeddedAddressInput.nullish(),
    shippingAddress: EmbeddedAddressInput.nullish(),
  })
  .superRefine((body, ctx) => {
    for (const name of ['useBillingAddressAsShippingAddress', 'useBillingAsShipping'] as const) {
      if (name in body && body[name] === null) ctx.addIssue({ code: 'custom', path: [name], message: conversionError });
    }
    if (
      body.useBillingAddressAsShippingAddress != null &&
      body.useBillingAsShipping != null &&
      body.useBillingAddressAsShippingAddress !== body.useBillingAsShipping
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['useBillingAsShipping'],
        message: 'another name for useBillingAddressAsShippingAddress: give one value',
      });
    }
  });
export type UpdateAddressPreferencesInput = z.infer<typeof UpdateAddressPreferencesBody>;
