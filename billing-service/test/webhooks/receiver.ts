import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The status this request was answered with. */
  status: number;
}

/**
 * A real HTTP receiver on 127.0.0.1: records every request and answers with `respond`'s status
 * (default 200); `hang` never answers; a promise holds the answer until it settles (a slow endpoint
 * the test releases). `arrived` counts requests as they come, answered or not.
 */
export async function startReceiver() {
  const received: ReceivedWebhook[] = [];
  const state = { respond: (_request: { path: string; body: string }): number | 'hang' | Promise<number> => 200 };
  const arrived: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      arrived.push(path);
      const answer = await state.respond({ path, body });
      if (answer === 'hang') return;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]));
      received.push({ path, headers, body, status: answer });
      if (answer >= 300 && answer < 400) res.setHeader('location', `http://127.0.0.1:${port}/elsewhere`);
      res.statusCode = answer;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    arrived,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
