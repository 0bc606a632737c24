// The page's unit tests run on the runtime the page is built with: React's API on preact/compat
// (ADR 38), and Testing Library renders with that same copy: a second runtime would break every hook.
import { render, screen } from '@testing-library/react';
import { options } from 'preact';
import { useState, version } from 'react';
import { version as domVersion } from 'react-dom';
import { describe, expect, it } from 'vitest';

function Counter() {
  const [count] = useState(41);
  return <p>{count + 1}</p>;
}

describe('the chat page’s React', () => {
  it('is preact/compat, the same copy for the page and Testing Library', () => {
    // preact/compat reports the React version it follows.
    expect(version).toMatch(/^18\./);
    expect(domVersion).toBe(version);
    const seen: string[] = [];
    const before = options.diffed;
    options.diffed = (vnode) => {
      if (typeof vnode.type === 'function') seen.push(vnode.type.name);
      before?.(vnode);
    };
    try {
      render(<Counter />);
    } finally {
      options.diffed = before;
    }
    expect(screen.getByText('42')).toBeTruthy();
    expect(seen).toContain('Counter');
  });
});
