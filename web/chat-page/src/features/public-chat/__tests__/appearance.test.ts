import { describe, expect, it } from 'vitest';
import { textColorOn } from '../../../lib/text-color-on';
import { accentVariables, DEFAULT_APPEARANCE, readAppearance } from '../appearance';

describe('readAppearance', () => {
  it('reads what the lookup sends', () => {
    expect(readAppearance({ primaryColor: '#0A7B3E', position: 'left', launcherLabel: '  Help  ', hideBranding: true })).toEqual({
      primaryColor: '#0a7b3e',
      position: 'left',
      launcherLabel: 'Help',
      hideBranding: true,
    });
  });

  it("means Parley's own look for anything missing or malformed", () => {
    expect(readAppearance(undefined)).toEqual(DEFAULT_APPEARANCE);
    expect(readAppearance({ primaryColor: 'red', position: 'top', launcherLabel: 7, hideBranding: 'yes' })).toEqual(DEFAULT_APPEARANCE);
    expect(readAppearance({ primaryColor: '#abc' }).primaryColor).toBeNull();
    expect(readAppearance({ launcherLabel: 'x'.repeat(60) }).launcherLabel).toHaveLength(40);
  });
});

describe('accent colours', () => {
  it('picks the text colour that reads better on the accent', () => {
    expect(textColorOn('#4f39f6')).toBe('#ffffff');
    expect(textColorOn('#000000')).toBe('#ffffff');
    expect(textColorOn('#ffeb3b')).toBe('#111827');
    expect(textColorOn('#ffffff')).toBe('#111827');
  });

  it("repaints the brand palette from the owner's colour, and nothing without one", () => {
    const variables = accentVariables('#0a7b3e');
    expect(variables['--color-brand-600']).toBe('#0a7b3e');
    expect(variables['--color-brand-50']).toBe('color-mix(in oklab, #0a7b3e 8%, white)');
    expect(variables['--color-on-brand']).toBe('#ffffff');
    expect(accentVariables(null)).toEqual({});
  });
});
