import { describe, expect, it } from 'vitest';
import { embedUrl, isFromFrame, lookupUrl, NOT_AVAILABLE_MESSAGE, readLookup, readWidgetConfig } from '../widget-config';

function script(src: string, chatbot: string | null) {
  const tag = document.createElement('script');
  tag.src = src;
  if (chatbot !== null) tag.setAttribute('data-chatbot', chatbot);
  return tag;
}

describe('readWidgetConfig', () => {
  it("takes Parley's origin from the script's own address and the chatbot from data-chatbot", () => {
    const config = readWidgetConfig(script('https://parley.example:8443/widget.js?v=2', ' abc123 '));
    expect(config).toEqual({ origin: 'https://parley.example:8443', uniqueId: 'abc123' });
    expect(lookupUrl(config!)).toBe('https://parley.example:8443/api/chatbot/public/abc123');
    expect(embedUrl({ origin: 'http://localhost:8080', uniqueId: 'a b/c' })).toBe('http://localhost:8080/embed/a%20b%2Fc');
  });

  it('is null without a chatbot, without a script or for an address that is not http(s)', () => {
    expect(readWidgetConfig(script('https://parley.example/widget.js', null))).toBeNull();
    expect(readWidgetConfig(script('https://parley.example/widget.js', '  '))).toBeNull();
    expect(readWidgetConfig(null)).toBeNull();
    expect(readWidgetConfig({ src: 'data:text/javascript,1', getAttribute: () => 'abc' })).toBeNull();
  });
});

describe('readLookup', () => {
  it('reads the name and the appearance of a chatbot that may run here', () => {
    const lookup = readLookup(200, {
      name: 'Acme Support',
      appearance: { primaryColor: '#FF5500', position: 'left', launcherLabel: 'Ask us', hideBranding: true },
    });
    expect(lookup).toEqual({
      status: 'ready',
      name: 'Acme Support',
      appearance: { primaryColor: '#ff5500', position: 'left', launcherLabel: 'Ask us', hideBranding: true },
    });
  });

  it("turns 403 and 404 into the refusal the panel shows, the server's words first", () => {
    expect(readLookup(403, { message: 'This chatbot is not available on this website.' })).toMatchObject({
      status: 'refused',
      message: NOT_AVAILABLE_MESSAGE,
    });
    expect(readLookup(403, null)).toMatchObject({ status: 'refused', message: NOT_AVAILABLE_MESSAGE });
    expect(readLookup(404, { message: 'Chatbot not found or inactive' })).toMatchObject({
      status: 'refused',
      message: 'Chatbot not found or inactive',
    });
  });

  it("falls back to Parley's defaults when the lookup failed otherwise", () => {
    expect(readLookup(0, null)).toEqual({
      status: 'unknown',
      appearance: { primaryColor: null, position: 'right', launcherLabel: '', hideBranding: false },
    });
    expect(readLookup(502, { message: 'Bad gateway' }).status).toBe('unknown');
    expect(readLookup(200, { nope: true }).status).toBe('unknown');
  });
});

describe('isFromFrame', () => {
  it("accepts only the widget's own iframe on Parley's origin", () => {
    const frame = document.createElement('iframe');
    document.body.append(frame);
    const frameWindow = frame.contentWindow;
    expect(isFromFrame({ origin: 'https://parley.example', source: frameWindow }, 'https://parley.example', frameWindow)).toBe(true);
    expect(isFromFrame({ origin: 'https://evil.example', source: frameWindow }, 'https://parley.example', frameWindow)).toBe(false);
    expect(isFromFrame({ origin: 'https://parley.example', source: window }, 'https://parley.example', frameWindow)).toBe(false);
    expect(isFromFrame({ origin: 'https://parley.example', source: null }, 'https://parley.example', null)).toBe(false);
    frame.remove();
  });
});
