/** Details: the contact, the billing address and the e-mail preferences. */
import { html, nothing } from 'lit';
import { loadedOverview, type Overview, type Portal, type Preference } from './portal-model.js';
import { say } from './portal-text.js';

export function renderDetails(p: Portal) {
  const t = p.text;
  const c = loadedOverview(p).customer;
  const field = (name: string, label: string, value: string | null, type = 'text', autocomplete = 'off') =>
    html`<label>${label}<input name=${name} type=${type} autocomplete=${autocomplete} .value=${value ?? ''} /></label>`;
  const names = new Map(p.text.emailTypes.split('|').map((pair) => pair.split(':') as [string, string]));
  return html`
    <h2 tabindex="-1">${t.details}</h2>
    <form aria-labelledby="contact-heading" @submit=${(event: Event) => void saveForm(p, event, 'PUT', '/portal/api/contact')}>
      <h3 id="contact-heading">${t.contactTitle}</h3>
      ${field('firstName', t.firstNameContact, c.firstName, 'text', 'given-name')}
      ${field('lastName', t.lastNameContact, c.lastName, 'text', 'family-name')}
      ${field('companyName', t.company, c.companyName, 'text', 'organization')}
      ${field('primaryEmail', t.email, c.primaryEmail, 'email', 'email')}
      ${c.pendingEmail ? html`<p class="hint" role="status">${say(t.emailPending, c.pendingEmail)}</p>` : nothing}
      ${field('primaryPhone', t.phone, c.primaryPhone, 'tel', 'tel')}
      <div class="actions"><button class="primary" type="submit" ?disabled=${p.busy}>${t.save}</button></div>
    </form>
    <form aria-labelledby="address-heading" @submit=${(event: Event) => void saveForm(p, event, 'PUT', '/portal/api/billing-address')}>
      <h3 id="address-heading">${t.addressTitle}</h3>
      ${field('line1', t.line1, null, 'text', 'address-line1')}
      ${field('line2', t.line2, null, 'text', 'address-line2')}
      ${field('city', t.city, null, 'text', 'address-level2')}
      ${field('postalZip', t.postalZip, null, 'text', 'postal-code')}
      <div class="actions"><button class="primary" type="submit" ?disabled=${p.busy}>${t.save}</button></div>
    </form>
    ${
      p.preferences && p.preferences.length > 0
        ? html`<form aria-labelledby="preferences-heading" @submit=${(event: Event) => void savePreferences(p, event)}>
          <h3 id="preferences-heading">${t.preferencesTitle}</h3>
          ${p.preferences.map(
            (p) =>
              html`<label class="choice"><input type="checkbox" name=${p.emailType} .checked=${p.enabled !== false} />${names.get(p.emailType) ?? p.emailType}</label>`,
          )}
          <div class="actions"><button class="primary" type="submit" ?disabled=${p.busy}>${t.save}</button></div>
        </form>`
        : nothing
    }
  `;
}

export async function saveForm(p: Portal, event: Event, method: 'PUT', path: string) {
  event.preventDefault();
  if (p.busy) return;
  // Empty inputs are left out: a blank field keeps what is stored.
  const body = Object.fromEntries(
    [...new FormData(event.target as HTMLFormElement)].map(([k, v]) => [k, String(v).trim()]).filter(([, v]) => v !== ''),
  );
  await write(p, () => p.api(method, path, body));
}

export async function savePreferences(p: Portal, event: Event) {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const preferences = (p.preferences ?? []).map((p) => ({
    emailType: p.emailType,
    enabled: form.querySelector<HTMLInputElement>(`input[name="${p.emailType}"]`)?.checked ?? true,
  }));
  await write(p, async () => (p.preferences = await p.api<Preference[]>('PUT', '/portal/api/email-preferences', { preferences })));
}

export async function write(p: Portal, action: () => Promise<unknown>) {
  p.busy = true;
  p.problem = '';
  p.notice = '';
  try {
    await action();
    p.overview = await p.api<Overview>('GET', '/portal/api/overview');
    p.notice = p.text.saved;
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}
