// The widget's public edge as pure rules (docs/product.md, The widget): which site a public call comes from, and which
// pages may frame the embed page.
import { describe, expect, it } from 'vitest';
import { siteHost, UNKNOWN_SITE } from '../rest.ts';
import { embedFrameAncestors, withFrameAncestors } from '../../../http/static.ts';

describe('siteHost', () => {
  const own = ['http://localhost:8080', 'http://parley.internal:3000'];

  it("is empty without an Origin (a navigation, a server) and for Parley's own origins", () => {
    expect(siteHost(undefined, own)).toBe('');
    expect(siteHost('', own)).toBe('');
    expect(siteHost('http://localhost:8080', own)).toBe('');
    // The request's own origin (behind another name) counts as much as the public URL's.
    expect(siteHost('http://parley.internal:3000', own)).toBe('');
    // Origins compare as origins, not as spellings.
    expect(siteHost('HTTP://LOCALHOST:8080', own)).toBe('');
  });

  it('treats a default port as no port on either side', () => {
    expect(siteHost('https://parley.example.com', ['https://parley.example.com:443'])).toBe('');
    expect(siteHost('https://parley.example.com:443', ['https://parley.example.com/'])).toBe('');
    expect(siteHost('http://parley.example.com:80', ['http://parley.example.com'])).toBe('');
  });

  it("is another site's host name, lower case and without its port, even on Parley's own host under another port or scheme", () => {
    expect(siteHost('https://Shop.Example.com', own)).toBe('shop.example.com');
    expect(siteHost('https://shop.example.com:8443', own)).toBe('shop.example.com');
    expect(siteHost('http://localhost:5173', own)).toBe('localhost');
    expect(siteHost('https://localhost:8080', own)).toBe('localhost');
    expect(siteHost('http://127.0.0.1:8080', own)).toBe('127.0.0.1');
    expect(siteHost('http://[::1]:8080', own)).toBe('[::1]');
  });

  it('reads a "null", malformed or non-web Origin as a site that no allowed domain can name', () => {
    for (const origin of [
      'null',
      'not a url',
      'http://',
      'file:///home/me/page.html',
      'chrome-extension://abcdefghijklmnop',
      'data:text/html,hi',
    ]) {
      expect([origin, siteHost(origin, own)]).toEqual([origin, UNKNOWN_SITE]);
    }
    // Never a host name an owner could list.
    expect(UNKNOWN_SITE).not.toMatch(/^[a-z0-9.-]+$/i);
  });
});

describe('embed page framing', () => {
  it('lists Parley and each allowed domain on any port over either scheme, anywhere for none, Parley only for no chatbot', () => {
    expect(embedFrameAncestors(['shop.example.com', 'localhost'])).toBe(
      "'self' http://shop.example.com:* https://shop.example.com:* http://localhost:* https://localhost:*",
    );
    expect(embedFrameAncestors(['127.0.0.1'])).toBe("'self' http://127.0.0.1:* https://127.0.0.1:*");
    expect(embedFrameAncestors([])).toBe('*');
    expect(embedFrameAncestors(null)).toBe("'self'");
  });

  it('never lets a stored value add a directive or a source of its own', () => {
    expect(embedFrameAncestors(["evil.example; script-src 'unsafe-inline'", 'a b', 'ok.example'])).toBe(
      "'self' http://ok.example:* https://ok.example:*",
    );
  });

  it('replaces only the frame-ancestors directive, or adds one', () => {
    const helmet = "default-src 'self';script-src 'self';frame-ancestors 'self';object-src 'none'";
    expect(withFrameAncestors(helmet, '*')).toBe("default-src 'self';script-src 'self';object-src 'none';frame-ancestors *");
    expect(withFrameAncestors("default-src 'self'", "'self'")).toBe("default-src 'self';frame-ancestors 'self'");
    expect(withFrameAncestors('', '*')).toBe('frame-ancestors *');
  });
});
