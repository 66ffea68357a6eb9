import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Account } from './account.js';
import { type ChallengeOutcome, completeChallenge } from './challenge.js';
import type { World } from './context.js';
import { closeDispute } from './disputes.js';
import type { EventObject } from './objects.js';
import { handleRequest, type RecordedRequest } from './server.js';
import { type Delivery, WebhookSender } from './webhooks.js';

export interface StripeStandInOptions {
  /** The port to listen on; 0 (the default) takes a free one. */
  port?: number;
  host?: string;
  /** How long after a payment with 4000000000000259 the dispute opens (default 200 ms). */
  disputeDelayMs?: number;
  /** The `api_version` of events (default the version stripe-node 23 pins). */
  apiVersion?: string;
  /** Whether the account may send raw card numbers (default true: Renew's capture host is a cleared PCI vault). */
  rawCardData?: boolean;
}

export interface StripeAccountKeys {
  secretKey: string;
  webhookSecret: string;
}

export interface StripeStandIn extends StripeAccountKeys {
  /** `http://127.0.0.1:<port>`: give the SDK `{ host, port, protocol: 'http' }` from it. */
  url: string;
  host: string;
  port: number;
  /** Every API request received, in order (the challenge page's are not API requests and are not recorded). */
  requests: RecordedRequest[];
  /** Every event of every account, in order. */
  events(): EventObject[];
  /** Every webhook POST made and the receiver's status. */
  deliveries: Delivery[];
  /** Where the default account (or the account of `secretKey`) sends its events; null stops sending. */
  setWebhookEndpoint(url: string | null, secretKey?: string): void;
  /** The cardholder's answer to a pending 3-D Secure challenge; returns the return_url the browser would go to. */
  completeChallenge(intentId: string, outcome: ChallengeOutcome): string | null;
  /** The card network's ruling on a dispute: `charge.dispute.closed` with status won or lost. */
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): void;
  /** The first event (past or future) of a type that matches; rejects after `timeoutMs`. */
  waitForEvent(type: string, matches?: (event: EventObject) => boolean, timeoutMs?: number): Promise<EventObject>;
  /** Resolves once every event so far has been posted to its endpoint. */
  webhooksDelivered(): Promise<void>;
  /** Another Stripe account with its own keys, objects, idempotency keys and webhook endpoint. */
  addAccount(): StripeAccountKeys;
  close(): Promise<void>;
}

/** Starts a local Stripe API for tests: a real HTTP server; the README says what it speaks and what is guessed. */
export async function startStripeStandIn(options: StripeStandInOptions = {}): Promise<StripeStandIn> {
  const host = options.host ?? '127.0.0.1';
  const accounts = new Map<string, Account>();
  const timers = new Set<NodeJS.Timeout>();
  const webhooks = new WebhookSender();
  const recorded: RecordedRequest[] = [];
  const world: World & { baseUrl: string } = {
    accounts,
    baseUrl: '',
    disputeDelayMs: options.disputeDelayMs ?? 200,
    rawCardData: options.rawCardData ?? true,
    later(ms, task) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        task();
      }, ms);
      timers.add(timer);
    },
  };
  const addAccount = (): Account => {
    const account = new Account(options.apiVersion ?? '2026-10-28.endive', (owner, event) => webhooks.send(owner, event));
    accounts.set(account.secretKey, account);
    return account;
  };
  const main = addAccount();
  const server = createServer((request, response) => {
    handleRequest(world, recorded, request, response).catch((error: unknown) => {
      console.error('Stripe stand-in: request failed', error);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  world.baseUrl = `http://${host}:${port}`;
  const accountOf = (secretKey?: string): Account => {
    const account = secretKey ? accounts.get(secretKey) : main;
    if (!account) throw new Error('No account with that secret key in this stand-in');
    return account;
  };
  return {
    url: world.baseUrl,
    host,
    port,
    secretKey: main.secretKey,
    webhookSecret: main.webhookSecret,
    requests: recorded,
    deliveries: webhooks.deliveries,
    events: () => [...accounts.values()].flatMap((account) => account.events).sort((a, b) => a.created - b.created),
    setWebhookEndpoint: (url, secretKey) => {
      accountOf(secretKey).webhookEndpoint = url;
    },
    completeChallenge: (intentId, outcome) => completeChallenge(world, intentId, outcome),
    closeDispute: (disputeId, outcome) => {
      const owner = [...accounts.values()].find((account) => account.disputes.has(disputeId));
      if (!owner) throw new Error(`No dispute ${disputeId} in this stand-in`);
      closeDispute(owner, disputeId, outcome);
    },
    waitForEvent: (type, matches = () => true, timeoutMs = 10_000) => waitForEvent(accounts, webhooks, type, matches, timeoutMs),
    webhooksDelivered: () => webhooks.idle(),
    addAccount: () => {
      const account = addAccount();
      return { secretKey: account.secretKey, webhookSecret: account.webhookSecret };
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      webhooks.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function waitForEvent(
  accounts: Map<string, Account>,
  webhooks: WebhookSender,
  type: string,
  matches: (event: EventObject) => boolean,
  timeoutMs: number,
): Promise<EventObject> {
  const fits = (event: EventObject) => event.type === type && matches(event);
  const past = [...accounts.values()].flatMap((account) => account.events).find(fits);
  if (past) return Promise.resolve(past);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`No ${type} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const stop = webhooks.subscribe((event) => {
      if (!fits(event)) return;
      clearTimeout(timer);
      stop();
      resolve(event);
    });
  });
}
