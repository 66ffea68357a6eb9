import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { merchantBranding } from '../catalog/branding.js';
import { loadCatalog } from '../catalog/load-catalog.js';
import { CUSTOMER_LANGUAGES } from '../catalog/schema.js';
import { DEMO_CATALOG_PATH } from '../config.js';
import { ACTION_FLOWS, isRequestedEmail, renderEmail, type CustomerEmailType } from './email-templates.js';
import { SAMPLE_EMAILS, SAMPLE_INVOICE } from './email-samples.js';

/**
 * `npm run emails:preview`: every e-mail type in every language (the portal sign-in link's and the new address's confirmation too), as HTML and as text, written to
 * billing-service/email-previews/ (git-ignored) with an index.html to open; branded as the
 * catalogue says (RENEW_CATALOG, else the demo catalogue). Prints the folder.
 */
const folder = fileURLToPath(new URL('../../email-previews/', import.meta.url));
const catalog = loadCatalog(process.env.RENEW_CATALOG ?? DEMO_CATALOG_PATH);
const branding = merchantBranding(catalog);

mkdirSync(folder, { recursive: true });
const rows: string[] = [];
for (const type of Object.keys(SAMPLE_EMAILS) as CustomerEmailType[]) {
  const cells: string[] = [];
  for (const language of CUSTOMER_LANGUAGES) {
    const sample = SAMPLE_EMAILS[type];
    const flow = isRequestedEmail(sample) ? undefined : ACTION_FLOWS[sample.type];
    const email = await renderEmail({
      branding,
      language,
      customerName: 'Grace Hopper',
      // (the sign-in link, like the e-mails' buttons, opens the portal in the e-mail's language)
      event: isRequestedEmail(sample) ? { ...sample, url: sample.url.replace('lang=en', `lang=${language}`) } : sample,
      invoice: SAMPLE_INVOICE,
      actionUrl: flow ? `https://shop.example/portal/${flow}?lang=${language}` : null,
    });
    if (email.mjmlErrors.length > 0) throw new Error(`${type} (${language}): ${email.mjmlErrors.join('; ')}`);
    const name = `${type}.${language}`;
    writeFileSync(path.join(folder, `${name}.html`), email.html);
    writeFileSync(path.join(folder, `${name}.txt`), `Subject: ${email.subject}\n\n${email.text}\n`);
    cells.push(`<td><a href="${name}.html">HTML</a> · <a href="${name}.txt">text</a></td>`);
  }
  rows.push(`<tr><th>${type}</th>${cells.join('')}</tr>`);
}
writeFileSync(
  path.join(folder, 'index.html'),
  `<!doctype html><meta charset="utf-8"><title>Renew e-mails</title><style>body{font-family:sans-serif}td,th{padding:4px 12px;text-align:left}</style>` +
    `<h1>Renew e-mails</h1><table><tr><th></th>${CUSTOMER_LANGUAGES.map((l) => `<th>${l}</th>`).join('')}</tr>${rows.join('')}</table>\n`,
);
console.log(folder);
