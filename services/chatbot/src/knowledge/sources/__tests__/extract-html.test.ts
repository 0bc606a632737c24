import { describe, expect, it } from 'vitest';
import { extractMainContent } from '../extract-html.ts';

const article = 'Our shop delivers within two days to any address in the country, and returns are free for thirty days. ';

const page = `<!doctype html>
<html><head><title>Delivery | Example Shop</title><style>p { color: red }</style></head>
<body>
  <header><a href="/">Example Shop</a><nav><ul><li><a href="/shop">Shop menu</a></li><li><a href="/about#team">About us</a></li></ul></nav></header>
  <main><article>
    <h1>Delivery and returns</h1>
    <p>${article.repeat(4)}</p>
    <p>Parcels are tracked<br>from our warehouse.</p>
    <ul><li>Standard: free</li><li>Express: 5 euros</li></ul>
    <script>document.write('tracking code')</script>
  </article></main>
  <footer><p>Copyright Example Shop</p><a href="https://other.example/privacy">Privacy</a></footer>
</body></html>`;

describe('extractMainContent', () => {
  it('keeps the article and drops menus, footer and scripts', () => {
    const { title, text } = extractMainContent(page, 'https://shop.example/help/delivery');
    expect(title).toBe('Delivery | Example Shop');
    expect(text).toContain('Delivery and returns');
    expect(text).toContain(article.trim());
    expect(text).toContain('Parcels are tracked\nfrom our warehouse.');
    expect(text).toContain('Standard: free\nExpress: 5 euros');
    for (const furniture of ['Shop menu', 'About us', 'Copyright', 'Privacy', 'tracking code', 'color: red'])
      expect(text).not.toContain(furniture);
  });

  it('lists every absolute http(s) link of the page, resolved, without fragments, once each', () => {
    const html = `<html><body>
      <a href="/a">A</a> <a href="/a#top">A again</a> <a href="b?x=1">B</a> <a href="../c">C</a>
      <a href="https://other.example/d">D</a> <a href="mailto:me@example.com">mail</a> <a href="javascript:alert(1)">js</a>
      <a href="#section">same page</a> <a href="">empty</a> <a>no href</a> <a href="http://[bad">bad</a>
      <map><area href="/e"></map></body></html>`;
    expect(extractMainContent(html, 'https://shop.example/help/page.html').links).toEqual([
      'https://shop.example/a',
      'https://shop.example/help/b?x=1',
      'https://shop.example/c',
      'https://other.example/d',
      'https://shop.example/help/page.html',
      'https://shop.example/e',
    ]);
  });

  it("resolves links against the page's <base>, and keeps only absolute ones without a page address", () => {
    const html = '<html><head><base href="https://cdn.example/docs/"></head><body><a href="guide">G</a></body></html>';
    expect(extractMainContent(html, 'https://shop.example/').links).toEqual(['https://cdn.example/docs/guide']);
    expect(extractMainContent('<p><a href="/x">x</a> <a href="https://a.example/">a</a></p>').links).toEqual(['https://a.example/']);
  });

  it('reads fragments and pages without an <html> element', () => {
    expect(extractMainContent('<p>Hello <b>there</b></p><p>Second</p>')).toMatchObject({ title: '', text: 'Hello there\n\nSecond' });
    expect(extractMainContent('<!doctype html><title>Short</title><p>Just this.</p>')).toMatchObject({
      title: 'Short',
      text: 'Just this.',
    });
    expect(extractMainContent('')).toEqual({ title: '', text: '', links: [] });
  });

  it('falls back to the body text, without furniture, past what Readability can take', () => {
    const nested = (inner: string) => `${'<div>'.repeat(120)}${inner}${'</div>'.repeat(120)}`;
    const html = `<html><head><title>Deep</title></head><body><nav role="navigation">Menu</nav>${nested('<p>Only a line</p>')}
      <footer>Footer</footer><div role="contentinfo">Legal</div><aside>Ads</aside><script>code()</script></body></html>`;
    expect(extractMainContent(html)).toMatchObject({ title: 'Deep', text: 'Only a line' });
  });

  it('keeps preformatted text as it is written, and table cells apart', () => {
    const html = `<html><body><article><p>${article}</p><pre>line one\n  line two</pre>
      <table><tr><th>Size</th><th>Price</th></tr><tr><td>S</td><td>10</td></tr></table></article></body></html>`;
    const { text } = extractMainContent(html);
    expect(text).toContain('line one\nline two');
    expect(text).toContain('Size Price\nS 10');
  });

  it('survives hostile markup in bounded time: deep nesting and a huge flat page', () => {
    let started = performance.now();
    const deep = extractMainContent(`<html><body>${'<div>'.repeat(20_000)}deep text${'</div>'.repeat(20_000)}</body></html>`);
    expect(deep.text).toBe('deep text');
    const deepMs = performance.now() - started;

    started = performance.now();
    const flat = `<html><body>${'<p>word <a href="/p">link</a></p>'.repeat(30_000)}</body></html>`; // about 1 MB
    const { text, links } = extractMainContent(flat, 'https://shop.example/');
    const flatMs = performance.now() - started;
    expect(text.startsWith('word link')).toBe(true);
    expect(links).toEqual(['https://shop.example/p']);
    // Bounded by the test's timeout; the figures printed are the measure (a test asserts no time).
    console.log(`20,000-deep nesting: ${deepMs.toFixed(0)} ms; ${(flat.length / 1e6).toFixed(1)} MB flat page: ${flatMs.toFixed(0)} ms`);
  });
});
