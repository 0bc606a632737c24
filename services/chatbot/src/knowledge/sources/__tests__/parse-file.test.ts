// Real files through the real worker: PDFs and DOCX made here with pdf-lib and docx, an encrypted
// PDF made with qpdf (fixtures/), and hostile files (renamed images, truncated PDFs, random bytes,
// zip and deflate bombs) that must end with the owner's message, quickly, and leave the process well.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { constants, createDeflateRaw, crc32 } from 'node:zlib';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { detectFileType } from '../detect-file-type.ts';
import { parseFile } from '../parse-file.ts';

const bounds = { timeoutMs: 20_000, memoryMb: 128, maxChars: 2_000_000 };
const utf8 = (text: string) => new TextEncoder().encode(text);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`fixtures/${name}`, import.meta.url)));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'parsed',
    (error: Error) => error.message,
  );

async function pdf(pages: string[][], title?: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage();
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 750 - i * 16, size: 11, font }));
  }
  return doc.save();
}

async function docx(paragraphs: string[], title?: string): Promise<Uint8Array> {
  const doc = new Document({ title, sections: [{ children: paragraphs.map((p) => new Paragraph({ children: [new TextRun(p)] })) }] });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** Bytes that look random but are the same on every run. */
function noise(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = 0, seed = 'parley'; at < length; at += 32) {
    seed = createHash('sha256').update(seed).digest('hex');
    out.set(Buffer.from(seed, 'hex').subarray(0, Math.min(32, length - at)), at);
  }
  return out;
}

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/**
 * Raw deflate of `mib` MiB of zeros, about 1 KiB per MiB, built without compressing it all: after a
 * sync flush, deflate's output for the next MiB of zeros is the same bytes every time.
 */
async function deflatedZeros(mib: number): Promise<{ data: Buffer; crc: number }> {
  const deflate = createDeflateRaw({ level: 9 });
  const zeros = Buffer.alloc(1024 * 1024);
  const flushed = () =>
    new Promise<Buffer>((resolve) => {
      const parts: Buffer[] = [];
      const onData = (part: Buffer) => parts.push(part);
      deflate.on('data', onData);
      deflate.write(zeros);
      deflate.flush(constants.Z_SYNC_FLUSH, () => {
        deflate.off('data', onData);
        resolve(Buffer.concat(parts));
      });
    });
  const first = await flushed();
  const next = await flushed();
  deflate.destroy();
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = crc32(zeros, crc);
  // The final block: fixed Huffman codes, end of block at once.
  return { data: Buffer.concat([first, ...Array<Buffer>(mib - 1).fill(next), Buffer.from([0x03, 0x00])]), crc };
}

interface ZipPart {
  name: string;
  data: Buffer;
  method: 0 | 8;
  size: number;
  crc: number;
}

/** A zip archive of ready-made parts; `declaredSize` overrides the sizes written in the headers. */
function zip(parts: ZipPart[], declaredSize?: (part: ZipPart) => number): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const size = declaredSize?.(part) ?? part.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(part.method, 8);
    local.writeUInt32LE(part.crc >>> 0, 14);
    local.writeUInt32LE(part.data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(part.method, 10);
    central.writeUInt32LE(part.crc >>> 0, 16);
    central.writeUInt32LE(part.data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, part.data);
    centrals.push(central, name);
    offset += local.length + name.length + part.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const stored = (name: string, text: string): ZipPart => {
  const data = Buffer.from(text);
  return { name, data, method: 0, size: data.length, crc: crc32(data) };
};

/** A DOCX whose word/document.xml inflates to 1 GiB of zeros (about 1 MB on disk). */
async function docxBomb(declaredSize?: number): Promise<Buffer> {
  const { data, crc } = await deflatedZeros(1024);
  const document: ZipPart = { name: 'word/document.xml', data, method: 8, size: 1024 ** 3, crc };
  const parts = [
    stored(
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    stored(
      '_rels/.rels',
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    document,
  ];
  return zip(parts, (part) => (part === document && declaredSize !== undefined ? declaredSize : part.size));
}

/** A one-page PDF whose content stream inflates to `mib` MiB of zeros (PDF whitespace). */
async function pdfBomb(mib: number): Promise<Uint8Array> {
  const { data } = await deflatedZeros(mib);
  // FlateDecode is zlib: a two-byte header before the raw deflate data (the checksum is not needed to read).
  const stream = Buffer.concat([Buffer.from([0x78, 0x9c]), data]);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>',
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = chunks[0].length;
  const add = (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    add(Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`));
  });
  offsets.push(length);
  add(Buffer.from(`4 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`));
  add(stream);
  add(Buffer.from('\nendstream\nendobj\n'));
  const xref = length;
  add(Buffer.from(`xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`));
  add(Buffer.from(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`));
  return new Uint8Array(Buffer.concat(chunks));
}

describe('detectFileType', () => {
  it('goes by content, not by name', async () => {
    expect(await detectFileType(await pdf([['Hello']]), 'notes.txt')).toBe('pdf');
    expect(await detectFileType(await docx(['Hello']), 'report.pdf')).toBe('docx');
    expect(await detectFileType(PNG, 'picture.pdf')).toBeNull();
    expect(await detectFileType(noise(4096), 'notes.txt')).toBeNull();
    expect(await detectFileType(zip([stored('a.txt', 'hello')]), 'archive.docx')).toBeNull();
  });

  it('tells HTML, Markdown and text apart', async () => {
    expect(await detectFileType(utf8('\n<!DOCTYPE html><html><body>Hi</body></html>'), 'page.txt')).toBe('html');
    expect(await detectFileType(utf8('<!-- saved --><html lang="en"><p>Hi</p></html>'), 'page')).toBe('html');
    expect(await detectFileType(utf8('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"></html>'), 'a.xhtml')).toBe('html');
    expect(await detectFileType(utf8('# Notes\n\nUse <html> tags.'), 'notes.md')).toBe('markdown');
    expect(await detectFileType(utf8('# Notes'), 'NOTES.MARKDOWN')).toBe('markdown');
    expect(await detectFileType(utf8('# Notes'), 'notes.txt')).toBe('text');
    expect(await detectFileType(utf8('\ufeffWith a byte order mark'), 'bom.txt')).toBe('text');
    expect(await detectFileType(new Uint8Array([0xff, 0xfe, ...Buffer.from('Hi', 'utf16le')]), 'utf16.txt')).toBe('text');
  });

  it('refuses text that is not valid UTF-8, holds NUL bytes, or is other markup', async () => {
    expect(await detectFileType(new Uint8Array([0x48, 0x69, 0xff, 0x21]), 'latin1.txt')).toBeNull();
    expect(await detectFileType(utf8('Hi\u0000there'), 'nul.txt')).toBeNull();
    expect(await detectFileType(utf8('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), 'logo.md')).toBeNull();
    expect(await detectFileType(utf8('<?xml version="1.0"?><feed></feed>'), 'feed.txt')).toBeNull();
  });
});

describe('parseFile', () => {
  it('reads a PDF: its title and its text', async () => {
    const file = await pdf([['Opening hours', 'Monday to Friday,   9 to 5']], 'Shop guide');
    expect(await parseFile(file, 'guide.pdf', bounds)).toEqual({ title: 'Shop guide', text: 'Opening hours\nMonday to Friday, 9 to 5' });
  });

  it('names an untitled PDF after its file', async () => {
    expect(await parseFile(await pdf([['Hello']]), 'C:\\Users\\me\\price list.v2.pdf', bounds)).toEqual({
      title: 'price list.v2',
      text: 'Hello',
    });
  });

  it('reads a 100-page PDF in page order, pages separated by blank lines', async () => {
    const pages = Array.from({ length: 100 }, (_, p) =>
      Array.from({ length: 40 }, (_, l) => `Page ${p + 1} line ${l + 1}: the quick brown fox`),
    );
    const file = await pdf(pages);
    const started = performance.now();
    const { text } = await parseFile(file, 'book.pdf', bounds);
    const ms = performance.now() - started;
    console.log(`100-page PDF (${(file.length / 1024).toFixed(0)} KiB, 4,000 lines) parsed in ${ms.toFixed(0)} ms`);
    const paragraphs = text.split('\n\n');
    expect(paragraphs).toHaveLength(100);
    paragraphs.forEach((page, p) => expect(page.split('\n')[0]).toBe(`Page ${p + 1} line 1: the quick brown fox`));
  });

  it('refuses a password-protected PDF', async () => {
    expect(await failure(parseFile(fixture('password-protected.pdf'), 'secret.pdf', bounds))).toBe('This PDF is password-protected');
  });

  it('finds no text in a scanned PDF (a page with only a drawing)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawRectangle({ x: 50, y: 50, width: 300, height: 400, color: rgb(0.2, 0.2, 0.2) });
    expect(await failure(parseFile(await doc.save(), 'scan.pdf', bounds))).toBe('No text found — is it a scanned image?');
  });

  it('calls a truncated PDF damaged', async () => {
    const file = await pdf([['Hello'], ['World']]);
    expect(await failure(parseFile(file.slice(0, Math.floor(file.length / 2)), 'cut.pdf', bounds))).toBe(
      'This file could not be read — is it damaged?',
    );
  });

  it('refuses binary files whatever their name', async () => {
    expect(await failure(parseFile(PNG, 'photo.pdf', bounds))).toBe('Unsupported file type');
    expect(await failure(parseFile(noise(64 * 1024), 'notes.txt', bounds))).toBe('Unsupported file type');
  });

  it('reads a DOCX: its title and its paragraphs', async () => {
    const file = await docx(['Returns are free within 30 days.', 'Keep the receipt.'], 'Returns policy');
    expect(await parseFile(file, 'returns.docx', bounds)).toEqual({
      title: 'Returns policy',
      text: 'Returns are free within 30 days.\n\nKeep the receipt.',
    });
    expect((await parseFile(await docx(['Hi']), 'notes.docx', bounds)).title).toBe('notes');
  });

  it('refuses a DOCX zip bomb (1 GiB document.xml) at once, by its declared size', async () => {
    const bomb = await docxBomb();
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const started = performance.now();
    expect(await failure(parseFile(bomb, 'bomb.docx', bounds))).toBe('This file needs too much memory to read');
    expect(performance.now() - started).toBeLessThan(5_000);
    // The process is fine and parses the next file.
    expect((await parseFile(utf8('still here'), 'next.txt', bounds)).text).toBe('still here');
  });

  it('stops a DOCX zip bomb that lies about its size at the memory limit', async () => {
    const bomb = await docxBomb(4096);
    const started = performance.now();
    expect(await failure(parseFile(bomb, 'liar.docx', { ...bounds, memoryMb: 64 }))).toBe('This file needs too much memory to read');
    console.log(`DOCX bomb with a false size stopped in ${(performance.now() - started).toFixed(0)} ms`);
    expect(process.memoryUsage().rss).toBeLessThan(1024 ** 3);
    expect((await parseFile(utf8('still here'), 'next.txt', bounds)).text).toBe('still here');
  });

  it('stops a PDF whose page inflates to 1 GiB at the memory limit', async () => {
    const started = performance.now();
    expect(await failure(parseFile(await pdfBomb(1024), 'bomb.pdf', { ...bounds, memoryMb: 64 }))).toBe(
      'This file needs too much memory to read',
    );
    console.log(`PDF deflate bomb stopped in ${(performance.now() - started).toFixed(0)} ms`);
  });

  it('stops a parse that takes longer than the time limit', async () => {
    const file = await pdf(Array.from({ length: 100 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p + 1} line ${l + 1}`)));
    expect(await failure(parseFile(file, 'slow.pdf', { ...bounds, timeoutMs: 100 }))).toBe('This file took too long to read');
  });

  it('reads Markdown as it is, titled by its first heading, newlines and spaces normalised', async () => {
    const file = utf8('\ufeffIntro line\r\n\r\n\r\n\r\n## Opening   hours ##\r\nMonday\u0007 to Friday\t\r\n');
    expect(await parseFile(file, 'hours.md', bounds)).toEqual({
      title: 'Opening hours',
      text: 'Intro line\n\n## Opening hours ##\nMonday to Friday',
    });
  });

  it('reads plain text (UTF-16 too), titled by the file name', async () => {
    const file = new Uint8Array([0xff, 0xfe, ...Buffer.from('Grüße aus Köln', 'utf16le')]);
    expect(await parseFile(file, 'greeting.txt', bounds)).toEqual({ title: 'greeting', text: 'Grüße aus Köln' });
  });

  it('reads an HTML file without its menus and footer', async () => {
    const html = `<!doctype html><html><head><title>Delivery</title></head><body>
      <nav><a href="/">Home</a> <a href="/shop">Shop menu</a></nav>
      <article><h1>Delivery</h1><p>${'We deliver within two days across the country. '.repeat(12)}</p></article>
      <footer>Copyright Example Shop</footer></body></html>`;
    const { title, text } = await parseFile(utf8(html), 'delivery.html', bounds);
    expect(title).toBe('Delivery');
    expect(text).toContain('We deliver within two days');
    expect(text).not.toContain('Shop menu');
    expect(text).not.toContain('Copyright');
  });

  it('says when a file has no text', async () => {
    expect(await failure(parseFile(utf8(' \n\t\n '), 'empty.txt', bounds))).toBe('No text found in this file');
    expect(await failure(parseFile(await docx(['']), 'empty.docx', bounds))).toBe('No text found in this file');
  });

  it('refuses text longer than maxChars, counting characters', async () => {
    expect(await failure(parseFile(utf8('a'.repeat(1001)), 'long.txt', { ...bounds, maxChars: 1000 }))).toBe(
      'Document is too long (maximum 1,000 characters)',
    );
    expect((await parseFile(utf8('é'.repeat(1000)), 'accents.txt', { ...bounds, maxChars: 1000 })).text).toHaveLength(1000);
    const book = await pdf(Array.from({ length: 10 }, () => ['x'.repeat(80)]));
    expect(await failure(parseFile(book, 'book.pdf', { ...bounds, maxChars: 300 }))).toBe('Document is too long (maximum 300 characters)');
    expect(await failure(parseFile(utf8('a'.repeat(2_000_001)), 'huge.txt', bounds))).toBe(
      'Document is too long (maximum 2,000,000 characters)',
    );
  });
});
