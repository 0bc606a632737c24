/**
 * Sends the browser to another page (a checkout), leaving the app. Its own module so tests can
 * replace it: jsdom cannot navigate, and window.location cannot be spied on.
 */
export function redirectTo(url: string): void {
  window.location.assign(url);
}
