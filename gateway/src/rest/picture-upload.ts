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
    parser.on('file', (name, stream) => {
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
    parser.on('error', () => fail(invalid(NOT_MULTIPART)));
    parser.on('close', () => {
      if (settled) return;
      if (!picture || picture.length === 0) return fail(invalid(PICTURE_REQUIRED));
      settled = true;
      resolve(picture);
    });
    req.on('error', (err) => fail(err));
    req.pipe(parser);
  });
}
