// The one definition of a chatbot's appearance defaults on the services' side: what the public page
// and the widget show for what the owner has not set (the proto's Appearance and PublicAppearance
// leave it empty). The chatbot service stores the owner's choices; the chat service and the gateway
// read them through readAppearance, so neither keeps its own defaults.

/** Where the widget's launcher sits on the host page; the last is the default. */
export const LAUNCHER_POSITIONS = ['left', 'right'] as const;
export type LauncherPosition = (typeof LAUNCHER_POSITIONS)[number];
export const DEFAULT_LAUNCHER_POSITION: LauncherPosition = 'right';

/** An appearance with every field set: an empty colour is the product's, an empty label the icon alone. */
export interface AppearanceSettings {
  primaryColor: string;
  position: LauncherPosition;
  launcherLabel: string;
  hideBranding: boolean;
}

export const DEFAULT_APPEARANCE: AppearanceSettings = {
  primaryColor: '',
  position: DEFAULT_LAUNCHER_POSITION,
  launcherLabel: '',
  hideBranding: false,
};

export function isLauncherPosition(value: string): value is LauncherPosition {
  return (LAUNCHER_POSITIONS as readonly string[]).includes(value);
}

/** An Appearance or PublicAppearance as it came (absent from an older chatbot service), with the defaults for what is not set. */
export function readAppearance(
  appearance: { primaryColor?: string; position?: string; launcherLabel?: string; hideBranding?: boolean } | undefined,
): AppearanceSettings {
  const position = appearance?.position ?? '';
  return {
    primaryColor: appearance?.primaryColor ?? DEFAULT_APPEARANCE.primaryColor,
    position: isLauncherPosition(position) ? position : DEFAULT_APPEARANCE.position,
    launcherLabel: appearance?.launcherLabel ?? DEFAULT_APPEARANCE.launcherLabel,
    hideBranding: appearance?.hideBranding ?? DEFAULT_APPEARANCE.hideBranding,
  };
}
