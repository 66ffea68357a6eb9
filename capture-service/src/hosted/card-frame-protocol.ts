import type { ErrorCode } from '@renew/billing-service/http';
import type { CardFieldsStyle } from './card-fields-style.js';

/**
 * How `<renew-checkout>` and the hosted card fields (an iframe served by the
 * capture host) talk through `postMessage`. Pure and free of Node imports: the
 * widget and the frame's script both import it.
 *
 * Every message is an object `{ protocol, channel, type, … }`. Each side accepts
 * a message only from the exact origin and window it expects and with the
 * frame's channel id (random per frame, handed to the frame in its URL's
 * fragment), and posts only to the exact origin of the other side. Commands go
 * to the frame; results come back. No message ever carries the card number,
 * the expiry or the CVV: the frame sends them to the capture host itself.
 */
export const CARD_FRAME_PROTOCOL = 'renew-card-fields/1';

/** The fields inside the frame. */
export type CardFrameField = 'cardNumber' | 'expiry' | 'cvv';

/** What the frame needs, besides the card, to send the capture request (POST /api/paymentsv2). */
export interface CardFrameSubmission {
  publicApiKey: string;
  customerId: number;
  captureToken: string;
  /** The CAPTCHA token solved on the shop's page. */
  recaptcha: string;
  firstName: string;
  lastName: string;
  riskToken: string;
  clientIp: string;
  email: string;
  makeDefault: boolean;
  /** The first payment; null when nothing is collected. */
  collectionAmount: string | null;
}

/** From the widget to the frame. `id` is echoed in the reply (`replyTo`). */
export type CardFrameCommand =
  /** A change of language or look after the frame loaded (what is typed stays). */
  | { type: 'configure'; id: string; lang?: string; style?: CardFieldsStyle; disabled?: boolean }
  /** Check the fields (and show their errors in the frame); nothing is sent. */
  | { type: 'validate'; id: string }
  /** Check, then send the card to the capture host. */
  | { type: 'submit'; id: string; submission: CardFrameSubmission };

export type CardFrameFieldErrors = Partial<Record<CardFrameField, string>>;

/** An error item of the capture host's body (`Code`: what a side branches on, never the English `Value`). */
export interface CardFrameErrorItem {
  Key: string;
  Value: string;
  Code?: ErrorCode;
}

/** From the frame to the widget. */
export type CardFrameResult =
  | { type: 'ready'; height: number }
  | { type: 'resize'; height: number }
  | { type: 'configured'; replyTo: string }
  /** After validate, or a submit refused in the frame (nothing sent): the errors shown in the frame, in its language. */
  | { type: 'validity'; replyTo: string; valid: boolean; errors: CardFrameFieldErrors }
  /** The card's bank asks the shopper to authenticate (3-D Secure): the frame shows the challenge; the outcome follows. */
  | { type: 'authenticating'; replyTo: string }
  /** The capture host stored the card (and collected the first payment when one was asked). */
  | { type: 'captured'; replyTo: string; cardId: number; maskedCardNumber: string; brand: string; paymentId: number | null }
  /**
   * The capture host refused (its status and error entries, which never repeat a value), or it could not be reached (status 0).
   * `declined`: the card or the payment was declined (then `declineCode` when the gateway gave one).
   */
  | {
      type: 'refused';
      replyTo: string;
      status: number;
      errors: CardFrameErrorItem[];
      declined: boolean;
      declineCode: string | null;
    };

export type CardFrameMessage<T> = T & { protocol: typeof CARD_FRAME_PROTOCOL; channel: string };

/** The other side as one side knows it. */
export interface CardFramePeer {
  /** Exact origin, `https://payments.example.com`. */
  origin: string;
  /** The other side's window (the iframe's contentWindow, or the frame's parent). */
  window: unknown;
  channel: string;
}

/** What a `message` event carries that the checks need (a MessageEvent, or a test's stand-in). */
export interface ReceivedMessage {
  origin: string;
  source: unknown;
  data: unknown;
}

/** A channel id: enough randomness that no other page guesses it (crypto.randomUUID gives 36 characters). */
export const CHANNEL_ID = /^[A-Za-z0-9_-]{16,64}$/;

export function wrap<T extends { type: string }>(channel: string, message: T): CardFrameMessage<T> {
  return { protocol: CARD_FRAME_PROTOCOL, channel, ...message };
}

/**
 * The message's data when it comes from the expected peer: same origin exactly,
 * same window, this protocol and this channel; undefined for anything else
 * (another page, another frame, another checkout on the same page).
 */
export function fromPeer(event: ReceivedMessage, peer: CardFramePeer): (Record<string, unknown> & { type: string }) | undefined {
  if (event.origin !== peer.origin || event.source !== peer.window || peer.window == null) return undefined;
  const data = event.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const message = data as Record<string, unknown>;
  if (message.protocol !== CARD_FRAME_PROTOCOL || message.channel !== peer.channel || typeof message.type !== 'string') return undefined;
  return message as Record<string, unknown> & { type: string };
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isHeight = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 10_000;

/** A command the frame can act on, with the shape checked (a peer's data is never trusted as typed). */
export function readCommand(message: Record<string, unknown> & { type: string }): CardFrameCommand | undefined {
  if (!isString(message.id)) return undefined;
  switch (message.type) {
    case 'configure':
      return {
        type: 'configure',
        id: message.id,
        ...(isString(message.lang) ? { lang: message.lang } : {}),
        ...(typeof message.style === 'object' && message.style !== null ? { style: message.style as CardFieldsStyle } : {}),
        ...(typeof message.disabled === 'boolean' ? { disabled: message.disabled } : {}),
      };
    case 'validate':
      return { type: 'validate', id: message.id };
    case 'submit': {
      const s = message.submission as Record<string, unknown> | undefined;
      if (!s || typeof s !== 'object') return undefined;
      const strings = ['publicApiKey', 'captureToken', 'recaptcha', 'firstName', 'lastName', 'riskToken', 'clientIp', 'email'] as const;
      if (!strings.every((k) => isString(s[k])) || typeof s.customerId !== 'number' || typeof s.makeDefault !== 'boolean') return undefined;
      if (s.collectionAmount !== null && !isString(s.collectionAmount)) return undefined;
      return { type: 'submit', id: message.id, submission: s as unknown as CardFrameSubmission };
    }
    default:
      return undefined;
  }
}

/** A result the widget can act on, with the shape checked. */
export function readResult(message: Record<string, unknown> & { type: string }): CardFrameResult | undefined {
  switch (message.type) {
    case 'ready':
    case 'resize':
      return isHeight(message.height) ? { type: message.type, height: message.height } : undefined;
    case 'configured':
    case 'authenticating':
      return isString(message.replyTo) ? { type: message.type, replyTo: message.replyTo } : undefined;
    case 'validity':
      return isString(message.replyTo) &&
        typeof message.valid === 'boolean' &&
        typeof message.errors === 'object' &&
        message.errors !== null
        ? { type: 'validity', replyTo: message.replyTo, valid: message.valid, errors: message.errors as CardFrameFieldErrors }
        : undefined;
    case 'captured':
      return isString(message.replyTo) &&
        typeof message.cardId === 'number' &&
        isString(message.maskedCardNumber) &&
        isString(message.brand)
        ? {
            type: 'captured',
            replyTo: message.replyTo,
            cardId: message.cardId,
            maskedCardNumber: message.maskedCardNumber,
            brand: message.brand,
            paymentId: typeof message.paymentId === 'number' ? message.paymentId : null,
          }
        : undefined;
    case 'refused':
      return isString(message.replyTo) && typeof message.status === 'number' && Array.isArray(message.errors)
        ? {
            type: 'refused',
            replyTo: message.replyTo,
            status: message.status,
            errors: message.errors
              .filter((e): e is CardFrameErrorItem => typeof e === 'object' && e !== null && isString(e.Key) && isString(e.Value))
              .map((e) => ({ Key: e.Key, Value: e.Value, ...(isString(e.Code) ? { Code: e.Code as ErrorCode } : {}) })),
            declined: message.declined === true,
            declineCode: isString(message.declineCode) ? message.declineCode : null,
          }
        : undefined;
    default:
      return undefined;
  }
}
