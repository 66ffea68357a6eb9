import { z } from 'zod';
import { MIN_PASSWORD_LENGTH, OPERATOR_ROLES } from './operators/service.js';

/** The console's request bodies (README "Console"): validated here, answered with the spec's 400 body keyed by field. */

const Email = z.string().trim().min(3).max(254).email();
const Role = z.enum(OPERATOR_ROLES);
const TotpCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'must be the 6 digits of the authenticator app');

export const SignInBody = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
  totpCode: z.string().trim().max(16).optional(),
});

export const InvitationParams = z.object({ token: z.string().min(1).max(200) });

export const AcceptInvitationBody = z.object({
  name: z.string().trim().min(1).max(200),
  password: z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
  /** Only for the first owner's link, which names no e-mail. */
  email: Email.optional(),
});

export const CreateInvitationBody = z.object({ email: Email, role: Role });

export const OperatorParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const ChangeRoleBody = z.object({ role: Role });

export const TotpCodeBody = z.object({ code: TotpCode });

export const ApiKeyKind = z.enum(['private', 'public']);
export const ApiKeyParams = z.object({ kind: ApiKeyKind });
export const ApiKeysResponse = z.object({
  keys: z.array(z.object({ kind: ApiKeyKind, rotatedAt: z.string().nullable().describe('when last rolled (null: never)') })),
});
export const RotatedApiKeyResponse = z.object({
  kind: ApiKeyKind,
  key: z.string().describe('the new key: shown this once (only its hash is kept)'),
  rotatedAt: z.string(),
});
