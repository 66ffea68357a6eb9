import type { Account, RequestOrigin } from './account.js';
import type { FormObject } from './form-body.js';

/** What every handler shares: the stand-in's accounts, its address and its clock for later events. */
export interface World {
  readonly accounts: ReadonlyMap<string, Account>;
  readonly baseUrl: string;
  /** How long after a disputed card's payment the dispute opens. */
  readonly disputeDelayMs: number;
  /** Whether the accounts are cleared to send raw card numbers (Stripe allows it only to PCI-validated accounts). */
  readonly rawCardData: boolean;
  /** Runs `task` after `ms`, unless the stand-in closes first. */
  later(ms: number, task: () => void): void;
}

/** The parts of a request an operation acts on; `origin` goes into the events it emits. */
export interface Flow {
  world: World;
  account: Account;
  origin: RequestOrigin;
}

export interface Context extends Flow {
  body: FormObject;
  /** The id in the path (`/v1/customers/:id`), or '' where there is none. */
  id: string;
}

export type Handler = (context: Context) => object;
