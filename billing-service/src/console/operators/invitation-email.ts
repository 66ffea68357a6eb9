import nodemailer from 'nodemailer';
import type { EmailSettings } from '../../notifications/email-outbox-worker.js';

/**
 * Sends an invitation's link over the app's SMTP server (RENEW_SMTP_URL). Straight away rather than
 * through the customers' outbox: the owner sees at once whether it left, and has the link either way.
 */
export async function sendInvitationEmail(
  settings: EmailSettings,
  invitation: { to: string; link: string; role: string; invitedBy: string; expiresAt: string },
): Promise<void> {
  const url = new URL(settings.smtpUrl);
  // An SMTP server that does not answer must not hold the owner's request for minutes.
  for (const [name, ms] of [
    ['connectionTimeout', '10000'],
    ['greetingTimeout', '10000'],
    ['socketTimeout', '20000'],
  ] as const)
    if (!url.searchParams.has(name)) url.searchParams.set(name, ms);
  const transport = nodemailer.createTransport(url.toString());
  try {
    await transport.sendMail({
      from: settings.from,
      to: invitation.to,
      subject: 'You are invited to the Renew console',
      text: [
        `${invitation.invitedBy} invites you to the Renew console as ${invitation.role}.`,
        '',
        `Open this link to choose your name and password (it works once, until ${invitation.expiresAt}):`,
        invitation.link,
        '',
        'If you did not expect this, ignore this e-mail.',
      ].join('\n'),
    });
  } finally {
    transport.close();
  }
}
