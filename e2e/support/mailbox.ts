import { createServer } from 'node:http';
import { startSmtpStandIn } from '../../billing-service/test/helpers/smtp-stand-in.js';

/**
 * The SMTP stand-in the billing tests use (a real SMTP server, keeping what it receives), and a small
 * HTTP reader of it for the browser tests, which run in another process: GET /emails?to=<address>
 * answers the e-mails sent to that address, oldest first, as JSON (subject, text and the HTML alternative, null
 * for a plain-text e-mail).
 */
export async function startMailbox() {
  const smtp = await startSmtpStandIn();
  const reader = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://mailbox');
    const to = (url.searchParams.get('to') ?? '').toLowerCase();
    const emails = smtp.received
      .filter((e) => e.to.some((address) => address.toLowerCase() === to))
      .map((e) => ({ subject: e.subject, text: e.text, html: e.html }));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(emails));
  });
  await new Promise<void>((resolve) => reader.listen(0, '127.0.0.1', () => resolve()));
  const { port } = reader.address() as { port: number };
  return {
    smtpUrl: smtp.url,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => reader.close(() => resolve()));
      await smtp.close();
    },
  };
}
