import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

it('reads RENEW_WEBHOOK_ALLOW_HTTP and RENEW_WEBHOOK_ALLOW_PRIVATE (both off by default)', () => {
  expect(loadConfig({}).webhooks).toEqual({ allowHttp: false, allowPrivate: false });
  expect(loadConfig({ RENEW_WEBHOOK_ALLOW_HTTP: 'true', RENEW_WEBHOOK_ALLOW_PRIVATE: '1' }).webhooks).toEqual({
    allowHttp: true,
    allowPrivate: true,
  });
  expect(loadConfig({ RENEW_WEBHOOK_ALLOW_HTTP: '' }).webhooks.allowHttp).toBe(false);
  expect(() => loadConfig({ RENEW_WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/RENEW_WEBHOOK_ALLOW_PRIVATE/);
});
