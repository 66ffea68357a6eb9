import type { CaptchaResult, CaptchaVerifier } from './captcha-verifier.js';

/** Longest token accepted in dev mode (real reCAPTCHA tokens are a few hundred characters). */
export const DEV_TOKEN_MAX_LENGTH = 4096;

/**
 * RENEW_CAPTCHA=dev: no network and no secret. Accepts any non-empty token of
 * at most 4096 characters, except tokens beginning with `fail` (refused with
 * `invalid-input-response`, so a demo can show the failure path). No hostname
 * is returned and none is checked. Single use still applies: the app records
 * every token, so a dev token works once.
 */
export class DevCaptcha implements CaptchaVerifier {
  readonly mode = 'dev' as const;

  async verify(token: string): Promise<CaptchaResult> {
    if (token.length === 0) return { success: false, errorCodes: ['missing-input-response'] };
    if (token.length > DEV_TOKEN_MAX_LENGTH || token.startsWith('fail')) return { success: false, errorCodes: ['invalid-input-response'] };
    return { success: true, errorCodes: [] };
  }
}
