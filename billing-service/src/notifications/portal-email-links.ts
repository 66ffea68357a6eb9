import type { AppContext } from '../app-context.js';
import type { CustomerLanguage } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import { createEmailActionLink } from '../portal/link-issuing.js';
import type { EmailActionFlow, EmailActionLinks } from './email-action-links.js';

/**
 * The e-mails' buttons lead into the customer portal: each asks for a 7-day link scoped to updating
 * the card and paying (README "Customer portal"), stored in the e-mail's own transaction, so an
 * e-mail that is rolled back leaves no link behind. A newer e-mail's link leaves this one working until it
 * expires (portal/links.ts: what ends each flow's task).
 */
export class PortalEmailLinks implements EmailActionLinks {
  /** `context`: the app's context, read when an e-mail is written (the notifier is part of it). */
  constructor(private readonly context: () => AppContext) {}

  async linkFor(
    input: { accountId: number; customerId: number; flow: EmailActionFlow; language: CustomerLanguage },
    db: Queryable,
  ): Promise<string | null> {
    const link = await createEmailActionLink(
      this.context(),
      { accountId: input.accountId, customerId: input.customerId, flow: input.flow, locale: input.language },
      db,
    );
    return link.url;
  }
}
