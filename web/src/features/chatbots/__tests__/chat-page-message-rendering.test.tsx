// The dashboard shows transcripts with the public chat page's message rendering
// (web/chat-page/src/components), on the dashboard's own React 19: the page runs the same files on
// preact/compat (ADR 38), and nothing of that runtime may reach the dashboard.
import { render, screen } from '@testing-library/react';
import { version } from 'react';
import { describe, expect, it } from 'vitest';
import { CitedAnswer } from '../../../../chat-page/src/components/citations/cited-answer';

describe('the chat page’s message rendering in the dashboard', () => {
  it('renders a Markdown answer with its citation badges on the dashboard’s React 19', async () => {
    expect(version).toMatch(/^19\./);
    const { container } = render(
      <CitedAnswer
        content={'# Hours\n\nWe open at **nine** [1].\n\n- Monday\n- Tuesday\n\nSee [our site](https://example.com).'}
        sources={[{ entryId: 'e1', title: 'Opening hours' }]}
      />,
    );
    expect((await screen.findByText('nine')).tagName).toBe('STRONG');
    expect(container.querySelector('h3')?.textContent).toBe('Hours');
    expect(container.querySelectorAll('ul li')).toHaveLength(2);
    expect(screen.getByRole('link', { name: 'our site' }).getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(container.querySelector('sup[data-citation="1"]')?.getAttribute('title')).toBe('Opening hours');
  });
});
