import { css } from 'lit';

/**
 * Shared by every step. Themed through custom properties on <renew-checkout>:
 * --renew-accent, --renew-accent-text, --renew-radius, --renew-font, --renew-error.
 */
export const stepStyles = css`
  :host { display: block; font: inherit; }
  form { display: grid; gap: 0.75rem; }
  h2 { font-size: 1.15rem; margin: 0 0 0.5rem; }
  label, .field { display: grid; gap: 0.25rem; font-size: 0.9rem; align-content: start; }
  input, select {
    font: inherit; padding: 0.55rem 0.65rem; border: 1px solid #c4c7cc;
    border-radius: var(--renew-radius, 6px); background: #fff; color: inherit;
    box-sizing: border-box; width: 100%; min-width: 0; min-height: 44px;
  }
  /* Touch targets of at least 44 px: the box itself is small, its label is the target. */
  input[type='radio'], input[type='checkbox'] { width: 1.2rem; height: 1.2rem; min-height: 0; margin: 0.2rem 0 0; flex: none; accent-color: var(--renew-accent, #2f5bea); }
  label.inline { min-height: 44px; }
  .choice {
    display: grid; grid-template-columns: auto 1fr; column-gap: 0.65rem; align-items: start; cursor: pointer;
    padding: 0.75rem; border: 1px solid #dadce0; border-radius: var(--renew-radius, 6px);
  }
  .choice:has(input:checked) { border-color: var(--renew-accent, #2f5bea); background: #f3f6ff; }
  .choices { display: grid; gap: 0.5rem; }
  .inline { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
  input[aria-invalid='true'], select[aria-invalid='true'] { border-color: var(--renew-error, #b3261e); }
  .row { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(7rem, 100%), 1fr)); gap: 0.75rem; }
  .error { color: var(--renew-error, #b3261e); font-size: 0.85rem; }
  .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; justify-content: space-between; margin-top: 0.5rem; }
  button {
    font: inherit; cursor: pointer; padding: 0.6rem 1.1rem; min-height: 44px; min-width: 44px; border-radius: var(--renew-radius, 6px);
    border: 1px solid var(--renew-accent, #2f5bea); background: #fff; color: var(--renew-accent, #2f5bea);
  }
  button[type='submit'] { background: var(--renew-accent, #2f5bea); color: var(--renew-accent-text, #fff); }
  button:disabled { opacity: 0.6; cursor: progress; }
  .muted { color: #5f6368; font-size: 0.85rem; }
  .renewal { font-size: 0.85rem; color: #3c4043; margin: 0.25rem 0; }
  .brand { margin: -0.5rem 0 0; min-height: 1em; }
  /* Direct mode's 3-D Secure: the bank's page in the card step's dialog. */
  [role="dialog"] { display: grid; gap: 0.75rem; }
  iframe.challenge { display: block; width: 100%; height: 420px; border: 1px solid currentColor; border-radius: 6px; background: #fff; }
  p, span, label, td { overflow-wrap: anywhere; }
`;
