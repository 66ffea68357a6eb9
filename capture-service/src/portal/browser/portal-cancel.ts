/** Cancelling a subscription (at the period end or now, as the catalogue allows), and keeping one that was cancelled. */
import { html } from 'lit';
import { date } from './portal-format.js';
import { loadedOverview, type Overview, type Portal, type Subscription } from './portal-model.js';
import { renderOverview } from './portal-overview.js';
import { say } from './portal-text.js';

export function renderCancel(p: Portal, subscriptionId: number) {
  const t = p.text;
  const o = loadedOverview(p);
  const subscription = o.subscriptions.find((s) => s.id === subscriptionId);
  if (o.scope !== 'full') return html`<h2 tabindex="-1">${t.cancel}</h2><p>${t.signInAgain}</p>`;
  if (!subscription || o.cancelMode === 'none') return renderOverview(p);
  const modes = o.cancelMode === 'either' ? (['periodEnd', 'now'] as const) : ([o.cancelMode] as const);
  const label = (mode: 'periodEnd' | 'now') =>
    mode === 'now' ? t.cancelNow : say(t.cancelPeriodEnd, subscription.nextChargeDate ? date(p, subscription.nextChargeDate) : '—');
  return html`
    <h2 tabindex="-1">${say(t.cancelTitle, subscription.name)}</h2>
    <form @submit=${(event: Event) => void cancel(p, event, subscription)}>
      <fieldset>
        <legend>${t.cancelWhen}</legend>
        ${modes.map((mode, index) => html`<label class="choice"><input type="radio" name="mode" value=${mode} ?checked=${index === 0} />${label(mode)}</label>`)}
      </fieldset>
      <label>${t.reason}<textarea name="reason" maxlength="500" rows="3"></textarea></label>
      <div class="actions">
        <button class="primary" type="submit" ?disabled=${p.busy}>${t.confirmCancel}</button>
        <a href="#overview">${t.overview}</a>
      </div>
    </form>
  `;
}

export async function cancel(p: Portal, event: Event, subscription: Subscription) {
  event.preventDefault();
  if (p.busy) return;
  const fields = new FormData(event.target as HTMLFormElement);
  const mode = String(fields.get('mode') ?? 'periodEnd');
  p.busy = true;
  p.problem = '';
  try {
    p.overview = await p.api<Overview>('POST', `/portal/api/subscriptions/${subscription.id}/cancel`, {
      mode,
      reason: String(fields.get('reason') ?? '') || null,
    });
    const after = p.overview.subscriptions.find((s) => s.id === subscription.id);
    await p.show('overview');
    p.notice =
      mode === 'now' || !after?.cancellation?.effectiveDate
        ? p.text.cancelledNow
        : say(p.text.cancelled, date(p, after.cancellation.effectiveDate));
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}
