// "Add to Slack" (docs/adr/0064-channels-for-operators.md): REST on the same origin, as actions are.
// GET tells whether the operator configured a Slack app; POST starts the install and answers Slack's
// authorize page to send the browser to (the gateway sets the cookie that binds the install to it).
import { readToken } from '../../../lib/token-storage';
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';

export class SlackInstallError extends Error {}

const path = (chatbotId: string) => `/api/chatbot/${encodeURIComponent(chatbotId)}/channels/slack/install`;

async function call<T>(url: string, method: 'GET' | 'POST'): Promise<T> {
  const token = readToken();
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...workspaceHeaders() },
    });
  } catch {
    throw new SlackInstallError('Could not reach Parley. Please try again.');
  }
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const message = (body as { message?: unknown } | null)?.message;
    throw new SlackInstallError(typeof message === 'string' && res.status < 500 ? message : 'Something went wrong. Please try again.');
  }
  return body as T;
}

export const slackInstallAvailable = async (chatbotId: string) =>
  (await call<{ available?: unknown }>(path(chatbotId), 'GET')).available === true;

export const startSlackInstall = async (chatbotId: string) => (await call<{ authorizeUrl: string }>(path(chatbotId), 'POST')).authorizeUrl;
