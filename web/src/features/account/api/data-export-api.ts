// The owner's data export is a REST download (GET /api/user/export), not GraphQL: it is one JSON
// document to save as a file, not data for the page. Same origin, so only the bearer token (and the
// chosen workspace, as on every request) is needed.
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';

export const DATA_EXPORT_PATH = '/api/user/export';
export const DATA_EXPORT_FAILED_MESSAGE = 'Could not download your data. Please try again.';

/** A failed export, carrying the sentence to show the owner. */
export class DataExportError extends Error {}

// The gateway answers every REST failure as { message }, written for users.
async function messageOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { message?: unknown };
    return typeof body.message === 'string' && body.message.trim() ? body.message.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The export as the server wrote it (JSON text), or a DataExportError. */
export async function fetchDataExport(token: string | null): Promise<string> {
  let response: Response;
  try {
    response = await fetch(DATA_EXPORT_PATH, {
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...workspaceHeaders() },
    });
  } catch {
    throw new DataExportError(DATA_EXPORT_FAILED_MESSAGE);
  }
  if (!response.ok) throw new DataExportError((await messageOf(response)) ?? DATA_EXPORT_FAILED_MESSAGE);
  try {
    return await response.text();
  } catch {
    throw new DataExportError(DATA_EXPORT_FAILED_MESSAGE);
  }
}
