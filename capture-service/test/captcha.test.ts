import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptchaUnavailableError } from '../src/captcha/captcha-verifier.js';
import { DevCaptcha } from '../src/captcha/dev-captcha.js';
import { GOOGLE_SITEVERIFY_URL, SiteverifyCaptcha } from '../src/captcha/siteverify-captcha.js';
import { ShopDomains } from '../src/shop-domains.js';
import { SiteverifyStub } from './helpers/siteverify-stub.js';

let stub: SiteverifyStub;
beforeAll(async () => {
  stub = await new SiteverifyStub(new Set(['s3cret'])).start();
});
afterAll(async () => stub?.stop());

describe('SiteverifyCaptcha', () => {
  it("defaults to Google's siteverify endpoint", () => {
    expect(new SiteverifyCaptcha().url).toBe(GOOGLE_SITEVERIFY_URL);
    expect(GOOGLE_SITEVERIFY_URL).toBe('https://www.google.com/recaptcha/api/siteverify');
  });

  it('posts secret, response and remoteip as a form and reads success and hostname', async () => {
    const captcha = new SiteverifyCaptcha({ url: stub.url });
    const token = stub.issue('s3cret', 'shop.example.com');
    expect(await captcha.verify(token, '203.0.113.9', 's3cret')).toEqual({ success: true, hostname: 'shop.example.com', errorCodes: [] });
    expect(stub.calls.at(-1)).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      secret: 's3cret',
      response: token,
      remoteip: '203.0.113.9',
    });
  });

  it('passes on the error codes of a failure', async () => {
    const captcha = new SiteverifyCaptcha({ url: stub.url });
    expect(await captcha.verify('unknown', '203.0.113.9', 's3cret')).toEqual({ success: false, errorCodes: ['invalid-input-response'] });
    expect(await captcha.verify(stub.issue('s3cret'), '203.0.113.9', 'other')).toEqual({
      success: false,
      errorCodes: ['invalid-input-secret'],
    });
  });

  it('throws CaptchaUnavailableError when the server fails, answers nonsense, hangs or is not there', async () => {
    const captcha = new SiteverifyCaptcha({ url: stub.url, timeoutMs: 200 });
    try {
      stub.behaviour = 'http500';
      await expect(captcha.verify('t', '', 's3cret')).rejects.toMatchObject({
        timedOut: false,
        message: 'the CAPTCHA service answered HTTP 500',
      });
      stub.behaviour = 'not-json';
      await expect(captcha.verify('t', '', 's3cret')).rejects.toBeInstanceOf(CaptchaUnavailableError);
      stub.behaviour = 'hang';
      await expect(captcha.verify('t', '', 's3cret')).rejects.toMatchObject({ timedOut: true });
    } finally {
      stub.behaviour = 'ok';
    }
    const nowhere = new SiteverifyCaptcha({ url: 'http://127.0.0.1:1/siteverify', timeoutMs: 1000 });
    await expect(nowhere.verify('t', '', 's3cret')).rejects.toMatchObject({
      timedOut: false,
      message: 'the CAPTCHA service could not be reached',
    });
  });
});

describe('DevCaptcha', () => {
  const dev = new DevCaptcha();
  it('accepts any non-empty token, without a hostname', async () => {
    expect(await dev.verify('anything at all')).toEqual({ success: true, errorCodes: [] });
    expect(dev.mode).toBe('dev');
  });
  it('refuses the empty token, tokens beginning with "fail", and tokens over 4096 characters', async () => {
    expect((await dev.verify('')).success).toBe(false);
    expect(await dev.verify('fail')).toEqual({ success: false, errorCodes: ['invalid-input-response'] });
    expect((await dev.verify('x'.repeat(4097))).success).toBe(false);
  });
});

describe('ShopDomains', () => {
  const domains = new ShopDomains(['https://shop.example.com', 'store.example.net', '*.example.org', 'http://localhost:3000']);
  it.each([
    ['https://shop.example.com', true],
    ['https://SHOP.example.com', true],
    ['http://shop.example.com', false],
    ['https://shop.example.com:8443', false],
    ['https://store.example.net', true],
    ['http://store.example.net:8080', true],
    ['https://a.b.example.org', true],
    ['https://example.org', false],
    ['https://evil-example.org', false],
    ['http://localhost:3000', true],
    ['http://localhost:3001', false],
    ['null', false],
    ['ftp://store.example.net', false],
  ])('origin %s allowed: %s', (origin, allowed) => {
    expect(domains.allowsOrigin(origin)).toBe(allowed);
  });
  it.each([
    ['shop.example.com', true],
    ['store.example.net', true],
    ['pay.example.org', true],
    ['localhost', true],
    ['evil.example', false],
    [undefined, false],
  ])('CAPTCHA hostname %s allowed: %s', (hostname, allowed) => {
    expect(domains.allowsHostname(hostname)).toBe(allowed);
  });
  it('allows everything when no domain is listed', () => {
    const open = new ShopDomains([]);
    expect(open.restricted).toBe(false);
    expect(open.allowsOrigin('https://anything.example')).toBe(true);
    expect(open.allowsHostname(undefined)).toBe(true);
  });
});

describe('SiteverifyCaptcha over a kept-alive connection', () => {
  it('sends the form again on a new connection when the kept-alive one was closed by the other end, and only then', async () => {
    const net = await import('node:net');
    const answer = JSON.stringify({ success: true, hostname: 'shop.example.com' });
    let requests = 0;
    let connections = 0;
    // Answers the first request of each connection with keep-alive, then closes that connection
    // without answering when the next request arrives on it: what a server does that closed an
    // idle connection just as the client reused it.
    const sockets = new Set<import('node:net').Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      connections += 1;
      let served = false;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        requests += 1;
        if (served) return socket.destroy();
        served = true;
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${answer.length}\r\nconnection: keep-alive\r\n\r\n${answer}`,
        );
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const captcha = new SiteverifyCaptcha({ url: `http://127.0.0.1:${port}/siteverify`, timeoutMs: 2000 });
      expect(await captcha.verify('first', '', 's3cret')).toMatchObject({ success: true });
      expect(await captcha.verify('second', '', 's3cret')).toMatchObject({ success: true });
      // the second verification: sent on the kept-alive connection (refused), then once more on a new one
      expect({ requests, connections }).toEqual({ requests: 3, connections: 2 });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('does not send again when a new connection fails', async () => {
    const net = await import('node:net');
    let requests = 0;
    const server = net.createServer((socket) => {
      socket.on('data', () => {
        requests += 1;
        socket.destroy();
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const captcha = new SiteverifyCaptcha({ url: `http://127.0.0.1:${port}/siteverify`, timeoutMs: 2000 });
      await expect(captcha.verify('t', '', 's3cret')).rejects.toMatchObject({ message: 'the CAPTCHA service could not be reached' });
      expect(requests).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
