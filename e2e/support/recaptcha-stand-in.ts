import http from 'node:http';

export const STAND_IN_SITE_KEY = 'e2e-site-key';
export const STAND_IN_SECRET = 'e2e-recaptcha-secret';

/**
 * Google's reCAPTCHA, played locally for the browser tests (no internet here):
 * `/recaptcha/api.js` is a small grecaptcha (explicit render, getResponse, reset,
 * the onload callback) whose checkbox issues a token for its site key, and
 * `/recaptcha/api/siteverify` answers the siteverify protocol (form `secret`,
 * `response`, `remoteip` → `{success, hostname, error-codes}`) for those tokens.
 */
export async function startRecaptchaStandIn(): Promise<{
  url: string;
  stats: { verified: number; refused: number };
  close(): Promise<void>;
}> {
  const stats = { verified: 0, refused: 0 };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    if (request.method === 'GET' && url.pathname === '/recaptcha/api.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(GRECAPTCHA_SCRIPT);
      return;
    }
    if (request.method === 'GET' && url.pathname === '/stats') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
      return;
    }
    if (request.method === 'POST' && url.pathname === '/recaptcha/api/siteverify') {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const token = form.get('response') ?? '';
        const errors =
          form.get('secret') !== STAND_IN_SECRET
            ? ['invalid-input-secret']
            : token.startsWith(`standin.${STAND_IN_SITE_KEY}.`)
              ? []
              : ['invalid-input-response'];
        if (errors.length === 0) stats.verified += 1;
        else stats.refused += 1;
        const answer =
          errors.length === 0
            ? { success: true, challenge_ts: new Date().toISOString(), hostname: '127.0.0.1' }
            : { success: false, 'error-codes': errors };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, stats, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const GRECAPTCHA_SCRIPT = `(() => {
  const widgets = [];
  window.grecaptcha = {
    render(container, { sitekey }) {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      label.append(box, " I'm not a robot (reCAPTCHA stand-in)");
      container.append(label);
      const widget = { box, token: '' };
      box.addEventListener('change', () => { widget.token = box.checked ? 'standin.' + sitekey + '.' + crypto.randomUUID() : ''; });
      widgets.push(widget);
      return widgets.length - 1;
    },
    getResponse(id) { return widgets[id] ? widgets[id].token : ''; },
    reset(id) { const w = widgets[id]; if (w) { w.token = ''; w.box.checked = false; } },
  };
  const onload = new URL(document.currentScript.src).searchParams.get('onload');
  if (onload && typeof window[onload] === 'function') window[onload]();
})();
`;
