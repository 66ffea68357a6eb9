import { html, nothing, type TemplateResult } from 'lit';
import { get, post, request } from '../api.js';
import { t } from '../i18n.js';
import { statusText } from '../labels.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

export interface Endpoint {
  id: number;
  url: string;
  description: string | null;
  status: string;
  eventTypes: string[];
  secret?: string;
  failingSinceTimestamp?: string | null;
}

interface Editing {
  endpoint: Endpoint | undefined;
  error: string;
  busy: boolean;
}

/**
 * <console-webhook-endpoints> on the webhooks page (owners): the endpoints, a dialog to create one or edit its URL,
 * events, description and whether it is enabled (POST and PUT /v1/webhookEndpoints), the new endpoint's signing
 * secret shown once, and "Send test event" (POST /console/api/webhook-endpoints/{id}/test), whose delivery then
 * appears in the deliveries below (the page listens for `console-webhook-test-sent`).
 */
export class WebhookEndpointsSection extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    endpoints: { state: true },
    eventTypes: { state: true },
    editing: { state: true },
    secret: { state: true },
    announcement: { state: true },
  };
  declare endpoints: Loaded<Endpoint[]>;
  /** What an endpoint can subscribe to (GET /console/api/webhook-event-types); `*` is every one. */
  declare eventTypes: string[];
  declare editing: Editing | undefined;
  declare secret: { id: number; secret: string } | undefined;
  declare announcement: string;

  constructor() {
    super();
    this.endpoints = { state: 'loading' };
    this.eventTypes = [];
    this.announcement = '';
  }

  protected override async load() {
    const [endpoints, types] = await Promise.all([
      settle(get<Endpoint[]>('/v1/webhookEndpoints')),
      settle(get<{ eventTypes: string[] }>('/webhook-event-types')),
    ]);
    this.endpoints = endpoints;
    if (types.state === 'ok') this.eventTypes = types.value.eventTypes;
  }

  private async edit(endpoint: Endpoint | undefined) {
    this.editing = { endpoint, error: '', busy: false };
    await this.updateComplete;
    this.dialog('endpoint-dialog')?.showModal();
  }

  private async save(event: SubmitEvent) {
    event.preventDefault();
    const editing = this.editing;
    if (!editing) return;
    const form = new FormData(event.target as HTMLFormElement);
    const all = form.get('all') === 'on';
    const eventTypes = all ? ['*'] : form.getAll('eventTypes').map(String);
    if (eventTypes.length === 0) {
      this.editing = { ...editing, error: t('endpointNoEvents') };
      return;
    }
    const body = {
      url: String(form.get('url') ?? '').trim(),
      eventTypes,
      description: String(form.get('description') ?? '').trim() || null,
      ...(editing.endpoint ? { status: form.get('enabled') === 'on' ? 'Enabled' : 'Disabled' } : {}),
    };
    this.editing = { ...editing, busy: true, error: '' };
    try {
      if (editing.endpoint) {
        await request('PUT', `/v1/webhookEndpoints/${editing.endpoint.id}`, { body });
        this.announcement = t('endpointSaved', { url: body.url });
        this.secret = undefined;
      } else {
        const created = await post<Endpoint>('/v1/webhookEndpoints', body);
        this.announcement = t('endpointCreated', { url: created.url });
        if (created.secret) this.secret = { id: created.id, secret: created.secret };
      }
      this.dialog('endpoint-dialog')?.close();
      await this.load();
    } catch (error) {
      if (this.editing) this.editing = { ...this.editing, busy: false, error: problemText(error) };
    }
  }

  private async sendTest(endpoint: Endpoint) {
    try {
      const sent = await post<{ eventId: string }>(`/webhook-endpoints/${endpoint.id}/test`);
      this.announcement = t('testEventSent', { url: endpoint.url, event: sent.eventId });
      this.dispatchEvent(new CustomEvent('console-webhook-test-sent', { bubbles: true, composed: true }));
    } catch (error) {
      this.announcement = problemText(error);
    }
  }

  override render() {
    return html`<section aria-labelledby="endpoints-title">
      <h2 id="endpoints-title">${t('endpoints')}</h2>
      <p role="status" class="ok">${this.announcement}</p>
      ${this.secret ? html`<p>${t('endpointSecretOnce')}</p><pre class="code" data-endpoint-secret>${this.secret.secret}</pre>` : nothing}
      <div class="actions"><button type="button" @click=${() => this.edit(undefined)}>${t('endpointNew')}</button></div>
      ${show(this.endpoints, (rows) => this.table(rows))}
      ${this.editing ? this.editDialog(this.editing) : nothing}
    </section>`;
  }

  private table(rows: Endpoint[]): TemplateResult {
    return html`<div class="table-wrap"><table>
      <caption class="visually-hidden">${t('endpoints')}</caption>
      <thead><tr><th scope="col">${t('colId')}</th><th scope="col">${t('colUrl')}</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('colEvents')}</th><th scope="col">${t('colActions')}</th></tr></thead>
      <tbody>
        ${rows.length === 0 ? html`<tr><td colspan="5">${t('none')}</td></tr>` : nothing}
        ${rows.map(
          (row) => html`<tr data-endpoint=${row.id}>
            <td>${row.id}</td>
            <td>${row.url}${row.description ? html`<br /><span class="muted">${row.description}</span>` : nothing}</td>
            <td>${statusText('endpoint', row.status)}</td>
            <td>${row.eventTypes.includes('*') ? t('endpointAllEvents') : row.eventTypes.join(', ')}</td>
            <td><div class="actions">
              <button type="button" aria-label=${t('endpointEditOf', { url: row.url })} @click=${() => this.edit(row)}>${t('endpointEdit')}</button>
              ${
                row.status === 'Enabled'
                  ? html`<button type="button" aria-label=${t('sendTestEventTo', { url: row.url })} @click=${() => this.sendTest(row)}>${t('sendTestEvent')}</button>`
                  : nothing
              }
            </div></td>
          </tr>`,
        )}
      </tbody>
    </table></div>`;
  }

  private editDialog(editing: Editing): TemplateResult {
    const endpoint = editing.endpoint;
    const all = endpoint?.eventTypes.includes('*') ?? false;
    return html`<dialog id="endpoint-dialog" aria-labelledby="endpoint-title" @close=${() => (this.editing = undefined)}>
      <h2 id="endpoint-title">${endpoint ? t('endpointEditOf', { url: endpoint.url }) : t('endpointNew')}</h2>
      <form @submit=${this.save}>
        <label>${t('colUrl')}<input name="url" type="url" required maxlength="2000" autocomplete="off" placeholder="https://" .value=${endpoint?.url ?? ''} /></label>
        <label>${t('endpointDescription')}<input name="description" maxlength="500" autocomplete="off" .value=${endpoint?.description ?? ''} /></label>
        ${endpoint ? html`<label><input name="enabled" type="checkbox" .checked=${endpoint.status === 'Enabled'} /> ${t('endpointEnabled')}</label>` : nothing}
        <fieldset>
          <legend>${t('colEvents')}</legend>
          <label><input name="all" type="checkbox" .checked=${all} /> ${t('endpointAllEvents')}</label>
          <div class="event-types">
            ${this.eventTypes.map(
              (type) =>
                html`<label><input name="eventTypes" type="checkbox" value=${type} .checked=${!all && (endpoint?.eventTypes.includes(type) ?? false)} /> <code>${type}</code></label>`,
            )}
          </div>
        </fieldset>
        <p class="error" role="alert">${editing.error}</p>
        <div class="actions">
          <button type="submit" class="primary" ?disabled=${editing.busy}>${t('save')}</button>
          <button type="button" @click=${() => this.dialog('endpoint-dialog')?.close()}>${t('cancel')}</button>
        </div>
      </form>
    </dialog>`;
  }
}
customElements.define('console-webhook-endpoints', WebhookEndpointsSection);
