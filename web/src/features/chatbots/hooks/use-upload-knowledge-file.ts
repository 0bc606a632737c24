import { useApolloClient } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { readToken } from '../../../lib/token-storage';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { ChatbotQuery } from '../graphql/chatbot-query';
import { knowledgeBaseFromRest } from './rest-knowledge-base';
import { uploadWithProgress } from './upload-with-progress';
import { writeKnowledgeBase } from './write-knowledge-base';

/** What the picker and the drop zone accept; the server decides the type by content all the same. */
export const KNOWLEDGE_FILE_ACCEPT = '.pdf,.docx,.txt,.md,.markdown,.html,.htm';
/** The server's default MAX_UPLOAD_BYTES (20 MB); checked here too so a large file is not sent for nothing. */
export const MAX_KNOWLEDGE_FILE_BYTES = 20 * 1024 * 1024;
export const FILE_TOO_LARGE_MESSAGE = 'File too large';
export const FILE_UPLOADED_MESSAGE = 'File uploaded — processing…';
export const UPLOAD_FILE_FAILED_MESSAGE = 'Failed to upload file';

function serverMessage(body: unknown): string | null {
  const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  return typeof message === 'string' && message.trim() ? message.trim() : null;
}

/**
 * Uploads a document to the knowledge base over REST (GraphQL has no file uploads), reporting the
 * percent sent. The answer (202) holds the new knowledge base with the entry processing; it goes
 * into the cache, and the page's polling follows the entry until it is ready or failed.
 */
export function useUploadKnowledgeFile(chatbotId: string) {
  const client = useApolloClient();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();
  const abort = useRef<AbortController | null>(null);

  useEffect(() => () => abort.current?.abort(), []);

  async function uploadFile(file: File): Promise<boolean> {
    if (abort.current) return false;
    success.clear();
    if (file.size > MAX_KNOWLEDGE_FILE_BYTES) {
      setError(FILE_TOO_LARGE_MESSAGE);
      return false;
    }
    setError(null);
    setProgress(0);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const form = new FormData();
      form.append('file', file);
      const { status, body } = await uploadWithProgress({
        url: `/api/chatbot/${encodeURIComponent(chatbotId)}/knowledge-base/files`,
        form,
        token: readToken(),
        onProgress: setProgress,
        signal: controller.signal,
      });
      if (status < 200 || status >= 300) {
        setError(serverMessage(body) ?? (status === 413 ? FILE_TOO_LARGE_MESSAGE : UPLOAD_FILE_FAILED_MESSAGE));
        return false;
      }
      const knowledgeBase = knowledgeBaseFromRest((body as { knowledgeBase?: unknown } | null)?.knowledgeBase);
      if (knowledgeBase) writeKnowledgeBase(client.cache, chatbotId, knowledgeBase);
      else await client.refetchQueries({ include: [ChatbotQuery] });
      success.show(FILE_UPLOADED_MESSAGE);
      return true;
    } catch {
      // An upload cancelled by leaving the page has nobody left to tell.
      if (!controller.signal.aborted) setError(UPLOAD_FILE_FAILED_MESSAGE);
      return false;
    } finally {
      if (abort.current === controller) abort.current = null;
      if (!controller.signal.aborted) setProgress(null);
    }
  }

  return { uploadFile, uploading: progress !== null, progress, error, success: success.message };
}
