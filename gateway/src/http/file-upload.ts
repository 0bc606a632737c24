// Reads the one file of a multipart/form-data upload into memory, refusing anything larger than the
// limit while it streams in, and any body that is cut short or malformed, with a clear 4xx and
// without ever letting a stream error reach the process. What the bytes are is decided by the
// service that stores them, from the content. Used by the picture and knowledge uploads.
import type { Request } from 'express';
import busboy from 'busboy';
import { invalid } from '@parley/common/rpc-errors.ts';
import { HttpError } from './errors.ts';

export const UPLOAD_INCOMPLETE = 'The upload was incomplete';

export interface UploadRules {
  /** The form field that carries the file. */
  field: string;
  maxBytes: number;
  /** 415 for a request that is not multipart, 400 for a multipart one without a boundary. */
  notMultipart: string;
  /** 400 when the field has no file, or an empty one. */
  required: string;
  /** 413 past maxBytes. */
  tooLarge: string;
  /** 400 for a second file in the field; without it, a second file is ignored. */
  oneFileOnly?: string;
}

export interface UploadedFile {
  /** As the browser sent it: only ever shown, never trusted. */
  name: string;
  content: Uint8Array;
}

export function readFileUpload(req: Request, rules: UploadRules): Promise<UploadedFile> {
  if (!req.is('multipart/form-data')) return Promise.reject(new HttpError(415, rules.notMultipart));
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // Browsers send a file name's UTF-8 bytes as they are.
        defParamCharset: 'utf8',
        // busboy signals the limit on reaching fileSize, not on passing it: one byte more lets a
        // file of exactly maxBytes through, as "at most" promises. One file more than allowed is
        // read only to be refused.
        limits: { files: rules.oneFileOnly ? 2 : 1, fileSize: rules.maxBytes + 1, fields: 10, parts: 20 },
      });
    } catch {
      // A multipart content type without a boundary.
      reject(invalid(rules.notMultipart));
      return;
    }
    let settled = false;
    let file: UploadedFile | undefined;
    let seen = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume(); // drain the rest so the connection can answer
      reject(err);
    };
    // A body cut short makes busboy emit on the parser AND on the file stream being read; an
    // 'error' without a listener would crash the process, so every stream gets one.
    const onStreamError = (err: Error) => fail(invalid(/^Unexpected end/.test(err.message) ? UPLOAD_INCOMPLETE : rules.notMultipart));
    parser.on('file', (name, stream, info) => {
      stream.on('error', onStreamError);
      if (name !== rules.field) {
        stream.resume();
        return;
      }
      if (seen) {
        stream.resume();
        if (rules.oneFileOnly) fail(invalid(rules.oneFileOnly));
        return;
      }
      seen = true;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new HttpError(413, rules.tooLarge)));
      stream.on('end', () => {
        if (!stream.truncated) file = { name: info.filename ?? '', content: Buffer.concat(chunks) };
      });
    });
    parser.on('error', onStreamError);
    parser.on('close', () => {
      if (settled) return;
      if (!file || file.content.length === 0) return fail(invalid(rules.required));
      settled = true;
      resolve(file);
    });
    // The client hung up mid-body: no one will read the answer, but it must not count as our fault.
    req.on('error', () => fail(invalid(UPLOAD_INCOMPLETE)));
    req.pipe(parser);
  });
}
