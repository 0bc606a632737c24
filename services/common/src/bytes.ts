/** A byte size as people read limits: "2 MB", "512 KB", or "1500 bytes" when neither is whole. */
export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (Number.isInteger(mb)) return `${mb} MB`;
  const kb = bytes / 1024;
  return Number.isInteger(kb) ? `${kb} KB` : `${bytes} bytes`;
}
