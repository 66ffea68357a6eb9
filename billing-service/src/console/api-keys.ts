import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { describeApiKeys, rotateApiKey } from './api-key-rotation.js';
import type { Db } from '../db/database.js';
import type { ApiKeyAuthenticator } from '../http/auth.js';
import { callerOf } from './operator.js';
import { ApiKeyParams, ApiKeysResponse, RotatedApiKeyResponse } from './schemas.js';

export interface ConsoleApiKeyOptions {
  db: Db;
  /** This instance's API-key cache: cleared when a key is rolled (other instances forget it within 30 s). */
  authenticator?: ApiKeyAuthenticator;
}

const tags = ['Console'];
// No API key: the console's session plugin authenticates these routes (cookie), checks the role and, on the roll, CSRF.
const owner = { public: true, consolePermission: 'apikeys:write' } as const;

/** The account's API keys (owner): when each was last rolled, and rolling one (README "Console"). */
export async function consoleApiKeyRoutes(fastify: FastifyInstance, options: ConsoleApiKeyOptions) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/console/api/api-keys', {
    config: owner,
    schema: { tags, summary: "The account's API keys: kinds and when last rolled", response: { 200: ApiKeysResponse } },
    handler: async (request) => ({ keys: await describeApiKeys(options.db, request.operator.accountId) }),
  });

  app.post('/console/api/api-keys/:kind/rotate', {
    config: owner,
    schema: {
      tags,
      summary: 'Roll a key: a new one replaces it (the old one stops working), shown once',
      params: ApiKeyParams,
      response: { 200: RotatedApiKeyResponse },
    },
    handler: async (request) => {
      const rotated = await rotateApiKey(options.db, callerOf(request.operator), request.params.kind);
      options.authenticator?.forgetAll();
      return rotated;
    },
  });
}
