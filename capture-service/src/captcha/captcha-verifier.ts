/** What a CAPTCHA check answers, in the terms of Google's siteverify protocol. */
export interface CaptchaResult {
  success: boolean;
  /** The site the challenge was solved on (siteverify `hostname`); absent in dev mode. */
  hostname?: string;
  /** siteverify `error-codes`, e.g. `invalid-input-response`, `timeout-or-duplicate`. */
  errorCodes: string[];
}

/**
 * Checks a CAPTCHA response token. A token that fails is a value
 * (`success: false`); an exception (CaptchaUnavailableError) means the check
 * itself could not be made.
 */
export interface CaptchaVerifier {
  /** `google`: a siteverify server decides and the hostname is checked; `dev`: local, no hostname. */
  readonly mode: 'google' | 'dev';
  verify(token: string, remoteIp: string, secret: string): Promise<CaptchaResult>;
}

/** The verification server did not answer (timeout, network, non-2xx, not siteverify JSON). */
export class CaptchaUnavailableError extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}
