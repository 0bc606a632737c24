// The widget's pure parts: what the script tag says, and what the public lookup answered.
import { readAppearance, type Appearance } from '../features/public-chat/appearance';
import { PUBLIC_CHATBOT_NOT_FOUND } from '../features/public-chat/not-found';

export interface WidgetConfig {
  /** Parley's origin, from the script's own address (the host page may be anywhere). */
  origin: string;
  uniqueId: string;
}

/** The config in `<script src="{origin}/widget.js" data-chatbot="{uniqueId}">`, or null when it is incomplete. */
export function readWidgetConfig(script: Pick<HTMLScriptElement, 'src' | 'getAttribute'> | null): WidgetConfig | null {
  const uniqueId = script?.getAttribute('data-chatbot')?.trim();
  if (!script?.src || !uniqueId) return null;
  try {
    const { protocol, origin } = new URL(script.src);
    return protocol === 'https:' || protocol === 'http:' ? { origin, uniqueId } : null;
  } catch {
    return null;
  }
}

export function lookupUrl({ origin, uniqueId }: WidgetConfig): string {
  return `${origin}/api/chatbot/public/${encodeURIComponent(uniqueId)}`;
}

export function embedUrl({ origin, uniqueId }: WidgetConfig): string {
  return `${origin}/embed/${encodeURIComponent(uniqueId)}`;
}

export const NOT_AVAILABLE_MESSAGE = 'This chatbot is not available on this website.';

/**
 * What the lookup means for the widget: the chatbot's name and appearance; a refusal (403: not on
 * this site, 404: unknown or inactive) whose message the panel shows instead of the chat; or, when
 * the lookup failed otherwise, Parley's defaults (the chat in the iframe then says what is wrong).
 */
export type Lookup =
  | { status: 'ready'; name: string; appearance: Appearance }
  | { status: 'refused'; message: string; appearance: Appearance }
  | { status: 'unknown'; appearance: Appearance };

function message(body: unknown): string | null {
  const text = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).message : undefined;
  return typeof text === 'string' && text.trim() ? text.trim() : null;
}

export function readLookup(status: number, body: unknown): Lookup {
  if (status === 403) return { status: 'refused', message: message(body) ?? NOT_AVAILABLE_MESSAGE, appearance: readAppearance(null) };
  if (status === 404) return { status: 'refused', message: message(body) ?? PUBLIC_CHATBOT_NOT_FOUND, appearance: readAppearance(null) };
  const name = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).name : undefined;
  if (status >= 200 && status < 300 && typeof name === 'string') {
    return { status: 'ready', name, appearance: readAppearance((body as Record<string, unknown>).appearance) };
  }
  return { status: 'unknown', appearance: readAppearance(null) };
}

/** Whether a message event comes from the widget's own iframe, served from Parley's origin. */
export function isFromFrame(event: Pick<MessageEvent, 'origin' | 'source'>, origin: string, frame: Window | null): boolean {
  return frame !== null && event.source === frame && event.origin === origin;
}
