/** Every event the checkout raises goes through here: prefixed, bubbling, composed (crosses shadow roots). */
export function emit<T>(from: HTMLElement, name: `renew-${string}`, detail: T): void {
  from.dispatchEvent(new CustomEvent<T>(name, { detail, bubbles: true, composed: true }));
}
