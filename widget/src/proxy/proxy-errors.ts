import { ApiError, API_ERROR_KEY, type ErrorCode, type ErrorItem } from '@renew/billing-service/http';

/** An error item about the request as a whole, with its machine code (the English text may change, the code does not). */
export function requestErrorItem(message: string, code: ErrorCode): ErrorItem {
  return { Key: API_ERROR_KEY, Value: message, Code: code };
}

export function requestError(status: number, message: string, code: ErrorCode): ApiError {
  return new ApiError(status, [requestErrorItem(message, code)]);
}

/** A resource the shopper may not see is "not found", like one that does not exist. */
export function notFound(what: string, id: number | string): ApiError {
  return requestError(404, `${what} with id ${id} not found`, 'not_found');
}

export const BODY_TOO_LARGE = 'request body too large';
export const SHOP_SERVER_FAILED = 'something went wrong on the shop server';
