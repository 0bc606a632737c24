// The conversations export is a REST download (GET /api/chatbot/{id}/conversations/export), not
// GraphQL: the server streams a file to save, not data for the page. Same origin, so only the bearer
// token and the chosen workspace are needed.
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';

export type ExportFormat = 'csv' | 'jsonl';

export const EXPORT_FAILED_MESSAGE = 'Could not download the conversations. Please try again.';

/** A failed export, carrying the sentence to show the owner. */
export class ConversationExportError extends Error {}

export function conversationExportPath(chatbotId: string, format: ExportFormat): string {
  return `/api/chatbot/${encodeURIComponent(chatbotId)}/conversations/export?format=${format}`;
}

/** The chatbot's name as a file name: "Support Bot!" → "support-bot"; "chatbot" when nothing is left. */
export function fileNameSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'chatbot';
}

/** The name the server gave the file (Content-Disposition), else `<slug>-conversations.<format>`. */
export function exportFileName(contentDisposition: string | null, chatbotName: string, format: ExportFormat): string {
  const encoded = contentDisposition?.match(/filename\*\s*=\s*UTF-8''([^;]+)/i)?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded.trim());
    } catch {
      // An undecodable name falls through to the plain one.
    }
  }
  const plain = contentDisposition?.match(/filename\s*=\s*"([^"]+)"/i)?.[1] ?? contentDisposition?.match(/filename\s*=\s*([^;\s]+)/i)?.[1];
  return plain?.trim() || `${fileNameSlug(chatbotName)}-conversations.${format}`;
}

// The gateway answers every REST failure as { message }, written for users.
async function messageOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { message?: unknown };
    return typeof body.message === 'string' && body.message.trim() ? body.message.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The export as a Blob with the name to save it under, or a ConversationExportError. */
export async function fetchConversationExport(
  chatbotId: string,
  chatbotName: string,
  format: ExportFormat,
  token: string | null,
): Promise<{ blob: Blob; fileName: string }> {
  let response: Response;
  try {
    response = await fetch(conversationExportPath(chatbotId, format), {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...workspaceHeaders() },
    });
  } catch {
    throw new ConversationExportError(EXPORT_FAILED_MESSAGE);
  }
  if (!response.ok) throw new ConversationExportError((await messageOf(response)) ?? EXPORT_FAILED_MESSAGE);
  try {
    const blob = await response.blob();
    return { blob, fileName: exportFileName(response.headers.get('content-disposition'), chatbotName, format) };
  } catch {
    throw new ConversationExportError(EXPORT_FAILED_MESSAGE);
  }
}
