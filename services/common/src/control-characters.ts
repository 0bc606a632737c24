// Control characters, one rule for every service and the gateway: Unicode's Cc category (the C0
// controls U+0000–U+001F, DEL, and the C1 controls U+0080–U+009F). None belongs in anything a
// person types: PostgreSQL refuses NUL in text (and fails the whole batch a statement went in),
// and the others are invisible on a page, break a one-line field, or forge lines in logs. Text that
// spans lines (a message, a reply, a note, knowledge) keeps tab, line feed and carriage return.

const ANY = /\p{Cc}/u;
const ANY_GLOBAL = /\p{Cc}/gu;
const BUT_LINE_BREAKS = /(?![\t\n\r])\p{Cc}/u;
const BUT_LINE_BREAKS_GLOBAL = /(?![\t\n\r])\p{Cc}/gu;

/** Which controls a value may keep: none (a name, an email, a label), or tab and line breaks (multi-line text). */
export type ControlCharacterRule = 'one line' | 'multi-line';

/** Whether `value` holds a control character its kind of text may not. */
export function hasControlCharacters(value: string, rule: ControlCharacterRule = 'one line'): boolean {
  return (rule === 'one line' ? ANY : BUT_LINE_BREAKS).test(value);
}

/**
 * `value` with every control character its kind of text may not hold removed: for a value read from a
 * header or a browser, or text taken from a file, where refusing is not the caller's choice.
 */
export function withoutControlCharacters(value: string, rule: ControlCharacterRule = 'one line'): string {
  return value.replace(rule === 'one line' ? ANY_GLOBAL : BUT_LINE_BREAKS_GLOBAL, '');
}
