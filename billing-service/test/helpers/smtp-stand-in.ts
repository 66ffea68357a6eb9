import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The body, quoted-printable decoded. */
  text: string;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  return bytes.toString('utf8');
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
        const [headers = '', ...rest] = raw.split(/\r?\n\r?\n/);
        const body = rest.join('\n\n');
        const text = /quoted-printable/i.test(headers) ? decodeQuotedPrintable(body) : body;
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw, subject, text });
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
