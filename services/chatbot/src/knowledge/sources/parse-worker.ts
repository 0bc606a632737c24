// The parse of one uploaded file, in a worker thread that parse-file.ts starts for it and stops
// after it: the heap, the ArrayBuffers and the run time are capped there, so a hostile file ends
// this thread and never the service. What a parser library cannot read is a damaged file
// (SourceError, whose message the owner sees); any other error is a fault of ours.
import { parentPort, workerData } from 'node:worker_threads';
import { inflateRawSync } from 'node:zlib';
import { decodeText, detectFileType, type FileKind } from './detect-file-type.ts';
import { codePoints, normalizeText, oneLineTitle } from './normalize-text.ts';
import { FILE_ERRORS, SourceError } from './source-error.ts';

export interface ParsedFile {
  title: string;
  text: string;
}

export interface ParseRequest {
  parleyParseFile: true;
  content: Uint8Array;
  fileName: string;
  maxChars: number;
  memoryMb: number;
}

export type ParseReply = ({ ok: true } & ParsedFile) | { ok: false; message: string; sourceError: boolean };

export async function parseDocument(request: ParseRequest): Promise<ParsedFile> {
  const { content, fileName, maxChars } = request;
  const kind = await detectFileType(content, fileName);
  if (!kind) throw new SourceError(FILE_ERRORS.unsupported);
  const { title, text } = await read(kind, request);
  const normalized = normalizeText(text);
  if (!normalized) throw new SourceError(kind === 'pdf' ? FILE_ERRORS.scanned : FILE_ERRORS.noText);
  if (codePoints(normalized) > maxChars) throw new SourceError(FILE_ERRORS.tooLong(maxChars));
  return { title: oneLineTitle(title) || nameWithoutExtension(fileName), text: normalized };
}

// Parsers are loaded when a file needs them: a worker starts for every file.
async function read(kind: FileKind, { content, maxChars, memoryMb }: ParseRequest): Promise<ParsedFile> {
  switch (kind) {
    case 'pdf':
      return readPdf(content, maxChars);
    case 'docx':
      return readDocx(content, memoryMb);
    case 'html':
      return readHtml(decodeText(content)!);
    case 'markdown':
      return { title: markdownTitle(decodeText(content)!), text: decodeText(content)! };
    case 'text':
      return { title: '', text: decodeText(content)! };
  }
}

async function readHtml(html: string): Promise<ParsedFile> {
  const { extractMainContent } = await import('./extract-html.ts');
  try {
    return extractMainContent(html);
  } catch {
    throw new SourceError(FILE_ERRORS.damaged);
  }
}

/** Every page's text in order, a blank line between pages; stops as soon as the text is too long. */
async function readPdf(content: Uint8Array, maxChars: number): Promise<ParsedFile> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // Nothing fetched and no code generated: no font faces, no system fonts, no font, CMap or wasm data
  // URLs, no XFA forms (pdf.js 6 no longer evaluates PostScript functions as code at all).
  const task = pdfjs.getDocument({
    data: content,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    useWasm: false,
    enableXfa: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const pdf = await task.promise;
    const info = (await pdf.getMetadata().catch(() => null))?.info as { Title?: unknown } | undefined;
    const pages: string[] = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const { items } = await page.getTextContent();
      page.cleanup();
      const text = normalizeText(items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      if (!text) continue;
      chars += codePoints(text) + (pages.length ? 2 : 0);
      if (chars > maxChars) throw new SourceError(FILE_ERRORS.tooLong(maxChars));
      pages.push(text);
    }
    return { title: typeof info?.Title === 'string' ? info.Title : '', text: pages.join('\n\n') };
  } catch (error) {
    if (error instanceof SourceError) throw error;
    if ((error as Error)?.name === 'PasswordException') throw new SourceError(FILE_ERRORS.passwordProtected);
    throw new SourceError(FILE_ERRORS.damaged);
  } finally {
    await task.destroy();
  }
}

/**
 * A DOCX's text by mammoth. Its zip directory is read first: XML parts whose declared size does not
 * fit in the parse's memory (a zip bomb) are refused before anything is inflated; parts that lie
 * about their size are caught by the worker's memory limit.
 */
async function readDocx(content: Uint8Array, memoryMb: number): Promise<ParsedFile> {
  const entries = zipDirectory(content);
  const xmlBytes = entries.filter((e) => /\.(?:xml|rels)$/i.test(e.name)).reduce((sum, e) => sum + e.size, 0);
  if (xmlBytes > (memoryMb * 1024 * 1024) / 2) throw new SourceError(FILE_ERRORS.tooMuchMemory);
  const mammoth = (await import('mammoth')).default;
  let text: string;
  try {
    text = (await mammoth.extractRawText({ buffer: Buffer.from(content.buffer, content.byteOffset, content.byteLength) })).value;
  } catch {
    throw new SourceError(FILE_ERRORS.damaged);
  }
  return { title: await docxTitle(content, entries), text };
}

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeader: number;
}

/** The central directory of a zip file (not Zip64: a DOCX under the upload limit never needs it). */
function zipDirectory(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const damaged = () => new SourceError(FILE_ERRORS.damaged);
  // The end-of-directory record is in the last 22 bytes plus up to 64 KiB of comment.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw damaged();
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw damaged();
    const nameLength = view.getUint16(at + 28, true);
    entries.push({
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localHeader: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

/** docProps/core.xml's dc:title, or '' (the file's name is used then). */
async function docxTitle(bytes: Uint8Array, entries: ZipEntry[]): Promise<string> {
  const core = entries.find((e) => e.name === 'docProps/core.xml');
  if (!core || core.size > 1024 * 1024) return '';
  try {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const start = core.localHeader + 30 + view.getUint16(core.localHeader + 26, true) + view.getUint16(core.localHeader + 28, true);
    const raw = bytes.subarray(start, start + core.compressedSize);
    const xml = core.method === 8 ? inflateRawSync(raw, { maxOutputLength: core.size }) : raw;
    const { XMLParser } = await import('fast-xml-parser');
    const parsed = new XMLParser({ removeNSPrefix: true }).parse(new TextDecoder().decode(xml));
    const title = parsed?.coreProperties?.title;
    return typeof title === 'string' || typeof title === 'number' ? String(title) : '';
  } catch {
    return '';
  }
}

/** The first ATX heading ("# Title"), without its marks. */
function markdownTitle(text: string): string {
  return /^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/m.exec(text)?.[1] ?? '';
}

function nameWithoutExtension(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop()!.trim();
  return oneLineTitle(base.replace(/\.[^.]*$/, '') || base) || 'Untitled';
}

const request = workerData as ParseRequest | undefined;
if (parentPort && request?.parleyParseFile) {
  const port = parentPort;
  parseDocument(request).then(
    (parsed) => port.postMessage({ ok: true, ...parsed } satisfies ParseReply),
    (error: unknown) =>
      port.postMessage({
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        sourceError: error instanceof SourceError,
      } satisfies ParseReply),
  );
}
