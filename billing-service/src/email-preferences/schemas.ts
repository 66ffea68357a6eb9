import { z } from 'zod';
import { EMAIL_TYPES } from '../catalog/schema.js';

export type EmailType = (typeof EMAIL_TYPES)[number];

export const EMAIL_CATEGORIES = ['Customers', 'InvoicesAndStatements', 'PaymentsAndRefunds', 'Subscriptions'] as const;
export type EmailCategory = (typeof EMAIL_CATEGORIES)[number];

const EmailTypeInput = z.enum(EMAIL_TYPES, { error: `unknown e-mail type; expected one of ${EMAIL_TYPES.join(', ')}` });

/**
 * `enabled` is typed string/boolean in the spec: true, false or null (= account
 * default), also as the strings "true", "false", "null" in any letter case.
 * Left out it means null.
 */
const EnabledInput = z
  .union(
    [
      z.boolean(),
      z.null(),
      z
        .string()
        .trim()
        .toLowerCase()
        .pipe(z.enum(['true', 'false', 'null'])),
    ],
    {
      error: 'must be true, false or null (account default)',
    },
  )
  .describe('true, false, or null = the account default (also the strings "true", "false", "null"; left out = null)')
  .optional()
  .transform((value): boolean | null => (value === true || value === 'true' ? true : value === false || value === 'false' ? false : null));

/** Read-only fields a client sends back (accountDefault, emailCategory) are accepted and ignored. */
export const UpdateEmailPreferencesBody = z.object({
  customerId: z.number().int().positive(),
  preferences: z
    .array(z.object({ emailType: EmailTypeInput, enabled: EnabledInput }))
    .describe('The whole set: types left out become null (the account default). Each type at most once.'),
});
export type UpdateEmailPreferencesInput = z.infer<typeof UpdateEmailPreferencesBody>;

export const EmailPreferenceResponse = z.object({
  emailType: z.enum(EMAIL_TYPES),
  enabled: z.boolean().nullable().describe("The customer's choice; null = use accountDefault"),
  accountDefault: z.boolean().describe("The account's default for the type (true for a type the account configuration does not list)"),
  emailCategory: z.enum(EMAIL_CATEGORIES),
});
export type EmailPreferenceResponse = z.infer<typeof EmailPreferenceResponse>;

export const EmailPreferencesResponse = z.object({
  customerId: z.number(),
  preferences: z.array(EmailPreferenceResponse).describe('Every e-mail type, always in the same order'),
});
export type EmailPreferencesResponse = z.infer<typeof EmailPreferencesResponse>;
