/** parley-data-{YYYY-MM-DD}.json, dated with today's local calendar day. */
export function dataExportFileName(today: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `parley-data-${today.getFullYear()}-${pad(today.getMonth() + 1)}-${pad(today.getDate())}.json`;
}
