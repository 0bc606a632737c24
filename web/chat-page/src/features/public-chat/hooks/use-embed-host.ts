import { useCallback, useEffect, useState } from 'react';
import { readEmbedMessage, type EmbedMessage, type Visitor } from '../embed-messages';

/** The chat's message field, which opening the panel focuses. */
export const CHAT_FIELD_ID = 'chat-message';

function postToHost(message: EmbedMessage): void {
  // No secret travels this way (only "ready" and "close"), and the host page's origin is not known
  // in advance (any allowed site), so any origin may receive it.
  if (window.parent !== window) window.parent.postMessage(message, '*');
}

/**
 * The embed page's side of the widget (see embed-messages.ts): says it is ready once the page is
 * (`ready`: the chat, with its field, or its error is on screen — so the widget's "open", sent again
 * on "ready", finds the field to focus even when the panel was opened while the page was loading),
 * takes the visitor from the host page's identify, focuses the field when the panel opens, and asks
 * the widget to close on the close button or Esc. Messages from anyone but the parent window are
 * ignored. Off (no listeners, no visitor) on the public page.
 */
export function useEmbedHost(enabled: boolean, ready: boolean) {
  const [visitor, setVisitor] = useState<Visitor | null>(null);

  const close = useCallback(() => postToHost({ type: 'parley:close' }), []);

  useEffect(() => {
    if (!enabled) return;
    function onMessage(event: MessageEvent) {
      if (event.source !== window.parent || window.parent === window) return;
      const message = readEmbedMessage(event.data);
      if (message?.type === 'parley:identify') setVisitor(message.visitor);
      else if (message?.type === 'parley:open') document.getElementById(CHAT_FIELD_ID)?.focus();
    }
    function onKeyDown(event: KeyboardEvent) {
      if (event.key === 'Escape' && !event.isComposing) close();
    }
    window.addEventListener('message', onMessage);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      window.removeEventListener('message', onMessage);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [enabled, close]);

  useEffect(() => {
    if (enabled && ready) postToHost({ type: 'parley:ready' });
  }, [enabled, ready]);

  return { visitor: enabled ? visitor : null, close: enabled ? close : undefined };
}
