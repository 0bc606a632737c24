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
 * preact/compat (docs/adr/0038-public-page-preact-compat.md), which has no such hoisting, and one way
 * for every screen keeps them alike. It sits with the page's shared helpers, which the dashboard may
 * import and the page's tests run on preact/compat.
 */
export function useDocumentTitle(screen?: string): void {
  useEffect(() => {
    document.title = documentTitle(screen);
  }, [screen]);
}
