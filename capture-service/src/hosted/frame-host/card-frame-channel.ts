import type { CardFieldsStyle } from '../card-fields-style.js';
import {
  fromPeer,
  readResult,
  wrap,
  type CardFrameCommand,
  type CardFrameErrorItem,
  type CardFrameFieldErrors,
  type CardFrameResult,
  type CardFrameSubmission,
  type ReceivedMessage,
} from '../card-frame-protocol.js';

export type { CardFrameSubmission } from '../card-frame-protocol.js';

/**
 * What a command to the frame comes to; expected failures are values (a declined card is part of checkout).
 * The shape of the widget's own Result, so its controller takes it as it is.
 */
export type CardFrameOutcome<T> = { ok: true; value: T } | { ok: false; status: number; errors: CardFrameErrorItem[] };

/** What the controller needs of the hosted card fields: send the card, get the outcome (never the card). */
export interface CardFrameSender {
  submit(submission: CardFrameSubmission): Promise<CardFrameOutcome<CapturedCard>>;
}

/** The card the frame stored, as the frame reports it. */
export interface CapturedCard {
  id: number;
  maskedCardNumber: string;
  brand: string;
  paymentId: number | null;
}

export type FrameValidity = { valid: true } | { valid: false; errors: CardFrameFieldErrors; message?: string };

/** Where messages arrive (the window) and how the frame is reached (its contentWindow, once it exists). */
export interface CardFrameChannelOptions {
  /** The capture host's exact origin: the only one whose messages are read, and the only target of ours. */
  frameOrigin: string;
  frameWindow: () => { postMessage(message: unknown, targetOrigin: string): void } | null | undefined;
  listenOn: {
    addEventListener(type: 'message', listener: (event: ReceivedMessage) => void): void;
    removeEventListener(type: 'message', listener: (event: ReceivedMessage) => void): void;
  };
  /** Default: a fresh random id (crypto.randomUUID). */
  channel?: string;
  onReady?(height: number): void;
  onResize?(height: number): void;
  /** The card's bank asks the shopper to authenticate (3-D Secure): the frame shows the challenge; the submit's outcome waits for it. */
  onAuthenticating?(): void;
  /** How long a command waits for its reply; `challenge`: how long a submit waits once the bank's challenge is shown. */
  timeoutMs?: { validate: number; submit: number; challenge?: number };
}

/** The capture host answers within its gateway deadline (15 s by default) and the CAPTCHA check's (5 s). */
const DEFAULT_TIMEOUTS = { validate: 5_000, submit: 45_000, challenge: 16 * 60_000 };
export const CARD_FORM_NOT_READY = 'The card form is not loaded yet. Please wait a moment and try again.';

/**
 * The page's side of the hosted card fields' protocol (the widget's, the portal's): commands to the frame,
 * their replies matched by id, readiness and height. Messages from any other
 * origin, window or channel are ignored (fromPeer). Free of Lit and of the DOM
 * beyond what it is given, so it is tested in Node.
 */
export class CardFrameChannel implements CardFrameSender {
  readonly channel: string;
  private readonly pending = new Map<string, { settle: (result: CardFrameResult | undefined) => void; wait: (ms: number) => void }>();
  private readonly timeouts: { validate: number; submit: number; challenge?: number };
  private nextId = 0;
  private isReady = false;
  private readonly listener = (event: ReceivedMessage) => this.receive(event);

  constructor(private readonly options: CardFrameChannelOptions) {
    this.channel = options.channel ?? crypto.randomUUID();
    this.timeouts = options.timeoutMs ?? DEFAULT_TIMEOUTS;
  }

  get ready(): boolean {
    return this.isReady;
  }

  start(): void {
    this.options.listenOn.addEventListener('message', this.listener);
  }

  stop(): void {
    this.options.listenOn.removeEventListener('message', this.listener);
    for (const { settle } of this.pending.values()) settle(undefined);
    this.pending.clear();
  }

  /** Checks the fields in the frame (which shows their errors); nothing is sent anywhere. */
  async validate(): Promise<FrameValidity> {
    if (!this.isReady) return { valid: false, errors: {}, message: CARD_FORM_NOT_READY };
    const reply = await this.command({ type: 'validate' }, this.timeouts.validate);
    if (reply?.type !== 'validity') return { valid: false, errors: {}, message: CARD_FORM_NOT_READY };
    return reply.valid ? { valid: true } : { valid: false, errors: reply.errors };
  }

  /** The frame sends the card to the capture host with these details; the outcome comes back as the direct mode's result. */
  async submit(submission: CardFrameSubmission): Promise<CardFrameOutcome<CapturedCard>> {
    if (!this.isReady) return { ok: false, status: 0, errors: [{ Key: 'Api Error', Value: CARD_FORM_NOT_READY, Code: 'network_error' }] };
    const reply = await this.command({ type: 'submit', submission }, this.timeouts.submit);
    switch (reply?.type) {
      case 'captured':
        return {
          ok: true,
          value: { id: reply.cardId, maskedCardNumber: reply.maskedCardNumber, brand: reply.brand, paymentId: reply.paymentId },
        };
      case 'refused':
        return { ok: false, status: reply.status, errors: reply.errors };
      case 'validity':
        // Caught in the frame, nothing sent: keyed like the capture host's own field errors.
        return {
          ok: false,
          status: 400,
          errors: Object.entries(reply.errors).map(([Key, Value]) => ({ Key, Value: Value ?? '', Code: 'card_invalid' })),
        };
      default:
        return {
          ok: false,
          status: 0,
          errors: [{ Key: 'Api Error', Value: 'the card form did not answer; check your connection and try again', Code: 'network_error' }],
        };
    }
  }

  /** A new language or look (what is typed stays). */
  async configure(change: { lang?: string; style?: CardFieldsStyle; disabled?: boolean }): Promise<void> {
    if (this.isReady) await this.command({ type: 'configure', ...change }, this.timeouts.validate);
  }

  private command(command: DistributiveOmit<CardFrameCommand, 'id'>, timeoutMs: number): Promise<CardFrameResult | undefined> {
    const target = this.options.frameWindow();
    if (!target) return Promise.resolve(undefined);
    const id = String(++this.nextId);
    return new Promise((resolve) => {
      let timer = setTimeout(() => settle(undefined), timeoutMs);
      const settle = (result: CardFrameResult | undefined) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(result);
      };
      const wait = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(() => settle(undefined), ms);
      };
      this.pending.set(id, { settle, wait });
      target.postMessage(wrap(this.channel, { ...command, id } as CardFrameCommand), this.options.frameOrigin);
    });
  }

  private receive(event: ReceivedMessage): void {
    const message = fromPeer(event, { origin: this.options.frameOrigin, window: this.options.frameWindow(), channel: this.channel });
    const result = message && readResult(message);
    if (!result) return;
    switch (result.type) {
      case 'ready':
        this.isReady = true;
        this.options.onReady?.(result.height);
        return;
      case 'resize':
        this.options.onResize?.(result.height);
        return;
      case 'authenticating': {
        // The shopper answers the bank in the frame: the submit waits as long as the challenge may take.
        const waiting = this.pending.get(result.replyTo);
        if (!waiting) return;
        waiting.wait(this.timeouts.challenge ?? DEFAULT_TIMEOUTS.challenge);
        this.options.onAuthenticating?.();
        return;
      }
      default:
        this.pending.get(result.replyTo)?.settle(result);
    }
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
