import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/errors.js';

/** Where `npm run build -w @renew/console` writes the console (the repository's console/dist). */
export const CONSOLE_DIST_DIR = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Renew console</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<h1>Renew console</h1>
<p>The console is not built: <code>npm run build -w @renew/console</code>, then reload this page.</p>
</body></html>
`;

export interface ConsoleStaticOptions {
  /** Default: CONSOLE_DIST_DIR. */
  distDir?: string;
}

/**
 * The console's page at /console and /console/ (its index.html: the app routes by the URL's hash) and
 * its built files at /console/assets/*. Without a build, /console says how to make one. Looked up on
 * each request, so a build made while the service runs is served without a restart.
 */
export async function consoleStatic(app: FastifyInstance, options: ConsoleStaticOptions) {
  const root = options.distDir ?? CONSOLE_DIST_DIR;
  await app.register(fastifyStatic, { root, serve: false, decorateReply: true });

  // The router ignores a trailing slash: this one route answers /console and /console/.
  app.get('/console', async (_request, reply) => {
    if (!existsSync(`${root}/index.html`))
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT_PAGE);
    // The page names its hashed assets: always asked again, so a new build is seen at once.
    return reply.header('cache-control', 'no-cache').sendFile('index.html', root);
  });

  app.get('/console/assets/*', async (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    if (!file || file.split('/').some((part) => part === '..' || part === '') || !existsSync(`${root}/assets/${file}`)) {
      throw new ApiError(404, [{ Key: 'Api Error', Value: `no console file assets/${file}`, Code: 'not_found' }]);
    }
    // Vite names assets by their content's hash: a name never changes content.
    return reply.header('cache-control', 'public, max-age=31536000, immutable').sendFile(`assets/${file}`, root);
  });
}
