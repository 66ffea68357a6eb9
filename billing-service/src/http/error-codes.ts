import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../refusals/error-codes.js';

export { API_ERROR_KEY, ERROR_CODES, type ErrorCode, type ErrorItem } from '../refusals/error-codes.js';

export const ErrorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

/** The spec's error body, with Renew's `Code` on every item: the `ErrorBody` component of the OpenAPI document. */
export const ErrorBodySchema = z.object({
  ErrorId: z.number().int(),
  HttpStatusCode: z.number().int(),
  Errors: z.array(
    z.object({
      Key: z.string().describe('"Api Error", or the path of the field in error'),
      Value: z.string().describe('in English, for people; may be reworded'),
      Code: ErrorCodeSchema.optional().describe('a stable machine code on every item (README "Error codes"): branch on it, not on Value'),
    }),
  ),
});
