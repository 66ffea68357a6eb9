import type { ChangeOptions, Overview, Portal, Subscription } from './portal-model.js';

/**
 * The overview's buttons on a pending cancellation or plan change: keep the subscription, withdraw the
 * change. Apart from the cancel and change sections, which fall back to the overview (no import circle).
 */
export async function uncancel(p: Portal, subscription: Subscription) {
  if (p.busy) return;
  p.busy = true;
  p.problem = '';
  try {
    p.overview = await p.api<Overview>('POST', `/portal/api/subscriptions/${subscription.id}/uncancel`, {});
    // Kept, it may change plan again (none is offered while it is set to end).
    p.changeOptions = await p.api<ChangeOptions[]>('GET', '/portal/api/plan-changes');
    p.notice = p.text.kept;
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}

export async function withdrawChange(p: Portal, subscriptionId: number) {
  if (p.busy) return;
  p.busy = true;
  p.problem = '';
  try {
    p.changeOptions = await p.api<ChangeOptions[]>('DELETE', `/portal/api/subscriptions/${subscriptionId}/changes/pending`);
    p.notice = p.text.changeWithdrawn;
    // The button pressed is gone: the confirmation takes the focus.
    await p.focusNotice();
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}
