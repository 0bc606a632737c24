/** The chatbot's public id from /chat/{uniqueId} (a trailing slash allowed); "" when there is none. */
export function uniqueIdFromPath(pathname: string): string {
  const match = /^\/chat\/([^/]+)\/?$/.exec(pathname);
  if (!match) return '';
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return '';
  }
}
