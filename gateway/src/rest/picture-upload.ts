// Reads the one file of a profile-picture upload (multipart/form-data, field `profilePicture`) into
// memory, refusing anything larger than the limit while it streams in. What the bytes are is decided
// by the chatbot service, from the content.
import type { Request } from 'express';
import busboy from 'busboy';
import { formatBytes } from '@parley/common/bytes.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { HttpError } from '../errors.ts';

export const PICTURE_FIELD = 'profilePicture';
export const PICTURE_REQUIRED = 'Profile picture is required';
export const NOT_MULTIPART = 'Profile picture must be sent as multipart/form-data';
export const UPLOAD_INCOMPLETE = 'The upload was incomplete';

// The chatbot service words its own limit the same way.
export const pictureTooLarge = (maxBytes: number) => `Profile picture must be at most ${formatBytes(maxBytes)}`;

export function readPictureUpload(req: Request, maxBytes: number): Promise<Uint8Array> {
  if (!req.is('multipart/form-data')) return Promise.reject(new HttpError(415, NOT_MULTIPART));
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // busboy signals the limit on reaching fileSize, not on passing it: one byte more lets a
      // picture of exactly maxBytes through, as "at most" promises.
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1, fields: 10, parts: 20 } });
    } catch {
      // A multipart content type without a boundary.
      reject(invalid(NOT_MULTIPART));
      return;
    }
    let settled = false;
    let picture: Uint8Array | undefined;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume(); // drain the rest so the connection can answer
      reject(err);
    };
    // A body cut short makes busboy emit on the parser AND on the file stream being read; an
    // 'error' without a listener would crash the process, so every stream gets one.
    const onStreamError = (err: Error) => fail(invalid(/^Unexpected end/.test(err.message) ? UPLOAD_INCOMPLETE : NOT_MULTIPART));
    parser.on('file', (name, stream) => {
      stream.on('error', onStreamError);
      if (name !== PICTURE_FIELD || picture) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new HttpError(413, pictureTooLarge(maxBytes))));
      stream.on('end', () => {
        if (!stream.truncated) picture = Buffer.concat(chunks);
      });
    });
    parser.on('error', onStreamError);
    parser.on('close', () => {
      if (settled) return;
      if (!picture || picture.length === 0) return fail(invalid(PICTURE_REQUIRED));
      settled = true;
      resolve(picture);
    });
    // The client hung up mid-body: no one will read the answer, but it must not count as our fault.
    req.on('error', () => fail(invalid(UPLOAD_INCOMPLETE)));
    req.pipe(parser);
  });
}
