import { renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { documentTitle, useDocumentTitle } from '../use-document-title';

describe('useDocumentTitle', () => {
  it('names the tab "{screen} — Parley" and follows the screen as it changes', () => {
    const { rerender } = renderHook(({ screen }) => useDocumentTitle(screen), { initialProps: { screen: 'Usage' } });
    expect(document.title).toBe('Usage — Parley');
    rerender({ screen: 'Acme Support' });
    expect(document.title).toBe('Acme Support — Parley');
  });

  it('is the site name alone while there is nothing to name', () => {
    expect(documentTitle(undefined)).toBe('Parley');
    expect(documentTitle('  ')).toBe('Parley');
    expect(documentTitle(' Sign in ')).toBe('Sign in — Parley');
  });
});
