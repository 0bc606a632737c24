// The text colour that reads on an owner's colour: near-black on light colours, white on dark ones,
// whichever has the better contrast (WCAG relative luminance). Used by the public page, the widget's
// launcher and the Embed tab's preview alike.

/** "#rrggbb" → the text colour to write on it. */
export function textColorOn(color: string): '#ffffff' | '#111827' {
  const channel = (offset: number) => {
    const value = parseInt(color.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  // The luminance where white and near-black text have the same contrast ratio.
  return luminance > 0.18 ? '#111827' : '#ffffff';
}
