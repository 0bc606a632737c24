// fetch() cannot report upload progress; XMLHttpRequest can, so file uploads go through it.
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';

export interface UploadAnswer {
  status: number;
  /** The parsed JSON body, or null when the body is not JSON (a proxy's HTML error page). */
  body: unknown;
}

export interface UploadRequest {
  url: string;
  form: FormData;
  token: string | null;
  /** Whole percent sent, 0 to 100. */
  onProgress: (percent: number) => void;
  signal?: AbortSignal;
}

/** POSTs a multipart form and settles with the status and JSON body; rejects only when nothing came back. */
export function uploadWithProgress({ url, form, token, onProgress, signal }: UploadRequest): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    for (const [name, value] of Object.entries(workspaceHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(Math.min(100, Math.round((event.loaded / event.total) * 100)));
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText) as unknown;
      } catch {
        // Not JSON: the caller falls back to its own message.
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new Error('Network error'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
