// The leads' CSV is a REST download (GET /api/leads/export), not GraphQL: the server streams a file
// to save. Same origin, so only the bearer token and the chosen workspace are needed.
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';
import { leadExportPath, type LeadsFilter } from '../leads-filter';

export const LEAD_EXPORT_FAILED_MESSAGE = 'Could not download the leads. Please try again.';
export const LEAD_EXPORT_FILE = 'leads.csv';

/** A failed export, carrying the sentence to show. */
export class LeadExportError extends Error {}

// The gateway answers every REST failure as { message }, written for users.
async function messageOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { message?: unknown };
    return typeof body.message === 'string' && body.message.trim() ? body.message.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The export as a Blob, or a LeadExportError with the server's message. */
export async function fetchLeadExport(filter: LeadsFilter, token: string | null): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(leadExportPath(filter), {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...workspaceHeaders() },
    });
  } catch {
    throw new LeadExportError(LEAD_EXPORT_FAILED_MESSAGE);
  }
  if (!response.ok) throw new LeadExportError((await messageOf(response)) ?? LEAD_EXPORT_FAILED_MESSAGE);
  try {
    return await response.blob();
  } catch {
    throw new LeadExportError(LEAD_EXPORT_FAILED_MESSAGE);
  }
}
