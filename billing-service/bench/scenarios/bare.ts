/** The bare Fastify baselines: `GET /x` returning a customer-shaped object, and `POST /x` with the POST figures' body. */
import { NEW_CUSTOMER_BODY } from '../fixtures.js';
import { throughput, withServer } from '../harness.js';
import type { ThroughputResult } from '../load.js';

export interface BareFigures {
  get: ThroughputResult;
  post: ThroughputResult;
}

export function benchBare(): Promise<BareFigures> {
  return withServer({ kind: 'bare' }, async (server) => {
    const body = JSON.stringify(NEW_CUSTOMER_BODY);
    return {
      get: await throughput('bare Fastify GET /x (baseline)', server, { method: 'GET', path: '/x' }),
      post: await throughput('bare Fastify POST /x (same body as the POST)', server, {
        method: 'POST',
        path: '/x',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    };
  });
}
