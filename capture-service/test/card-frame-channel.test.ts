import { afterEach, describe, expect, it } from 'vitest';
import { wrap, type CardFrameSubmission } from '../src/hosted/card-frame-protocol.js';
import { CardFrameChannel } from '../src/hosted/frame-host/card-frame-channel.js';

/**
 * The page's side of the hosted card fields' protocol (the widget's and the portal's), with stand-ins for the
 * page's window (an EventTarget) and the frame's window (records what it is sent).
 */
const FRAME_ORIGIN = 'https://payments.example.com';
const SUBMISSION: CardFrameSubmission = {
  publicApiKey: 'pk_1',
  customerId: 7,
  captureToken: 'ct_1',
  recaptcha: 'dev-1',
  firstName: 'Grace',
  lastName: 'Hopper',
  riskToken: 'rt',
  clientIp: '203.0.113.9',
  email: 'grace@example.com',
  makeDefault: true,
  collectionAmount: '31.19',
};

function setUp() {
  const page = new EventTarget();
  const sent: Array<{ message: Record<string, unknown>; targetOrigin: string }> = [];
  const frameWindow = {
    postMessage: (message: unknown, targetOrigin: string) => sent.push({ message: message as Record<string, unknown>, targetOrigin }),
  };
  const heights: number[] = [];
  const channel = new CardFrameChannel({
    frameOrigin: FRAME_ORIGIN,
    frameWindow: () => frameWindow,
    listenOn: page as never,
    onReady: (h) => heights.push(h),
    onResize: (h) => heights.push(h),
    timeoutMs: { validate: 200, submit: 200 },
  });
  channel.start();
  /** A message event on the page, as the browser delivers it. */
  const deliver = (data: unknown, from: { origin?: string; source?: unknown } = {}) =>
    page.dispatchEvent(
      Object.assign(new Event('message'), {
        data,
        origin: from.origin ?? FRAME_ORIGIN,
        source: 'source' in from ? from.source : frameWindow,
      }),
    );
  const fromFrame = (message: Record<string, unknown> & { type: string }) => deliver(wrap(channel.channel, message));
  return { channel, sent, heights, deliver, fromFrame, frameWindow };
}

let current: ReturnType<typeof setUp> | undefined;
afterEach(() => current?.channel.stop());

describe('the widget side of the card frame channel', () => {
  it('has a random channel id per frame', () => {
    const a = setUp();
    const b = setUp();
    expect(a.channel.channel).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.channel.channel).not.toBe(b.channel.channel);
    a.channel.stop();
    b.channel.stop();
  });

  it("becomes ready and follows the frame's height only on messages from the frame's origin, window and channel", () => {
    current = setUp();
    const t = current;
    t.deliver(wrap(t.channel.channel, { type: 'ready', height: 180 }), { origin: 'https://evil.example.com' });
    t.deliver(wrap(t.channel.channel, { type: 'ready', height: 180 }), { origin: 'http://payments.example.com' });
    t.deliver(wrap(t.channel.channel, { type: 'ready', height: 180 }), { source: { postMessage() {} } });
    t.deliver(wrap('another-checkout-channel-1', { type: 'ready', height: 180 }));
    t.deliver({ type: 'ready', height: 180 });
    expect(t.channel.ready).toBe(false);
    expect(t.heights).toEqual([]);
    t.fromFrame({ type: 'ready', height: 180 });
    t.fromFrame({ type: 'resize', height: 232 });
    t.deliver(wrap(t.channel.channel, { type: 'resize', height: 9000 }), { origin: 'https://evil.example.com' });
    expect(t.channel.ready).toBe(true);
    expect(t.heights).toEqual([180, 232]);
  });

  it("sends commands only to the frame's exact origin, with the channel id, and never anything of the card", async () => {
    current = setUp();
    const t = current;
    t.fromFrame({ type: 'ready', height: 180 });
    const outcome = t.channel.submit(SUBMISSION);
    expect(t.sent).toEqual([
      {
        targetOrigin: FRAME_ORIGIN,
        message: { protocol: 'renew-card-fields/1', channel: t.channel.channel, type: 'submit', id: '1', submission: SUBMISSION },
      },
    ]);
    t.fromFrame({ type: 'captured', replyTo: '1', cardId: 55, maskedCardNumber: '************4242', brand: 'Visa', paymentId: 91 });
    expect(await outcome).toEqual({ ok: true, value: { id: 55, maskedCardNumber: '************4242', brand: 'Visa', paymentId: 91 } });
  });

  it('ignores a reply from another origin or channel: a forged "captured" does not complete the payment', async () => {
    current = setUp();
    const t = current;
    t.fromFrame({ type: 'ready', height: 180 });
    const outcome = t.channel.submit(SUBMISSION);
    const forged = { type: 'captured', replyTo: '1', cardId: 1, maskedCardNumber: '************0000', brand: 'Visa', paymentId: 1 };
    t.deliver(wrap(t.channel.channel, forged), { origin: 'https://shop.example.com', source: undefined });
    t.deliver(wrap('forged-channel-id-123456', forged));
    t.fromFrame({
      type: 'refused',
      replyTo: '1',
      status: 400,
      errors: [
        { Key: 'Api Error', Value: 'payment failed: the card was declined (card_declined); the card was not kept', Code: 'card_declined' },
        { Key: 'declineCode', Value: 'card_declined', Code: 'card_declined' },
      ],
      declined: true,
      declineCode: 'card_declined',
    });
    expect(await outcome).toEqual({
      ok: false,
      status: 400,
      errors: [
        { Key: 'Api Error', Value: 'payment failed: the card was declined (card_declined); the card was not kept', Code: 'card_declined' },
        { Key: 'declineCode', Value: 'card_declined', Code: 'card_declined' },
      ],
    });
  });

  it("reports the frame's own refusal (nothing sent) as field errors, and a silent frame as unreachable", async () => {
    current = setUp();
    const t = current;
    expect(await t.channel.validate()).toEqual({ valid: false, errors: {}, message: expect.stringMatching(/not loaded/) });
    t.fromFrame({ type: 'ready', height: 180 });
    const validity = t.channel.validate();
    t.fromFrame({ type: 'validity', replyTo: '1', valid: false, errors: { cardNumber: 'Enter a valid card number.' } });
    expect(await validity).toEqual({ valid: false, errors: { cardNumber: 'Enter a valid card number.' } });
    const refusedInFrame = t.channel.submit(SUBMISSION);
    t.fromFrame({ type: 'validity', replyTo: '2', valid: false, errors: { cvv: 'Enter the 3-digit security code.' } });
    expect(await refusedInFrame).toEqual({
      ok: false,
      status: 400,
      errors: [{ Key: 'cvv', Value: 'Enter the 3-digit security code.', Code: 'card_invalid' }],
    });
    expect(await t.channel.submit(SUBMISSION)).toEqual({
      ok: false,
      status: 0,
      errors: [{ Key: 'Api Error', Value: expect.stringMatching(/did not answer/), Code: 'network_error' }],
    });
  });
});
