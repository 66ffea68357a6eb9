import { createServer } from 'node:http';

/**
 * A merchant's webhook receiver for the browser tests: POST (any path) is kept as received (the raw
 * body and the Standard Webhooks headers) and answered 204; GET /received answers what it kept,
 * oldest first, as JSON, to the tests in another process, which check the signatures themselves.
 */
export async function startWebhookReceiver() {
  const received: Array<{ body: string; webhookId: string; webhookTimestamp: string; webhookSignature: string }> = [];
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/received') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const header = (name: string) => String(request.headers[name] ?? '');
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        webhookId: header('webhook-id'),
        webhookTimestamp: header('webhook-timestamp'),
        webhookSignature: header('webhook-signature'),
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
