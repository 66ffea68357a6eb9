import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Db } from '../db/database.js';
import { addressBudgetKey } from '../http/address-budget.js';
import { ApiError } from '../http/errors.js';
import type { EmailSettings } from '../notifications/email-outbox-worker.js';
import { readConsoleCookie, setConsoleCookie } from './console-auth.js';
import { sendInvitationEmail } from './operators/invitation-email.js';
import {
  acceptInvitation,
  changeOperatorRole,
  confirmTotp,
  describeInvitation,
  disableTotp,
  inviteOperator,
  listTeam,
  removeOperator,
  setUpTotp,
  signIn,
  signInRetryAfter,
  signOut,
  type ConsoleSettings,
  type SignedIn,
} from './operators/service.js';
import {
  AcceptInvitationBody,
  ChangeRoleBody,
  CreateInvitationBody,
  InvitationParams,
  OperatorParams,
  SignInBody,
  TotpCodeBody,
} from './schemas.js';

export interface ConsoleRouteOptions {
  db: Db;
  settings: ConsoleSettings;
  /** SMTP: invitation links are e-mailed too; unset: only returned. */
  email?: EmailSettings | undefined;
}

/**
 * The console's own routes under /console/api: sign-in and invitations (no session), the session,
 * TOTP, and the team (owner). Each declares its permission in `config` (permissions.ts); console-auth.ts enforces it.
 */
export async function consoleRoutes(fastify: FastifyInstance, options: ConsoleRouteOptions) {
  sessionRoutes(fastify, options);
  teamRoutes(fastify, options);
}

const open = { consolePublic: true } as const;
const own = { consolePermission: 'session:own' } as const;
const team = { consolePermission: 'team:manage' } as const;

function signedIn(request: FastifyRequest, reply: FastifyReply, result: SignedIn) {
  setConsoleCookie(request, reply, result.sessionToken, result.maxAgeSeconds);
  return { operator: result.operator, csrfToken: result.csrfToken };
}

/** Signing in and out, the session, accepting an invitation, and the operator's own second factor. */
function sessionRoutes(fastify: FastifyInstance, options: ConsoleRouteOptions) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { db, settings } = options;

  app.post('/console/api/sign-in', { config: open, schema: { body: SignInBody } }, async (request, reply) => {
    const addressKey = addressBudgetKey(request.ip);
    const retryAfter = await signInRetryAfter(db, request.body.email, addressKey);
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter));
      throw new ApiError(429, [
        {
          Key: 'email',
          Value: `too many failed sign-ins for this e-mail from this address, or from this address: try again in ${retryAfter} s`,
          Code: 'console_sign_in_throttled',
        },
      ]);
    }
    return signedIn(request, reply, await signIn(db, settings, request.body, addressKey));
  });

  app.post('/console/api/sign-out', { config: own }, async (request, reply) => {
    await signOut(db, readConsoleCookie(request));
    setConsoleCookie(request, reply, '', 0);
    return reply.code(204).send();
  });

  app.get('/console/api/session', { config: own }, async (request) => {
    const { id, email, name, role } = request.operator;
    return { operator: { id, email, name, role, totpEnabled: request.consoleTotpEnabled }, csrfToken: request.consoleCsrfToken };
  });

  app.get('/console/api/invitations/:token', { config: open, schema: { params: InvitationParams } }, async (request) =>
    describeInvitation(db, request.params.token),
  );

  app.post(
    '/console/api/invitations/:token/accept',
    { config: open, schema: { params: InvitationParams, body: AcceptInvitationBody } },
    async (request, reply) => signedIn(request, reply, await acceptInvitation(db, settings, request.params.token, request.body)),
  );

  app.post('/console/api/totp/setup', { config: own }, async (request) => setUpTotp(db, request.operator));
  app.post('/console/api/totp/confirm', { config: own, schema: { body: TotpCodeBody } }, async (request, reply) => {
    await confirmTotp(db, request.operator, request.body.code);
    return reply.code(204).send();
  });
  app.post('/console/api/totp/disable', { config: own, schema: { body: TotpCodeBody } }, async (request, reply) => {
    await disableTotp(db, request.operator, request.body.code);
    return reply.code(204).send();
  });
}

/** The team (owner): invitations sent, operators listed, their role changed, removed. */
function teamRoutes(fastify: FastifyInstance, options: ConsoleRouteOptions) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { db } = options;
  app.post('/console/api/invitations', { config: team, schema: { body: CreateInvitationBody } }, async (request, reply) => {
    const created = await inviteOperator(db, request.operator, request.body, app.ctx.uris.path('/'));
    let emailed = false;
    if (options.email) {
      try {
        await sendInvitationEmail(options.email, {
          to: request.body.email,
          link: created.link,
          role: created.invitation.role,
          invitedBy: request.operator.name,
          expiresAt: created.invitation.expiresAt,
        });
        emailed = true;
      } catch (error) {
        request.log.warn({ err: error }, 'console invitation e-mail not sent; the link is in the answer');
      }
    }
    return reply.code(201).send({ ...created, emailed });
  });

  app.get('/console/api/operators', { config: team }, async (request) => listTeam(db, request.operator.accountId));

  app.patch('/console/api/operators/:id', { config: team, schema: { params: OperatorParams, body: ChangeRoleBody } }, async (request) => ({
    operator: await changeOperatorRole(db, request.operator, request.params.id, request.body.role),
  }));

  app.delete('/console/api/operators/:id', { config: team, schema: { params: OperatorParams } }, async (request, reply) => {
    await removeOperator(db, request.operator, request.params.id);
    return reply.code(204).send();
  });
}
