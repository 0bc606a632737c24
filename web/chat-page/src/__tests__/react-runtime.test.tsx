// The page's unit tests run on the React the page is built with (this package's React 18, ADR 21),
// and Testing Library renders with that same copy: a second React would break every hook.
import { render, screen } from '@testing-library/react';
import { useState, version } from 'react';
import { version as domVersion } from 'react-dom';
import { describe, expect, it } from 'vitest';

function Counter() {
  const [count] = useState(41);
  return <p>{count + 1}</p>;
}

describe('the chat page’s React', () => {
  it('is React 18, the same copy for the page and Testing Library', () => {
    expect(version).toMatch(/^18\./);
    expect(domVersion).toBe(version);
    render(<Counter />);
    expect(screen.getByText('42')).toBeTruthy();
  });
});
