/**
 * The HTTP surface other packages build on (`@renew/billing-service/http`): the
 * JSON-API plugin and its server options, the spec's errors, zod validation,
 * who is calling, rate limits and logging.
 */
export { jsonApi, jsonApiServerOptions, type JsonApiOptions } from './json-api.js';
export { ApiError, API_ERROR_KEY, clientError, errorBody, REFUSAL_STATUS, type ErrorBody } from './errors.js';
export { Refusal, type RefusalKind } from '../refusals/refusal.js';
export { ERROR_CODES, ErrorBodySchema, ErrorCodeSchema, type ErrorCode, type ErrorItem } from './error-codes.js';
export { unstorableText, validationError } from './validation.js';
export { refuseDuplicateKeys } from './json-duplicate-keys.js';
export type { Caller } from './auth.js';
export { enforceRateLimit, MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from './rate-limit.js';
export { addressBudgetKey } from './address-budget.js';
export { defaultLogStream, loggerOptions } from './logging.js';
