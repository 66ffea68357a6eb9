import { html, nothing } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';

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

/** A labelled input with its error under it, linked for assistive technology. */
export function textField(o: TextFieldOptions) {
  const errorId = `${o.name}-error`;
  return html`<label>
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
    />
    ${o.error ? html`<span class="error" id=${errorId} role="alert">${o.error}</span>` : nothing}
  </label>`;
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
