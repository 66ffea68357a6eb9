import { isIP } from 'node:net';
import { z } from 'zod';
import { API_ERROR_KEY, ApiError, unstorableText, validationError, type ErrorCode, type ErrorItem } from '@renew/billing-service/http';
import { cardholderFields } from '@renew/billing-service/payments';

/**
 * The parameters of POST /api/paymentsv2 as the spec's table names them. Any
 * casing is accepted (`CardNumber`, `CARDNUMBER`); `g-recaptcha-response`
 * (the field reCAPTCHA's widget adds to a form) is accepted for `recaptcha`.
 */
export const PARAMETER_NAMES = [
  'customerId',
  'publicApiKey',
  'cardNumber',
  'firstName',
  'lastName',
  'expirationMonth',
  'expirationYear',
  'cvv',
  'riskToken',
  'clientIp',
  'email',
  'makeDefault',
  'recaptcha',
  'address1',
  'address2',
  'city',
  'stateId',
  'countryId',
  'postalZip',
  // An extension of the spec: what the shop's server minted (POST /v1/captureTokens) for this customer.
  'captureToken',
] as const;
export type ParameterName = (typeof PARAMETER_NAMES)[number];

/** The one nested parameter: `paymentCollectOptions.collectionAmount` (form) or `{paymentCollectOptions: {collectionAmount}}` (JSON). */
export const COLLECTION_AMOUNT = 'paymentCollectOptions.collectionAmount';

const BY_LOWER_CASE = new Map<string, ParameterName | typeof COLLECTION_AMOUNT>([
  ...PARAMETER_NAMES.map((name) => [name.toLowerCase(), name] as const),
  ['g-recaptcha-response', 'recaptcha'],
  ['paymentcollectoptions.collectionamount', COLLECTION_AMOUNT],
  ['paymentcollectoptions[collectionamount]', COLLECTION_AMOUNT],
]);

/** The parameters under their canonical names, values as sent (strings from forms, any JSON value from JSON). */
export type RawParameters = Partial<Record<ParameterName | typeof COLLECTION_AMOUNT, unknown>>;

export type ParameterSource = { kind: 'form' | 'json'; values: unknown };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Merges the query string and the body (form or JSON) under canonical names.
 * Unknown names are ignored (shop forms carry other fields). An empty string
 * or null counts as not given. A name given twice with different values, or a
 * form field repeated, is 400 keyed on the canonical name.
 */
export function collectParameters(sources: ParameterSource[]): RawParameters {
  const result: RawParameters = {};
  const errors: ErrorItem[] = [];
  const put = (name: ParameterName | typeof COLLECTION_AMOUNT, value: unknown, kind: ParameterSource['kind']) => {
    if (value === undefined || value === null || value === '') return;
    if (kind === 'form' && Array.isArray(value)) {
      errors.push({ Key: name, Value: 'is given more than once', Code: 'value_invalid' });
      return;
    }
    if (name in result && JSON.stringify(result[name]) !== JSON.stringify(value)) {
      errors.push({ Key: name, Value: 'is given more than once, with different values', Code: 'value_invalid' });
      return;
    }
    result[name] = value;
  };
  for (const source of sources) {
    if (source.values === undefined || source.values === null) continue;
    if (!isPlainObject(source.values)) {
      throw ApiError.badRequest('the body must be a JSON object or form fields', API_ERROR_KEY, 'request_malformed');
    }
    for (const key of Object.keys(source.values)) {
      const value = source.values[key];
      const lower = key.toLowerCase();
      if (lower === 'paymentcollectoptions') {
        if (value === undefined || value === null || value === '') continue;
        if (!isPlainObject(value)) {
          errors.push({ Key: 'paymentCollectOptions', Value: 'must be an object with collectionAmount', Code: 'value_invalid' });
          continue;
        }
        for (const inner of Object.keys(value)) {
          if (inner.toLowerCase() === 'collectionamount') put(COLLECTION_AMOUNT, value[inner], source.kind);
        }
        continue;
      }
      const name = BY_LOWER_CASE.get(lower);
      if (name) put(name, value, source.kind);
    }
  }
  if (errors.length > 0) throw new ApiError(400, errors);
  return result;
}

// ---- validation -----------------------------------------------------------

const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'required' : what);

/** An integer from a JSON number or a form string of digits. */
function integer(min: number, max: number, message: string) {
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v) ? Number(v) : v),
    z
      .number({ error: required(message) })
      .int(message)
      .min(min, message)
      .max(max, message),
  );
}

const optionalInteger = (min: number, max: number, message: string) => integer(min, max, message).optional();

const twoDigitYear = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d{1,2}\s*$/.test(v) ? Number(v) : typeof v === 'string' ? Number.NaN : v),
  z
    .number({ error: required('must be two digits (YY)') })
    .int('must be two digits (YY)')
    .min(0, 'must be two digits (YY)')
    .max(99, 'must be two digits (YY)'),
);

const booleanValue = z.preprocess(
  (v) => (typeof v === 'string' && /^(true|false)$/i.test(v.trim()) ? v.trim().toLowerCase() === 'true' : v),
  z.boolean({ error: 'must be true or false' }),
);

const decimalAmount = z
  .union([z.number(), z.string()], { error: 'must be a decimal number' })
  .transform((v) => (typeof v === 'number' ? String(v) : v.trim()))
  .refine((v) => /^\d{1,12}(\.\d{1,6})?$/.test(v), { message: 'must be a decimal number such as 25.00', abort: true })
  .refine((v) => Number(v) > 0, 'must be more than 0');

/** Strings stay strings: a number is refused rather than converted (a CVV's leading zero would be lost). */
const string = (what: string) => z.string({ error: required(what) });

export const CaptureParameters = z.object({
  customerId: integer(1, 2_147_483_647, 'must be a customer id (a positive integer)'),
  // Checked before validation (401 when missing), except for the portal's card form, whose capture token names the account.
  publicApiKey: z.string({ error: 'must be a string' }).optional(),
  cardNumber: string('must be a string of digits')
    .max(30, 'not a valid card number')
    .regex(/^[\d\s-]+$/, 'must contain only digits, spaces or dashes'),
  firstName: z.string({ error: required('must be a string') }).pipe(cardholderFields.firstName),
  lastName: z.string({ error: required('must be a string') }).pipe(cardholderFields.lastName),
  expirationMonth: integer(1, 12, 'must be 1-12'),
  expirationYear: twoDigitYear,
  cvv: string('must be a string of 3 or 4 digits (a string, so that leading zeros are kept)').regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  riskToken: z.string({ error: 'must be a string' }).max(1000, 'must be at most 1000 characters').optional(),
  clientIp: z
    .string({ error: 'must be a string' })
    .refine((v) => isIP(v.trim()) !== 0, 'must be an IPv4 or IPv6 address')
    .transform((v) => v.trim())
    .optional(),
  email: z
    .string({ error: 'must be a string' })
    .max(255, 'must be at most 255 characters')
    .pipe(z.email('must be a valid e-mail address'))
    .optional(),
  makeDefault: booleanValue.optional(),
  // Required (app.ts) except for the portal's card form, whose portal session stands in for it.
  recaptcha: z.string({ error: 'must be a string: the CAPTCHA response token' }).max(8192, 'is too long to be a CAPTCHA token').optional(),
  address1: z.string({ error: 'must be a string' }).max(50, 'must be at most 50 characters').optional(),
  address2: z.string({ error: 'must be a string' }).max(50, 'must be at most 50 characters').optional(),
  city: z.string({ error: 'must be a string' }).max(50, 'must be at most 50 characters').optional(),
  stateId: optionalInteger(1, 2_147_483_647, 'must be a state id (a positive integer, from Read Country ID)'),
  countryId: optionalInteger(1, 999, 'must be a country id (ISO 3166-1 numeric, from Read Country ID)'),
  postalZip: z.string({ error: 'must be a string' }).max(10, 'must be at most 10 characters').optional(),
  paymentCollectOptions: z.object({ collectionAmount: decimalAmount }).optional(),
  captureToken: z.string({ error: 'must be a string' }).max(200, 'is not a capture token').optional(),
});
export type CaptureInput = z.infer<typeof CaptureParameters>;

/** Validates the merged parameters; every problem is listed, keyed on the canonical field. */
export function validateParameters(raw: RawParameters): { input?: CaptureInput; errors: ErrorItem[] } {
  // The billing API's one rule for text: no NUL, no lone surrogate.
  for (const [name, value] of Object.entries(raw)) {
    const unstorable = unstorableText(value);
    if (unstorable) return { errors: [{ Key: name, Value: unstorable.problem, Code: 'value_invalid' }] };
  }
  const { [COLLECTION_AMOUNT]: collectionAmount, ...rest } = raw;
  const shaped = { ...rest, ...(collectionAmount !== undefined ? { paymentCollectOptions: { collectionAmount } } : {}) };
  const result = CaptureParameters.safeParse(shaped);
  if (result.success) return { input: result.data, errors: [] };
  return { errors: validationError(result.error.issues).errors.map((e) => ({ ...e, Code: parameterCode(raw, e.Key) })) };
}

const CARD_FIELDS = new Set<string>(['cardNumber', 'expirationMonth', 'expirationYear', 'cvv']);

/** A field not sent is `value_required`; a card field of bad form `card_invalid`; anything else `value_invalid`. */
function parameterCode(raw: RawParameters, key: string): ErrorCode {
  if ((raw as Record<string, unknown>)[key] === undefined) return 'value_required';
  return CARD_FIELDS.has(key) ? 'card_invalid' : 'value_invalid';
}
