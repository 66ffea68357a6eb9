import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The plain-text body (of a multipart mail: its text/plain part), transfer-decoded. */
  text: string;
  /** The HTML alternative, transfer-decoded (null: a plain-text mail). */
  html: string | null;
  /** The parts of a multipart mail that are not its text: file name, type and decoded bytes. */
  attachments: Array<{ filename: string | null; contentType: string; content: Buffer }>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = Buffer.from(
    body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  );
  return bytes.toString('utf8');
}

function header(headers: string, name: string): string | undefined {
  return new RegExp(`^${name}:\\s*((?:.*)(?:\\r?\\n[ \\t].*)*)`, 'im')
    .exec(headers)?.[1]
    ?.replace(/\r?\n[ \t]+/g, ' ')
    .trim();
}

function decodeBody(headers: string, body: string): Buffer {
  const encoding = header(headers, 'Content-Transfer-Encoding')?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') return Buffer.from(decodeQuotedPrintable(body), 'utf8');
  return Buffer.from(body, 'utf8');
}

/** A header with RFC 2047 encoded words (=?UTF-8?Q?…?= or =?UTF-8?B?…?=, as nodemailer writes non-ASCII subjects), decoded. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

/** The text, HTML and attachments of a message: a single part, or the parts of a multipart one (nested ones too, as nodemailer writes text + HTML + attachments). */
function parseMessage(raw: string): { text: string; html: string | null; attachments: ReceivedEmail['attachments'] } {
  const [headers = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  const contentType = (header(headers, 'Content-Type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(header(headers, 'Content-Type') ?? '')?.[1];
  if (!boundary) {
    const content = decodeBody(headers, body).toString('utf8');
    return contentType === 'text/html' ? { text: '', html: content, attachments: [] } : { text: content, html: null, attachments: [] };
  }
  let text = '';
  let html: string | null = null;
  const attachments: ReceivedEmail['attachments'] = [];
  for (const part of raw.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const [partHeaders = '', ...partRest] = part.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
    const partType = (header(partHeaders, 'Content-Type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
    if (partType.startsWith('multipart/')) {
      const inner = parseMessage(part.replace(/^\r?\n/, ''));
      text ||= inner.text;
      html ??= inner.html;
      attachments.push(...inner.attachments);
      continue;
    }
    const content = decodeBody(partHeaders, partRest.join('\n\n').replace(/\r?\n$/, ''));
    const filename = /filename="?([^";\r\n]+)"?/i.exec(partHeaders)?.[1] ?? null;
    if (partType === 'text/plain' && !filename && !text) text = content.toString('utf8');
    else if (partType === 'text/html' && !filename && html === null) html = content.toString('utf8');
    else attachments.push({ filename, contentType: partType, content });
  }
  return { text, html, attachments };
}

/** A real SMTP server on a free port (the `smtp-server` package), keeping what it receives; `down()` refuses every message. */
export async function startSmtpStandIn() {
  const received: ReceivedEmail[] = [];
  let refusing = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        if (refusing) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 451 }));
        const subject = decodeEncodedWords(header(raw.split(/\r?\n\r?\n/)[0] ?? '', 'Subject') ?? '');
        const { text, html, attachments } = parseMessage(raw);
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
          text,
          html,
          attachments,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** The mails sent to an address, once there are `count` of them (or what arrived within `timeoutMs`: the caller's count then fails). */
    async mailsTo(address: string, count: number, timeoutMs = 60_000): Promise<ReceivedEmail[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mails = received.filter((m) => m.to.includes(address));
        if (mails.length >= count || Date.now() > deadline) return mails;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    refuse(value: boolean) {
      refusing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
