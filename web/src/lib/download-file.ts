/**
 * Saves a Blob through the browser's download (a temporary link to an object URL). Its own module so
 * tests can replace it: jsdom has no object URLs and does not download.
 */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next tick: some browsers start the download only after the click handler returns.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Saves text as a file through the browser's download. */
export function downloadTextFile(fileName: string, text: string, type: string): void {
  downloadBlob(fileName, new Blob([text], { type }));
}
