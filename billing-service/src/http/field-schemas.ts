import { z } from 'zod';
import { MAX_SQL_INTEGER } from '../db/ids.js';

/** Field schemas every request schema shares: one definition each. */

/** An optional string of at most `max` characters (null allowed). */
export const optionalText = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullish();

export { MAX_SQL_INTEGER };

/** Integer columns are SQL `integer`: a larger value must be a 400, not a database error. */
export const sqlInteger = z
  .number()
  .int('must be a whole number')
  .min(-2147483648, 'must be at least -2147483648')
  .max(MAX_SQL_INTEGER, `must be at most ${MAX_SQL_INTEGER}`);

/** A decimal amount as a JSON number or a string; kept as its exact string for decimal.js. */
export const decimalInput = z
  .union([
    z.number().refine((v) => Number.isFinite(v), 'must be a decimal number'),
    z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal number'),
  ])
  .transform((v) => String(v));

/** The `{customerId}` of every route under /v1/customers/{customerId}/…. */
export const CustomerIdParams = z.object({ customerId: z.coerce.number().int().positive() });
