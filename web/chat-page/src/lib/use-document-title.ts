import { useEffect } from 'react';

export const SITE_NAME = 'Parley';

/** "Usage — Parley"; the site's name alone when there is nothing to name yet. */
export function documentTitle(screen?: string): string {
  const name = screen?.trim();
  return name ? `${name} — ${SITE_NAME}` : SITE_NAME;
}

/**
 * Names the browser tab after the screen, e.g. useDocumentTitle('Usage') gives "Usage — Parley".
 * An effect on document.title rather than React 19's hoisted <title>: the public chat page runs on
 * React 18 (docs/adr/0021-public-page-react-18.md), and one way for every screen keeps them alike. It
 * sits with the page's shared helpers, which the dashboard may import and the page's tests run on React 18.
 */
export function useDocumentTitle(screen?: string): void {
  useEffect(() => {
    document.title = documentTitle(screen);
  }, [screen]);
}
