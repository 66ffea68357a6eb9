/** The portal page's look: readable on a phone (44px targets, no sideways scrolling) and themable by --renew-* properties. */
import { css } from 'lit';

export const portalStyles = css`
  :host {
    display: block; font-family: var(--renew-font, system-ui, sans-serif); color: var(--renew-text, #1a1a1a);
    max-width: 48rem; margin: 0 auto; padding: 1rem; box-sizing: border-box; overflow-wrap: anywhere;
  }
  * { box-sizing: border-box; }
  nav { display: flex; flex-wrap: wrap; gap: 0 0.5rem; align-items: center; justify-content: space-between; }
  h1 { font-size: 1.5rem; margin: 0.5rem 0; }
  h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
  nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; padding: 0; margin: 0.5rem 0 1rem; }
  a, button.link { color: var(--renew-accent, #2f5bea); }
  nav a, .actions a { display: inline-flex; align-items: center; min-height: 44px; min-width: 44px; padding: 0 0.5rem; }
  nav a[aria-current='page'] { font-weight: 700; }
  a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible, select:focus-visible { outline: 3px solid var(--renew-accent, #2f5bea); outline-offset: 2px; }
  button {
    font: inherit; cursor: pointer; min-height: 44px; min-width: 44px; padding: 0.5rem 1rem; border-radius: var(--renew-radius, 6px);
    border: 1px solid var(--renew-accent, #2f5bea); background: #fff; color: var(--renew-accent, #2f5bea);
  }
  button.primary { background: var(--renew-accent, #2f5bea); color: var(--renew-accent-text, #fff); }
  button:disabled { opacity: 0.6; cursor: progress; }
  form { display: grid; gap: 0.75rem; max-width: 30rem; }
  label { display: grid; gap: 0.25rem; }
  input, textarea, select {
    font: inherit; width: 100%; min-width: 0; min-height: 44px; padding: 0.5rem; border: 1px solid #767676;
    border-radius: var(--renew-radius, 6px); color: inherit; background: #fff;
  }
  input[type='radio'], input[type='checkbox'] { width: 1.25rem; height: 1.25rem; min-height: 0; margin: 0; accent-color: var(--renew-accent, #2f5bea); }
  label.choice { display: flex; gap: 0.6rem; align-items: center; min-height: 44px; }
  fieldset { border: 1px solid #c4c7cc; border-radius: var(--renew-radius, 6px); padding: 0.5rem 0.75rem; margin: 0; }
  .card { border: 1px solid #dadce0; border-radius: var(--renew-radius, 6px); padding: 0.75rem 1rem; margin: 0.5rem 0; }
  .card h3 { margin: 0 0 0.25rem; font-size: 1.05rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 0.75rem; margin: 0.25rem 0; }
  dt { color: #4a4d52; }
  dd { margin: 0; }
  .flag { display: inline-block; background: #fff4e5; color: #7a4100; border-radius: 4px; padding: 0 0.4rem; font-weight: 600; }
  .status { padding: 0.5rem 0.75rem; border-radius: var(--renew-radius, 6px); background: #e8f5e9; color: #1b5e20; }
  .error { color: var(--renew-error, #b3261e); }
  .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 0.5rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: start; padding: 0.4rem 0.3rem; border-bottom: 1px solid #e0e0e0; vertical-align: middle; }
  td.number, th.number { text-align: end; }
  .table-wrap { max-width: 100%; overflow-x: auto; }
  .usage h5 { margin: 0.5rem 0 0.25rem; font-size: 0.95rem; }
  .usage p { margin: 0 0 0.25rem; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  @media (max-width: 30rem) { .hide-narrow { display: none; } dl { grid-template-columns: 1fr; } }
  /* the bank's 3-D Secure page (portal-pay.ts) */
  .bank-challenge { display: block; width: 100%; height: 420px; border: 1px solid currentColor; border-radius: 6px; background: #fff; }
  #bank-title:focus { outline: none; }
`;
