import { z } from 'zod';
import { optionalText } from '../http/field-schemas.js';

const text = optionalText;
const stateIdInput = z.union([z.number().int().positive(), z.string().min(1).max(10)]).nullish();

/** Cardholder and billing address fields, shared by the main host and the card-capture host. */
export const cardholderFields = {
  firstName: z.string().min(1, 'required').max(50, 'must be at most 50 characters'),
  lastName: z.string().min(1, 'required').max(50, 'must be at most 50 characters'),
  address1: text(50),
  address2: text(50),
  countryId: z.number().int().positive().nullish(),
  stateId: stateIdInput,
  city: text(50),
  postalZip: text(10),
  email: text(255),
};

export const CreateCreditCardBody = z.object({
  customerId: z.number().int().positive(),
  /** Digits, spaces or dashes; never stored or logged. */
  cardNumber: z.string().min(1, 'required').max(30),
  expirationMonth: z.number().int(),
  expirationYear: z.number().int(),
  /** A string, so that leading zeros survive. */
  cvv: z.string().min(1, 'required').max(4, 'must be 3 or 4 digits'),
  isDefault: z.boolean().nullish(),
  ...cardholderFields,
});
export type CreateCreditCardInput = z.infer<typeof CreateCreditCardBody>;

export const UpdateCreditCardBody = z.object({
  id: z.number().int().positive(),
  expirationMonth: z.number().int(),
  expirationYear: z.number().int(),
  isDefault: z.boolean().nullish(),
  ...cardholderFields,
});
export type UpdateCreditCardInput = z.infer<typeof UpdateCreditCardBody>;

export const PaymentMethodIdParams = z.object({ paymentMethodId: z.coerce.number().int().positive() });

export const CreditCardResponse = z.object({
  maskedCardNumber: z.string(),
  cardType: z.string(),
  expirationMonth: z.number(),
  expirationYear: z.number(),
  customerId: z.number(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  address1: z.string().nullable(),
  address2: z.string().nullable(),
  countryId: z.number().nullable(),
  country: z.string().nullable(),
  stateId: z.number().nullable(),
  state: z.string().nullable(),
  city: z.string().nullable(),
  postalZip: z.string().nullable(),
  isDefault: z.boolean(),
  externalCustomerId: z.string().nullable(),
  externalCardId: z.string().nullable(),
  storedInPlatformVault: z.boolean(),
  email: z.string().nullable(),
  modifiedDate: z.string(),
  originalPaymentMethodId: z.number().nullable(),
  id: z.number(),
  uri: z.string(),
});
export type CreditCardResponse = z.infer<typeof CreditCardResponse>;
