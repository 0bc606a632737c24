// Recognises a picture by its first bytes, never by a name or a declared type: an HTML or SVG file
// renamed .png must not be stored and later served as an image.

export type ImageType = { ext: 'jpg' | 'png' | 'gif'; mime: string };

const SIGNATURES: { bytes: number[]; type: ImageType }[] = [
  { bytes: [0xff, 0xd8, 0xff], type: { ext: 'jpg', mime: 'image/jpeg' } },
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], type: { ext: 'png', mime: 'image/png' } },
  { bytes: [...Buffer.from('GIF87a')], type: { ext: 'gif', mime: 'image/gif' } },
  { bytes: [...Buffer.from('GIF89a')], type: { ext: 'gif', mime: 'image/gif' } },
];

export function detectImageType(content: Uint8Array): ImageType | undefined {
  return SIGNATURES.find(({ bytes }) => content.length > bytes.length && bytes.every((b, i) => content[i] === b))?.type;
}
