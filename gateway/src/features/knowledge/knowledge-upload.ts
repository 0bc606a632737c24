// Reads the file of a knowledge upload (multipart/form-data, exactly one file in the field `file`),
// refusing anything past MAX_UPLOAD_BYTES while it streams in (file-upload.ts). Which kind of
// document it is, and whether it can be read, the chatbot service decides from the content.
import type { Request } from 'express';
import { readFileUpload, type UploadedFile } from '../../http/file-upload.ts';
import { withoutControlCharacters } from '@parley/common/control-characters.ts';

export const KNOWLEDGE_FILE_FIELD = 'file';
// The chatbot service words these the same way (common13.md: the product contract).
export const FILE_REQUIRED = 'Choose a file to upload';
export const FILE_TOO_LARGE = 'File too large';
export const FILE_NOT_MULTIPART = 'The file must be sent as multipart/form-data';
export const ONE_FILE_ONLY = 'Upload one file at a time';

export async function readKnowledgeUpload(req: Request, maxBytes: number): Promise<UploadedFile> {
  const file = await readFileUpload(req, {
    field: KNOWLEDGE_FILE_FIELD,
    maxBytes,
    notMultipart: FILE_NOT_MULTIPART,
    required: FILE_REQUIRED,
    tooLarge: FILE_TOO_LARGE,
    oneFileOnly: ONE_FILE_ONLY,
  });
  // The name is only shown; a control character in it is no reason to refuse the file.
  return { name: withoutControlCharacters(file.name), content: file.content };
}
