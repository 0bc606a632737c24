// chat.html serves two addresses: the public page /chat/{uniqueId} and the widget's iframe
// /embed/{uniqueId}, which is the same chat with the embed page's few differences.
const CHAT_PATH = /^\/(chat|embed)\/([^/]+)\/?$/;

/** The chatbot's public id from /chat/{uniqueId} or /embed/{uniqueId} (a trailing slash allowed); "" when there is none. */
export function uniqueIdFromPath(pathname: string): string {
  const match = CHAT_PATH.exec(pathname);
  if (!match) return '';
  try {
    return decodeURIComponent(match[2]);
  } catch {
    return '';
  }
}

/** Whether the address is the widget's embed page. */
export function isEmbedPath(pathname: string): boolean {
  return CHAT_PATH.exec(pathname)?.[1] === 'embed';
}
