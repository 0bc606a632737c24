import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { detectImageType } from '../image-type.ts';
import { pictureFile, PICTURE_URL_PREFIX } from '../picture-files.ts';

/** A real 1x1 PNG (signature, IHDR, IDAT, IEND), as a browser would upload it. */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
/** A real 1x1 GIF89a. */
const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** The start of a JFIF JPEG (SOI, APP0). */
const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);

describe('detectImageType', () => {
  it('recognises PNG, JPEG and GIF by their first bytes', () => {
    expect(detectImageType(PNG_1X1)).toEqual({ ext: 'png', mime: 'image/png' });
    expect(detectImageType(JPEG_HEAD)).toEqual({ ext: 'jpg', mime: 'image/jpeg' });
    expect(detectImageType(GIF_1X1)).toEqual({ ext: 'gif', mime: 'image/gif' });
    expect(detectImageType(Buffer.concat([Buffer.from('GIF87a'), Buffer.alloc(10)]))).toEqual({ ext: 'gif', mime: 'image/gif' });
    expect(detectImageType(new Uint8Array(JPEG_HEAD))).toEqual({ ext: 'jpg', mime: 'image/jpeg' });
  });

  it('refuses HTML, SVG and XML, whatever name they were uploaded under', () => {
    expect(detectImageType(Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>'))).toBeUndefined();
    expect(detectImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'))).toBeUndefined();
    expect(detectImageType(Buffer.from('<?xml version="1.0"?><svg/>'))).toBeUndefined();
    // A PNG name or signature written as text is not a PNG.
    expect(detectImageType(Buffer.from('PNG <html></html>'))).toBeUndefined();
  });

  it('refuses other binary formats, a damaged signature and files holding only a signature', () => {
    expect(detectImageType(Buffer.from('%PDF-1.7\n'))).toBeUndefined();
    expect(detectImageType(Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1'))).toBeUndefined();
    const damaged = Buffer.from(PNG_1X1);
    damaged[7] = 0x00;
    expect(detectImageType(damaged)).toBeUndefined();
    expect(detectImageType(PNG_1X1.subarray(0, 8))).toBeUndefined();
    expect(detectImageType(Buffer.from([0xff, 0xd8, 0xff]))).toBeUndefined();
    expect(detectImageType(new Uint8Array(0))).toBeUndefined();
  });

  it('recognises a PNG built from scratch', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), deflateSync(Buffer.from([0, 0]))]);
    expect(detectImageType(png)?.ext).toBe('png');
  });
});

describe('pictureFile', () => {
  const media = '/srv/media';

  it('maps a stored picture URL to its file under MEDIA_DIR/chatbots', () => {
    const name = `${'ab'.repeat(16)}.png`;
    expect(pictureFile(media, `${PICTURE_URL_PREFIX}${name}`)).toBe(`/srv/media/chatbots/${name}`);
  });

  it('leaves alone anything not shaped like a stored picture (no path escapes)', () => {
    expect(pictureFile(media, null)).toBeUndefined();
    expect(pictureFile(media, '')).toBeUndefined();
    expect(pictureFile(media, 'https://cdn.example.com/a.png')).toBeUndefined();
    expect(pictureFile(media, '/media/chatbots/../../etc/passwd')).toBeUndefined();
    expect(pictureFile(media, `/media/chatbots/${'ab'.repeat(16)}.html`)).toBeUndefined();
    expect(pictureFile(media, `/media/chatbots/${'AB'.repeat(16)}.png`)).toBeUndefined();
    expect(pictureFile(media, `/media/chatbots/sub/${'ab'.repeat(16)}.png`)).toBeUndefined();
  });
});
