// Reads the one file of a profile-picture upload (multipart/form-data, field `profilePicture`),
// refusing anything larger than the limit while it streams in (file-upload.ts). What the bytes are
// is decided by the chatbot service, from the content.
import type { Request } from 'express';
import { formatBytes } from '@parley/common/bytes.ts';
import { readFileUpload } from '../../http/file-upload.ts';

export const PICTURE_FIELD = 'profilePicture';
export const PICTURE_REQUIRED = 'Profile picture is required';
export const NOT_MULTIPART = 'Profile picture must be sent as multipart/form-data';

// The chatbot service words its own limit the same way.
export const pictureTooLarge = (maxBytes: number) => `Profile picture must be at most ${formatBytes(maxBytes)}`;

export async function readPictureUpload(req: Request, maxBytes: number): Promise<Uint8Array> {
  const { content } = await readFileUpload(req, {
    field: PICTURE_FIELD,
    maxBytes,
    notMultipart: NOT_MULTIPART,
    required: PICTURE_REQUIRED,
    tooLarge: pictureTooLarge(maxBytes),
  });
  return content;
}
