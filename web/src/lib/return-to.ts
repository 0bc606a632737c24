// Where signing in or up goes afterwards: back to the page that sent the person there (an invitation
// link, a protected page), else the dashboard. It travels as `?next=/path` in a link, or as the
// router state the route guard leaves. Only a path of this site is followed, never another origin.

export const DEFAULT_RETURN_PATH = '/dashboard';

/** Whether `path` stays on this site: one leading slash, no scheme or protocol-relative host. */
export function isSafeReturnPath(path: unknown): path is string {
  return typeof path === 'string' && path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

/** The page to go back to, from `?next=` or the guard's `state.from`; the dashboard otherwise. */
export function returnPathOf(location: { search: string; state: unknown }): string {
  const next = new URLSearchParams(location.search).get('next');
  if (isSafeReturnPath(next)) return next;
  const state = location.state;
  if (state && typeof state === 'object' && 'from' in state && isSafeReturnPath((state as { from: unknown }).from)) {
    return (state as { from: string }).from;
  }
  return DEFAULT_RETURN_PATH;
}

/** `/login?next=/invitations/abc`: a link to a sign-in or sign-up page that comes back to `next`. */
export function withReturnTo(path: string, next: string): string {
  return next === DEFAULT_RETURN_PATH ? path : `${path}?${new URLSearchParams({ next }).toString()}`;
}
