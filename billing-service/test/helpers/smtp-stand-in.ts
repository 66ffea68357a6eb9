import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The plain-text body (of a multipart mail: its text/plain part), transfer-decoded. */
  text: string;
  /** The parts of a multipart mail that are not its text: file name, type and decoded bytes. */
  attachments: Array<{ filename: string | null; contentType: string; content: Buffer }>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  return bytes.toString('utf8');
}

function header(headers: string, name: string): string | undefined {
  return new RegExp(`^${name}:\\s*((?:.*)(?:\\r?\\n[ \\t].*)*)`, 'im').exec(headers)?.[1]?.replace(/\r?\n[ \t]+/g, ' ').trim();
}

function decodeBody(headers: string, body: string): Buffer {
  const encoding = header(headers, 'Content-Transfer-Encoding')?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') return Buffer.from(decodeQuotedPrintable(body), 'utf8');
  return Buffer.from(body, 'utf8');
}

/** The text and attachments of a message: a single part, or the parts of a multipart one (one level deep, as nodemailer writes them). */
function parseMessage(raw: string): { text: string; attachments: ReceivedEmail['attachments'] } {
  const [headers = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(header(headers, 'Content-Type') ?? '')?.[1];
  if (!boundary) return { text: decodeBody(headers, body).toString('utf8'), attachments: [] };
  let text = '';
  const attachments: ReceivedEmail['attachments'] = [];
  for (const part of raw.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const [partHeaders = '', ...partRest] = part.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
    const content = decodeBody(partHeaders, partRest.join('\n\n').replace(/\r?\n$/, ''));
    const contentType = (header(partHeaders, 'Content-Type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
    const filename = /filename="?([^";\r\n]+)"?/i.exec(partHeaders)?.[1] ?? null;
    if (contentType === 'text/plain' && !filename && !text) text = content.toString('utf8');
    else attachments.push({ filename, contentType, content });
  }
  return { text, attachments };
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
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '';
        const { text, attachments } = parseMessage(raw);
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw, subject, text, attachments });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse(value: boolean) {
      refusing = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
