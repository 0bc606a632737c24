// widget.js (docs/product.md, The widget): `<script src="{origin}/widget.js" data-chatbot="{uniqueId}" defer>` adds a
// launcher to any page; it opens a panel with Parley's chat (the /embed/{uniqueId} page) in an
// iframe. Vanilla TypeScript without dependencies, built on its own (vite.config.ts) to a stable,
// tiny file. The launcher lives in a shadow root (isolated from the host page's CSS both ways; open,
// so tests and assistive tools can reach it, which a closed one would not change for CSS); the
// iframe is created, hidden, once the host page is idle, so a click only shows it.
// The host page's API: window.Parley.open(), .close(), .identify({ id? or userId?, name?, email?, userHash? }). Calls made before
// the script has loaded wait in window.ParleyQueue as [method, ...args] (see README).
import { textColorOn } from '../lib/text-color-on';
import { readEmbedMessage, readVisitor, type EmbedMessage, type Visitor } from '../features/public-chat/embed-messages';
import { WIDGET_CSS } from './widget-styles';
import { embedUrl, isFromFrame, lookupUrl, readLookup, readWidgetConfig, type Lookup, type WidgetConfig } from './widget-config';

interface ParleyApi {
  open(): void;
  close(): void;
  identify(visitor: Visitor): void;
}
type QueuedCall = [keyof ParleyApi, ...unknown[]];

declare global {
  interface Window {
    Parley?: ParleyApi;
    ParleyQueue?: QueuedCall[] | { push(call: QueuedCall): void };
  }
}

/** Parley's own accent (brand-600) when the owner chose none. */
const PARLEY_COLOR = '#4f39f6';
const CHAT_ICON =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.75" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M21 12a8 8 0 0 1-11.8 7L4 20.5l1.5-4.6A8 8 0 1 1 21 12Z"/></svg>';

function element<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), props);
}

function whenIdle(run: () => void): void {
  const idle = () => (window.requestIdleCallback ? window.requestIdleCallback(run, { timeout: 3000 }) : setTimeout(run, 200));
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
}

async function lookUp(config: WidgetConfig): Promise<Lookup> {
  try {
    // Cross-origin and anonymous: the widget never sends the host page's cookies.
    const response = await fetch(lookupUrl(config), { credentials: 'omit' });
    return readLookup(response.status, await response.json().catch(() => null));
  } catch {
    return readLookup(0, null);
  }
}

function start(config: WidgetConfig): void {
  let lookup: Lookup | null = null;
  let visitor: Visitor | null = null;
  let frame: HTMLIFrameElement | null = null;
  let frameReady = false;
  let isOpen = false;
  let openWhenBuilt = false;

  const host = element('div');
  host.setAttribute('data-parley-widget', '');
  const root = host.attachShadow({ mode: 'open' });
  const panel = element('div', { className: 'panel', hidden: true, id: 'parley-panel' });
  const launcher = element('button', { type: 'button', className: 'launcher' });
  launcher.setAttribute('aria-expanded', 'false');
  launcher.setAttribute('aria-controls', panel.id);
  launcher.addEventListener('click', () => (isOpen ? close() : open()));

  function post(message: EmbedMessage): void {
    if (frame?.contentWindow && frameReady) frame.contentWindow.postMessage(message, config.origin);
  }

  function chatName(): string {
    return lookup?.status === 'ready' ? `Chat with ${lookup.name}` : 'Chat';
  }

  /** The chat's iframe, created once (hidden until the panel opens). */
  function ensureFrame(): void {
    if (frame || lookup?.status === 'refused') return;
    frame = element('iframe', { src: embedUrl(config), title: chatName() });
    panel.append(frame);
  }

  function build(result: Lookup): void {
    lookup = result;
    const { appearance } = result;
    const accent = appearance.primaryColor ?? PARLEY_COLOR;
    host.style.setProperty('--accent', accent);
    host.style.setProperty('--on-accent', textColorOn(accent));
    const side = appearance.position;
    launcher.classList.add(side);
    panel.classList.add(side);
    panel.setAttribute('role', 'dialog');
    panel.setAttribute('aria-label', chatName());
    if (appearance.launcherLabel) {
      launcher.innerHTML = CHAT_ICON;
      launcher.append(element('span', { textContent: appearance.launcherLabel }));
    } else {
      launcher.classList.add('icon');
      launcher.innerHTML = CHAT_ICON;
      launcher.setAttribute('aria-label', chatName());
    }
    if (result.status === 'refused') {
      const refusal = element('div', { className: 'refusal' });
      const dismiss = element('button', { type: 'button', textContent: 'Close' });
      dismiss.addEventListener('click', close);
      refusal.append(element('p', { textContent: result.message }), dismiss);
      panel.append(refusal);
    } else {
      whenIdle(ensureFrame);
    }
    root.append(element('style', { textContent: WIDGET_CSS }), panel, launcher);
    document.body.append(host);
    if (openWhenBuilt) open();
  }

  function open(): void {
    if (!lookup) {
      openWhenBuilt = true;
      return;
    }
    ensureFrame();
    isOpen = true;
    panel.hidden = false;
    launcher.setAttribute('aria-expanded', 'true');
    if (frame) {
      // A frame still loading is focused once its page says it is ready (below).
      if (frameReady) focusChat();
    } else {
      panel.querySelector('button')?.focus();
    }
  }

  /**
   * Moves the focus into the chat: the iframe, then (the embed page's side) its message field. Only
   * once the embed page is ready: an iframe focused while its cross-origin page was still loading
   * showed, now and then in Chromium, a focused field that no typed text reached (not even after a
   * click in it), as if the browser kept the keyboard on the host page.
   */
  function focusChat(): void {
    frame?.focus();
    post({ type: 'parley:open' });
  }

  function close(): void {
    openWhenBuilt = false;
    if (!isOpen) return;
    isOpen = false;
    panel.hidden = true;
    launcher.setAttribute('aria-expanded', 'false');
    launcher.focus();
  }

  function identify(value: unknown): void {
    visitor = readVisitor(value);
    if (visitor) post({ type: 'parley:identify', visitor });
  }

  window.addEventListener('message', (event) => {
    if (!isFromFrame(event, config.origin, frame?.contentWindow ?? null)) return;
    const message = readEmbedMessage(event.data);
    if (message?.type === 'parley:ready') {
      frameReady = true;
      if (visitor) post({ type: 'parley:identify', visitor });
      if (isOpen) focusChat();
    } else if (message?.type === 'parley:close') {
      close();
    }
  });
  // Esc while the focus is on the host page (the launcher, the refusal); inside the iframe the
  // embed page sends parley:close instead.
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && isOpen) close();
  });

  const api: ParleyApi = { open, close, identify };
  const run = ([method, ...args]: QueuedCall) => {
    if (method === 'open') open();
    else if (method === 'close') close();
    else if (method === 'identify') identify(args[0]);
  };
  const queued = Array.isArray(window.ParleyQueue) ? window.ParleyQueue : [];
  window.Parley = api;
  window.ParleyQueue = { push: run };
  queued.forEach(run);

  void lookUp(config).then(build);
}

// currentScript is the snippet's tag while it runs (deferred or not); the selector is the fallback
// for a snippet someone changed into a module script.
const script =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[data-chatbot][src*="widget.js"]');
const config = readWidgetConfig(script);
// Once per page, even if the snippet is pasted twice.
if (config && !window.Parley) start(config);
