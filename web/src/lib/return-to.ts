// Where signing in or up goes afterwards: back to the page whose link sent the person there (an
// invitation), else the dashboard as always. It travels as `?next=/path` in the link. Only a path of
// this site is followed, never another origin.

export const DEFAULT_RETURN_PATH = '/dashboard';

/** Whether `path` stays on this site: one leading slash, no scheme or protocol-relative host. */
export function isSafeReturnPath(path: unknown): path is string {
  return typeof path === 'string' && path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

/** The page to go back to, from `?next=`; the dashboard otherwise. */
export function returnPathOf(location: { search: string }): string {
  const next = new URLSearchParams(location.search).get('next');
  return isSafeReturnPath(next) ? next : DEFAULT_RETURN_PATH;
}

/** `/login?next=/invitations/abc`: a link to a sign-in or sign-up page that comes back to `next`. */
export function withReturnTo(path: string, next: string): string {
  return next === DEFAULT_RETURN_PATH ? path : `${path}?${new URLSearchParams({ next }).toString()}`;
}
