import { html, nothing, type LitElement } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { t } from './i18n/localization.js';

export interface TextFieldOptions {
  label: string;
  name: string;
  value?: string;
  error?: string;
  autocomplete?: string;
  type?: string;
  inputmode?: string;
  required?: boolean;
  maxlength?: number;
  placeholder?: string;
  /** Runs as the shopper types (formatting, moving focus on). */
  onInput?: (event: InputEvent) => void;
}

/**
 * A labelled input with its error under it, linked for assistive technology: the error describes the
 * input (aria-describedby) and stays outside the label, so it is not read into the input's name.
 */
export function textField(o: TextFieldOptions) {
  const errorId = `${o.name}-error`;
  return html`<div class="field"><label>
    ${o.label}
    <input
      name=${o.name}
      .value=${o.value ?? ''}
      type=${o.type ?? 'text'}
      autocomplete=${ifDefined(o.autocomplete)}
      inputmode=${ifDefined(o.inputmode)}
      maxlength=${ifDefined(o.maxlength)}
      placeholder=${ifDefined(o.placeholder)}
      @input=${o.onInput}
      ?required=${o.required ?? true}
      aria-invalid=${o.error ? 'true' : 'false'}
      aria-describedby=${ifDefined(o.error ? errorId : undefined)}
    /></label>
    ${o.error ? html`<span class="error" id=${errorId} role="alert">${o.error}</span>` : nothing}
  </div>`;
}

export function formMessage(message: string | undefined) {
  return message ? html`<p class="error" role="alert">${message}</p>` : nothing;
}

/** The named fields of a submitted form, trimmed. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of new FormData(form)) values[key] = String(value).trim();
  return values;
}

/**
 * The form's fields checked as the browser would (required, type, length), in the checkout's own
 * words: the forms are `novalidate`, since the browser's bubble speaks the browser's language, not
 * the shopper's. Field name -> message; {} when every field passes.
 */
export function fieldProblems(form: HTMLFormElement): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const field of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')) {
    const v = field.validity;
    if (!field.willValidate || v.valid || problems[field.name]) continue;
    if (v.valueMissing) problems[field.name] = t(field.type === 'radio' ? 'plan.required' : 'required');
    else if (v.typeMismatch && field.type === 'email') problems[field.name] = t('customer.emailInvalid');
    else if (v.tooLong || v.tooShort)
      problems[field.name] = t(
        v.tooLong ? 'error.tooLong' : 'error.tooShort',
        field.getAttribute(v.tooLong ? 'maxlength' : 'minlength') ?? '',
      );
    else problems[field.name] = t('error.format');
  }
  return problems;
}

/** Once the step shows its messages, the keyboard goes to the first field marked invalid (its message is read with it). */
export function focusFirstInvalid(step: LitElement) {
  void step.updateComplete.then(() => step.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
}
