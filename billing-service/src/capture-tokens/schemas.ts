import { z } from 'zod';
import { decimalInput } from '../http/field-schemas.js';

export const CAPTURE_TOKEN_DEFAULT_SECONDS = 900;
export const CAPTURE_TOKEN_MAX_SECONDS = 3600;

export const CreateCaptureTokenBody = z.object({
  customerId: z.number().int().positive(),
  /** The largest first payment the capture host may collect with this token (the customer's currency). */
  maxCollectionAmount: decimalInput.refine((v) => !v.startsWith('-'), 'must not be negative').nullish(),
  expiresInSeconds: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(CAPTURE_TOKEN_MAX_SECONDS, `must be at most ${CAPTURE_TOKEN_MAX_SECONDS}`)
    .nullish(),
});
export type CreateCaptureTokenInput = z.infer<typeof CreateCaptureTokenBody>;

export const CaptureTokenResponse = z.object({
  token: z.string(),
  customerId: z.number(),
  maxCollectionAmount: z.number().nullable(),
  expiresTimestamp: z.string(),
});
export type CaptureTokenResponse = z.infer<typeof CaptureTokenResponse>;
