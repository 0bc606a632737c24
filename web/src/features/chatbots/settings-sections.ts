// The sections of a chatbot's Settings tab, in page order, and their addresses (`#settings-voice`).
// What a chatbot comes to hold next joins this list.

export const SETTINGS_SECTIONS = [
  { id: 'basic', label: 'Basics' },
  { id: 'voice', label: 'Voice' },
  { id: 'model', label: 'Model' },
  { id: 'lead-form', label: 'Lead form' },
  { id: 'handoff', label: 'Handoff' },
  { id: 'privacy', label: 'Privacy' },
  { id: 'channels', label: 'Channels' },
  { id: 'actions', label: 'Actions' },
  { id: 'tools', label: 'Tools' },
  { id: 'knowledge', label: 'Knowledge' },
  { id: 'entries', label: 'Entries' },
  { id: 'tests', label: 'Tests' },
] as const;

export type SettingsSectionId = (typeof SETTINGS_SECTIONS)[number]['id'];

/** The element id and the address's fragment of a section: `settings-voice`. */
export const sectionAnchor = (id: SettingsSectionId) => `settings-${id}`;

/** The section a location's hash names (`#settings-voice`), or null. */
export function sectionFromHash(hash: string): SettingsSectionId | null {
  const anchor = hash.replace(/^#/, '');
  return SETTINGS_SECTIONS.find((s) => sectionAnchor(s.id) === anchor)?.id ?? null;
}
