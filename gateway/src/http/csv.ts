// What every CSV download of the gateway shares (the conversation and lead exports).

/**
 * A cell a spreadsheet would read as a formula (= + - @, or a tab or carriage return before one)
 * gets a leading apostrophe, which shows it as the text it is (OWASP's CSV injection advice).
 */
export const inertCell = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
