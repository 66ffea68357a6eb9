import { describe, expect, it } from 'vitest';
import { CARD_FRAME_PROTOCOL, fromPeer, readCommand, readResult, wrap } from '../src/hosted/card-frame-protocol.js';

/** The checks both sides of the card frame make on every message (the widget's side is tested in widget/test). */
const shopWindow = { name: 'the shop page' };
const otherWindow = { name: 'another frame on the page' };
const peer = { origin: 'https://shop.example.com', window: shopWindow, channel: 'c0ffee00-1234-4abc-8def-0123456789ab' };
const validate = wrap(peer.channel, { type: 'validate', id: '1' });

describe('the card frame protocol', () => {
  it('accepts a message from the expected origin, window and channel', () => {
    expect(fromPeer({ origin: peer.origin, source: shopWindow, data: validate }, peer)).toEqual({
      protocol: CARD_FRAME_PROTOCOL,
      channel: peer.channel,
      type: 'validate',
      id: '1',
    });
  });

  it('ignores messages from another origin, even one that differs only by scheme or port', () => {
    for (const origin of [
      'https://evil.example.com',
      'http://shop.example.com',
      'https://shop.example.com:8443',
      'null',
      'https://shop.example.com.evil.example',
    ]) {
      expect(fromPeer({ origin, source: shopWindow, data: validate }, peer)).toBeUndefined();
    }
  });

  it('ignores messages with another channel id (another checkout on the page), or none, or another protocol', () => {
    expect(
      fromPeer({ origin: peer.origin, source: shopWindow, data: wrap('another-channel-id-0000', { type: 'validate', id: '1' }) }, peer),
    ).toBeUndefined();
    expect(fromPeer({ origin: peer.origin, source: shopWindow, data: { type: 'validate', id: '1' } }, peer)).toBeUndefined();
    expect(
      fromPeer({ origin: peer.origin, source: shopWindow, data: { ...validate, protocol: 'renew-card-fields/0' } }, peer),
    ).toBeUndefined();
    for (const data of [null, 'validate', [validate], 42])
      expect(fromPeer({ origin: peer.origin, source: shopWindow, data }, peer)).toBeUndefined();
  });

  it('ignores messages from another window of the right origin', () => {
    expect(fromPeer({ origin: peer.origin, source: otherWindow, data: validate }, peer)).toBeUndefined();
    expect(fromPeer({ origin: peer.origin, source: null, data: validate }, { ...peer, window: null })).toBeUndefined();
  });

  it('reads only well-formed commands and results', () => {
    const submission = {
      publicApiKey: 'pk',
      customerId: 1,
      captureToken: 'ct',
      recaptcha: 'r',
      firstName: 'A',
      lastName: 'B',
      riskToken: 'rt',
      clientIp: '203.0.113.1',
      email: 'a@example.com',
      makeDefault: true,
      collectionAmount: '9.99',
    };
    expect(readCommand({ type: 'submit', id: '2', submission })).toEqual({ type: 'submit', id: '2', submission });
    expect(readCommand({ type: 'submit', id: '2', submission: { ...submission, customerId: '1' } })).toBeUndefined();
    expect(readCommand({ type: 'submit', submission })).toBeUndefined();
    expect(readCommand({ type: 'eval', id: '3' })).toBeUndefined();
    expect(readResult({ type: 'resize', height: 212 })).toEqual({ type: 'resize', height: 212 });
    expect(readResult({ type: 'resize', height: '212px' })).toBeUndefined();
    expect(
      readResult({
        type: 'refused',
        replyTo: '2',
        status: 400,
        errors: [{ Key: 'declineCode', Value: 'card_declined', Code: 'card_declined', extra: 'dropped' }, 'junk'],
        declined: true,
        declineCode: 'card_declined',
      }),
    ).toEqual({
      type: 'refused',
      replyTo: '2',
      status: 400,
      errors: [{ Key: 'declineCode', Value: 'card_declined', Code: 'card_declined' }],
      declined: true,
      declineCode: 'card_declined',
    });
  });
});
