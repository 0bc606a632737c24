import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { looksLikeMarkdown } from '../looks-like-markdown';
import { MarkdownMessage } from '../markdown-message';

describe('MarkdownMessage', () => {
  it('shows raw HTML, inline or as a block, as the text it is', () => {
    const { container } = render(
      <MarkdownMessage
        content={'Hi <img src=x onerror=alert(1)> <b>bold?</b>\n\n<div onclick="steal()">block</div>\n\n<script>alert(1)</script>'}
      />,
    );
    expect(container.querySelector('img, b, div, script')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(container.textContent).toContain('<div onclick="steal()">block</div>');
    expect(container.textContent).toContain('<script>alert(1)</script>');
  });

  it('opens safe links in a new tab without an opener, keeps unsafe ones as text and images as links', () => {
    const { container } = render(
      <MarkdownMessage
        content={'[guide](https://example.com/guide) [bad](javascript:alert(1)) [rel](/dashboard) ![pixel](https://evil.example/p.png)'}
      />,
    );
    const guide = screen.getByRole('link', { name: 'guide' });
    expect(guide.getAttribute('target')).toBe('_blank');
    expect(guide.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(screen.getByText('bad').closest('a')).toBeNull();
    expect(screen.getByText('rel').closest('a')).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByRole('link', { name: 'pixel' }).getAttribute('href')).toBe('https://evil.example/p.png');
  });

  it('renders Markdown structure', () => {
    const { container } = render(<MarkdownMessage content={'# Title\n\n**bold** and `code`\n\n- one\n- two\n\n1. first'} />);
    expect(container.querySelector('h3')?.textContent).toBe('Title');
    expect(screen.getByText('bold').tagName).toBe('STRONG');
    expect(screen.getByText('code').tagName).toBe('CODE');
    expect(container.querySelectorAll('ul li')).toHaveLength(2);
    expect(container.querySelectorAll('ol li')).toHaveLength(1);
  });

  it('hands prose to renderText, never code or a link text', () => {
    const seen: string[] = [];
    render(
      <MarkdownMessage
        content={'Open [1] **now [2]** `[3]` [link [4]](https://example.com)'}
        renderText={(text) => {
          seen.push(text);
          return text.toUpperCase();
        }}
      />,
    );
    expect(seen.join('|')).toContain('now [2]');
    expect(seen.join('|')).not.toContain('[3]');
    expect(seen.join('|')).not.toContain('[4]');
    expect(screen.getByText('NOW [2]').tagName).toBe('STRONG');
    expect(screen.getByRole('link').textContent).toBe('link [4]');
  });
});

describe('looksLikeMarkdown', () => {
  it.each([
    'We open at **9am**.',
    'Use `npm test`.',
    '# Hours',
    '- Monday\n- Tuesday',
    '1. First step',
    'See [our site](https://example.com).',
    'Visit https://example.com for more.',
    '> quoted',
    '| a | b |',
    'Tom &amp; Jerry',
    'a <b>tag</b>',
    'Title\n===',
    '    indented code',
  ])('%j needs the renderer', (text) => {
    expect(looksLikeMarkdown(text)).toBe(true);
  });

  it.each([
    'We open at 9am on weekdays.',
    'Returns take 30 days [1][2].',
    'Hello!\n\nHow can I help you today?',
    'It costs 5.00 dollars, 2 items.',
  ])('%j is plain text', (text) => {
    expect(looksLikeMarkdown(text)).toBe(false);
  });
});
