import { css } from 'lit';

/**
 * The widget's design tokens (widget/src/checkout/styles.ts: accent #2f5bea, error #b3261e, borders #c4c7cc,
 * muted #5f6368, radius 6px; the portal's system-ui stack), as custom properties set by <renew-console> for
 * its light and dark themes; every page's shadow tree inherits them.
 */
export const themeTokens = css`
  :host {
    --renew-accent: #2f5bea;
    --renew-accent-text: #fff;
    --renew-radius: 6px;
    --renew-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    --renew-error: #b3261e;
    --console-error-text: #fff;
    --renew-text: #1a1a1a;
    --console-bg: #fff;
    --console-surface: #f6f7f9;
    --console-border: #c4c7cc;
    --console-muted: #5f6368;
    --console-selected: #f3f6ff;
    --console-ok: #1e6b34;
    --console-warn: #8a4b00;
    --console-focus: #2f5bea;
    color-scheme: light;
  }
  :host([theme='dark']) {
    --renew-accent: #8ab4f8;
    --renew-accent-text: #0b1a3a;
    --renew-error: #f2b8b5;
    --console-error-text: #410e0b;
    --renew-text: #e8eaed;
    --console-bg: #121316;
    --console-surface: #1d1f23;
    --console-border: #5f6368;
    --console-muted: #b5b9bf;
    --console-selected: #1f2a44;
    --console-ok: #81c995;
    --console-warn: #fdd663;
    --console-focus: #8ab4f8;
    color-scheme: dark;
  }
`;

/** Shared by every page: forms, buttons, tables, dialogs. */
export const pageStyles = css`
  :host { display: block; min-width: 0; }
  * { box-sizing: border-box; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
  h3 { font-size: 1rem; margin: 1rem 0 0.5rem; }
  p, td, th, dd, li { overflow-wrap: anywhere; }
  a { color: var(--renew-accent); }
  a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, [tabindex]:focus-visible {
    outline: 3px solid var(--console-focus); outline-offset: 2px;
  }
  form { display: grid; gap: 0.75rem; max-width: 32rem; }
  form.inline-form { display: flex; flex-wrap: wrap; align-items: end; max-width: none; }
  label, .field { display: grid; gap: 0.25rem; font-size: 0.9rem; }
  input, select, textarea {
    font: inherit; padding: 0.5rem 0.6rem; border: 1px solid var(--console-border); border-radius: var(--renew-radius);
    background: var(--console-bg); color: var(--renew-text); min-width: 0; max-width: 100%;
  }
  textarea { min-height: 5rem; }
  button, .button {
    font: inherit; cursor: pointer; padding: 0.45rem 0.9rem; border-radius: var(--renew-radius); min-height: 2.25rem;
    border: 1px solid var(--renew-accent); background: var(--console-bg); color: var(--renew-accent); text-decoration: none;
    display: inline-flex; align-items: center; gap: 0.35rem;
  }
  button.primary, button[type='submit'] { background: var(--renew-accent); color: var(--renew-accent-text); }
  button.danger { border-color: var(--renew-error); color: var(--renew-error); }
  /* A filled danger button (a form's submit, "Turn off"): the error colour as its background, never on the accent. */
  button.danger.primary, button.danger[type='submit'] { background: var(--renew-error); color: var(--console-error-text); }
  button:disabled { opacity: 0.6; cursor: progress; }
  .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
  .error { color: var(--renew-error); }
  .ok { color: var(--console-ok); }
  .muted { color: var(--console-muted); font-size: 0.9rem; }
  .table-wrap { overflow-x: auto; max-width: 100%; }
  table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
  caption { text-align: start; font-weight: 600; padding: 0.25rem 0 0.5rem; }
  th, td { text-align: start; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--console-border); vertical-align: top; }
  th { font-weight: 600; white-space: nowrap; }
  td.num, th.num { text-align: end; font-variant-numeric: tabular-nums; }
  th button.sort { border: none; background: none; color: inherit; padding: 0.2rem; font-weight: 600; min-height: 0; }
  dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0.5rem 1rem; margin: 0; }
  dl.facts div { display: grid; gap: 0.1rem; }
  dl.facts dt { color: var(--console-muted); font-size: 0.85rem; }
  dl.facts dd { margin: 0; font-weight: 600; }
  .badge { display: inline-block; padding: 0.05rem 0.45rem; border-radius: 999px; border: 1px solid var(--console-border); font-size: 0.85rem; }
  .pager { display: flex; flex-wrap: wrap; align-items: center; gap: 0.75rem; margin-top: 0.75rem; }
  dialog {
    border: 1px solid var(--console-border); border-radius: var(--renew-radius); background: var(--console-bg); color: var(--renew-text);
    max-width: min(36rem, calc(100vw - 2rem)); width: 100%; padding: 1.25rem;
  }
  dialog::backdrop { background: rgb(0 0 0 / 0.45); }
  dialog h2 { margin-top: 0; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  pre.code { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--console-surface); padding: 0.5rem; border-radius: var(--renew-radius); }
  section.card { border: 1px solid var(--console-border); border-radius: var(--renew-radius); padding: 0.75rem 1rem; margin: 0 0 1rem; }
`;
