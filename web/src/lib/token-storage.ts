// The session token lives in localStorage under "token" (docs/product.md, Accounts and sessions). Storage can throw (private
// mode, disabled storage), and a broken storage must read as "signed out", not crash the app.
const TOKEN_KEY = 'token';

export function readToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function writeToken(token: string): void {
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Without storage the session simply does not survive a reload.
  }
}

export function clearToken(): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Nothing stored, nothing to clear.
  }
}
