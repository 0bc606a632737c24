// What kind of document an uploaded file is, decided by its bytes: a PNG renamed .pdf is not a PDF,
// and no name makes binary data text. The name only tells Markdown from plain text. file-type (and
// the tokenizer packages it brings, ≈ 40 modules) is loaded at the first file detected, not at the
// service's start (docs/adr/0068-memory-at-rest.md).

export type FileKind = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

// After an optional XML declaration, comments and whitespace, an HTML document opens with one of these.
const HTML_START = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]/i;
const SVG_START = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+svg|svg)[\s>]/i;
const HEAD_CHARS = 4096;

/** file-type reads signatures (and a DOCX's zip directory), so it returns quickly even for hostile files. */
export async function detectFileType(content: Uint8Array, fileName: string): Promise<FileKind | null> {
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(content);
  if (found?.ext === 'pdf') return 'pdf';
  if (found?.ext === 'docx') return 'docx';
  // Any other signature is binary (images, archives, other office files); XHTML is the one XML we read.
  if (found && found.ext !== 'xml') return null;
  const text = decodeText(content);
  if (text === null) return null;
  const head = text.slice(0, HEAD_CHARS);
  if (HTML_START.test(head)) return 'html';
  if (found || SVG_START.test(head)) return null;
  return /\.(?:md|markdown)$/i.test(fileName.trim()) ? 'markdown' : 'text';
}

/**
 * The text of a text-like file: UTF-8 (with or without its byte order mark), or UTF-16 when it
 * starts with one; null when the bytes are not valid in that encoding or hold a NUL byte.
 */
export function decodeText(content: Uint8Array): string | null {
  const encoding =
    content[0] === 0xff && content[1] === 0xfe ? 'utf-16le' : content[0] === 0xfe && content[1] === 0xff ? 'utf-16be' : 'utf-8';
  let text: string;
  try {
    // The decoder drops the byte order mark itself.
    text = new TextDecoder(encoding, { fatal: true }).decode(content);
  } catch {
    return null;
  }
  return text.includes('\u0000') ? null : text;
}
