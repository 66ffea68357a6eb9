/**
 * The bank's 3-D Secure challenge inside the hosted card fields (issue 37). When the capture host answers
 * 202, the fields give way to a dialog holding the bank's page in a frame of its own; the bank's page tells
 * this document its answer (`renew-3ds`, posted from this host's origin: the sandbox issuer's page, or the
 * page a processor returns to), and the capture is then completed here. Cancel or Escape abandons it.
 */

export type ChallengeAnswer = 'answered' | 'cancelled';

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the card fields page has no #${id}`);
  return found;
}

/** Shows the challenge and resolves when the bank's page has answered, or the shopper cancelled. */
export function runChallenge(challengeUrl: string): Promise<ChallengeAnswer> {
  const fields = element('card-fields');
  const dialog = element('challenge');
  const frame = element('challenge-frame') as HTMLIFrameElement;
  const cancel = element('challenge-cancel');
  const title = element('challenge-title');
  return new Promise((resolve) => {
    const finish = (answer: ChallengeAnswer) => {
      window.removeEventListener('message', onMessage);
      cancel.removeEventListener('click', onCancel);
      dialog.removeEventListener('keydown', onKey);
      frame.src = 'about:blank';
      dialog.hidden = true;
      fields.hidden = false;
      resolve(answer);
    };
    const onMessage = (event: MessageEvent) => {
      // Only the page in the challenge frame, served from this host (the sandbox issuer, or a processor's return page).
      if (event.source !== frame.contentWindow || event.origin !== location.origin) return;
      const data = event.data as { type?: unknown } | null;
      if (data && typeof data === 'object' && data.type === 'renew-3ds') finish('answered');
    };
    const onCancel = () => finish('cancelled');
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') finish('cancelled');
    };
    window.addEventListener('message', onMessage);
    cancel.addEventListener('click', onCancel);
    dialog.addEventListener('keydown', onKey);
    fields.hidden = true;
    dialog.hidden = false;
    frame.src = new URL(challengeUrl, location.origin).toString();
    // Screen readers hear the dialog's title and purpose; the keyboard goes on into the bank's page.
    title.focus();
  });
}
