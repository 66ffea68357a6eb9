import { html, LitElement, type PropertyValues, type TemplateResult } from 'lit';
import type { Operator } from './api.js';
import { t } from './i18n.js';
import { refusalText } from './labels.js';
import { pageStyles } from './styles.js';

/**
 * What every page element shares: the operator (for what their role may do), the language (a change re-renders),
 * the route's argument, and a way to show a failed load.
 */
export class ConsolePage extends LitElement {
  static override styles = [pageStyles];
  static override properties = {
    operator: { attribute: false },
    lang: { type: String },
    routeArg: { attribute: false },
    theme: { type: String },
  };
  declare operator: Operator | undefined;
  declare lang: string;
  declare routeArg: string | undefined;
  declare theme: string;

  /** Called once connected and whenever the route's argument changes. */
  protected load(): void | Promise<void> {}

  override connectedCallback() {
    super.connectedCallback();
    void this.load();
  }

  protected override updated(changed: PropertyValues<this>) {
    if (changed.has('routeArg') && changed.get('routeArg') !== undefined) void this.load();
    labelScrollingTables(this.renderRoot);
  }

  /** The page's main heading gets focus after navigation (the shell asks), so screen readers hear where they are. */
  focusHeading() {
    const heading = this.renderRoot.querySelector<HTMLElement>('h1');
    heading?.focus();
  }

  protected dialog(id: string): HTMLDialogElement | null {
    return this.renderRoot.querySelector<HTMLDialogElement>(`dialog#${id}`);
  }
}

/**
 * Every `.table-wrap` (a table that scrolls sideways inside its own box on a narrow screen) becomes a region a keyboard
 * can reach and scroll: tabindex 0, role region, named after its table's caption. Done here, after each render, so
 * every page's tables get it without their markup saying so.
 */
export function labelScrollingTables(root: ParentNode) {
  for (const wrap of root.querySelectorAll<HTMLElement>('.table-wrap')) {
    const caption = wrap.querySelector('caption')?.textContent?.replace(/\s+/g, ' ').trim();
    wrap.tabIndex = 0;
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-label', caption ? t('tableRegion', { name: caption }) : t('tableRegionUnnamed'));
  }
}

/** The message for a failed call: each refusal by its Code in the chosen language (labels.ts). */
export function problemText(error: unknown): string {
  return refusalText(error);
}

export function problem(error: unknown): TemplateResult {
  return html`<p class="error" role="alert">${problemText(error)}</p>`;
}

export function loading(): TemplateResult {
  return html`<p class="muted" role="status">${t('loading')}</p>`;
}

/** A section's data: not loaded yet, loaded, or failed. */
export type Loaded<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'failed'; error: unknown };

export async function settle<T>(promise: Promise<T>): Promise<Loaded<T>> {
  try {
    return { state: 'ok', value: await promise };
  } catch (error) {
    return { state: 'failed', error };
  }
}

export function show<T>(data: Loaded<T> | undefined, render: (value: T) => TemplateResult | string): TemplateResult | string {
  if (!data || data.state === 'loading') return loading();
  if (data.state === 'failed') return problem(data.error);
  return render(data.value);
}
