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
    ${renderAddress(p, field)}
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

type Field = (name: string, label: string, value: string | null, type?: string, autocomplete?: string) => unknown;

/**
 * The billing address, prefilled from the one on file (the checkout's): the country from a list (named in the page's
 * language), and its states, provinces or regions when it has any, as the checkout's address step offers them.
 */
function renderAddress(p: Portal, field: Field) {
  const t = p.text;
  const a = loadedOverview(p).billingAddress;
  const countries = p.countries ?? [];
  const states = countries.find((c) => c.id === p.addressCountry)?.states ?? [];
  const names = regionNames(p.language);
  const byName = [...countries].sort((x, y) => (names(x.iso) ?? x.name).localeCompare(names(y.iso) ?? y.name, p.language));
  return html`<form aria-labelledby="address-heading" @submit=${(event: Event) => void saveAddress(p, event)}>
    <h3 id="address-heading">${t.addressTitle}</h3>
    ${field('line1', t.line1, a?.line1 ?? null, 'text', 'address-line1')}
    ${field('line2', t.line2, a?.line2 ?? null, 'text', 'address-line2')}
    ${field('city', t.city, a?.city ?? null, 'text', 'address-level2')}
    ${field('postalZip', t.postalZip, a?.postalZip ?? null, 'text', 'postal-code')}
    <!-- Labelled with for=, not wrapped: a wrapping label would read the chosen country's name into the select's. -->
    <label for="address-country">${t.country}</label><select id="address-country" name="countryId" autocomplete="country"
        @change=${(event: Event) => (p.addressCountry = Number((event.target as HTMLSelectElement).value) || null)}>
      <option value="" ?selected=${p.addressCountry === null}>—</option>
      ${byName.map((c) => html`<option value=${c.id} ?selected=${c.id === p.addressCountry}>${names(c.iso) ?? c.name}</option>`)}
    </select>
    ${
      states.length > 0
        ? html`<label for="address-region">${t.region}</label><select id="address-region" name="stateId" autocomplete="address-level1">
            <option value="">—</option>
            ${states.map((s) => html`<option value=${s.code} ?selected=${s.code === a?.state}>${s.name}</option>`)}
          </select>`
        : nothing
    }
    <div class="actions"><button class="primary" type="submit" ?disabled=${p.busy}>${t.save}</button></div>
  </form>`;
}

/** Country names in the page's language (the list's own are English), when the browser knows them. */
function regionNames(language: string): (iso: string) => string | undefined {
  try {
    const names = new Intl.DisplayNames([language], { type: 'region' });
    return (iso) => names.of(iso);
  } catch {
    return () => undefined;
  }
}

/** The whole address (a line left blank is cleared): the country by its id, the state by its ISO 3166-2 code. */
async function saveAddress(p: Portal, event: Event) {
  event.preventDefault();
  if (p.busy) return;
  const fields = new FormData(event.target as HTMLFormElement);
  const text = (name: string) => String(fields.get(name) ?? '').trim() || null;
  const countryId = Number(fields.get('countryId')) || null;
  const body = {
    line1: text('line1'),
    line2: text('line2'),
    city: text('city'),
    postalZip: text('postalZip'),
    countryId,
    stateId: text('stateId'),
  };
  await write(p, () => p.api('PUT', '/portal/api/billing-address', body));
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
