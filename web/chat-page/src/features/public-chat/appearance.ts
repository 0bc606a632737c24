// The chatbot's appearance as the public lookup reports it, read defensively: anything
// missing or malformed means Parley's own look. Plain data, no React: the widget bundles it too.
import { textColorOn } from '../../lib/text-color-on';

export interface Appearance {
  /** "#rrggbb", or null for Parley's own colour. */
  primaryColor: string | null;
  position: 'left' | 'right';
  /** The launcher's text; "" for the icon alone. */
  launcherLabel: string;
  /** The owner hides the "Powered by Parley" badge (the server reports true only for a pro owner). */
  hideBranding: boolean;
}

/** The gateway's appearance for a chatbot that set nothing, copied (test/shared-copies.test.ts keeps it equal). */
export const DEFAULT_APPEARANCE: Appearance = { primaryColor: null, position: 'right', launcherLabel: '', hideBranding: false };

const MAX_LAUNCHER_LABEL_LENGTH = 40;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function readAppearance(value: unknown): Appearance {
  if (!isRecord(value)) return DEFAULT_APPEARANCE;
  const { primaryColor, position, launcherLabel, hideBranding } = value;
  return {
    primaryColor: typeof primaryColor === 'string' && /^#[0-9a-f]{6}$/i.test(primaryColor) ? primaryColor.toLowerCase() : null,
    position: position === 'left' ? 'left' : 'right',
    launcherLabel: typeof launcherLabel === 'string' ? launcherLabel.trim().slice(0, MAX_LAUNCHER_LABEL_LENGTH) : '',
    hideBranding: hideBranding === true,
  };
}

/**
 * CSS custom properties that repaint Parley's accent palette (the `brand` colours every component
 * uses) in the owner's colour: 600 is the colour itself, lighter and darker steps are mixed from it.
 * `--color-on-brand` is the text colour on it. Empty for Parley's own colour.
 */
export function accentVariables(primaryColor: string | null): Record<string, string> {
  if (!primaryColor) return {};
  const mix = (percent: number, other: 'white' | 'black') => `color-mix(in oklab, ${primaryColor} ${percent}%, ${other})`;
  return {
    '--color-brand-50': mix(8, 'white'),
    '--color-brand-100': mix(16, 'white'),
    '--color-brand-200': mix(32, 'white'),
    '--color-brand-300': mix(50, 'white'),
    '--color-brand-400': mix(70, 'white'),
    '--color-brand-500': mix(85, 'white'),
    '--color-brand-600': primaryColor,
    '--color-brand-700': mix(85, 'black'),
    '--color-brand-800': mix(70, 'black'),
    '--color-brand-900': mix(55, 'black'),
    '--color-on-brand': textColorOn(primaryColor),
  };
}
