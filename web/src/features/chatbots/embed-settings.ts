// The Embed tab's forms as the owner edits them (text as typed), and what each card's save sends:
// only the fields that differ from the saved chatbot, since the API changes only the fields given.
// The chatbot service owns every rule (colour format, host names, ranges) and its messages are
// shown as they come; the few checks here are the ones GraphQL's types need before sending.
import type { AppearanceInput, ChatbotEmbedFragment, LauncherPosition, VisitorLimitsInput } from '../../gql/graphql';

/** The product's colour (brand-600), shown while the owner has not chosen one. */
export const DEFAULT_PRIMARY_COLOR = '#4f39f6';
export const MAX_LAUNCHER_LABEL_CHARS = 40;
export const MAX_ALLOWED_DOMAINS = 20;
export const MAX_VISITOR_MESSAGES_PER_DAY = 10000;
export const VISITOR_MESSAGES_NOT_WHOLE_MESSAGE = 'Messages per visitor per day must be a whole number (or empty for no limit).';

export interface AppearanceForm {
  /** As typed: "#rrggbb", or "" for the product's colour. */
  primaryColor: string;
  position: LauncherPosition;
  launcherLabel: string;
  hideBranding: boolean;
}

export interface PlacementForm {
  /** One host name per line. */
  allowedDomains: string;
  standalonePage: boolean;
}

export interface VisitorLimitsForm {
  /** As typed; "" is no limit. */
  visitorMessagesPerDay: string;
  /** Dollars as typed; "" is no limit. */
  dailySpendLimit: string;
  proofOfWork: boolean;
}

export function appearanceFormOf(chatbot: ChatbotEmbedFragment): AppearanceForm {
  const { primaryColor, position, launcherLabel, hideBranding } = chatbot.appearance;
  return { primaryColor: primaryColor ?? '', position, launcherLabel, hideBranding };
}

export function placementFormOf(chatbot: ChatbotEmbedFragment): PlacementForm {
  return { allowedDomains: chatbot.allowedDomains.join('\n'), standalonePage: chatbot.standalonePage };
}

export function visitorLimitsFormOf(chatbot: ChatbotEmbedFragment): VisitorLimitsForm {
  const { visitorMessagesPerDay, dailySpendLimit, proofOfWork } = chatbot.limits;
  return { visitorMessagesPerDay: visitorMessagesPerDay?.toString() ?? '', dailySpendLimit: dailySpendLimit ?? '', proofOfWork };
}

/** "#AbC123" or "abc123" as the API spells it ("#abc123"); null for empty (the product's colour). */
export function normalizeColor(typed: string): string | null {
  const text = typed.trim().toLowerCase();
  if (!text) return null;
  return text.startsWith('#') ? text : `#${text}`;
}

/** The colour to preview: the typed one once it is a full "#rrggbb", else the product's. */
export function previewColor(typed: string): string {
  const color = normalizeColor(typed);
  return color && /^#[0-9a-f]{6}$/.test(color) ? color : DEFAULT_PRIMARY_COLOR;
}

/**
 * The host names typed, one per line (commas and spaces separate too). A pasted address keeps only
 * its host name, so "https://shop.example.com/cart" becomes "shop.example.com"; duplicates go.
 */
export function parseDomains(text: string): string[] {
  const hosts = text
    .split(/[\s,]+/)
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean)
    .map((item) => {
      if (!item.includes('://')) return item;
      try {
        return new URL(item).hostname;
      } catch {
        return item;
      }
    });
  return [...new Set(hosts)];
}

/** The appearance fields that differ from the saved ones; undefined when none does. */
export function appearanceChange(saved: ChatbotEmbedFragment, form: AppearanceForm): AppearanceInput | undefined {
  const change: AppearanceInput = {};
  const color = normalizeColor(form.primaryColor);
  if (color !== (saved.appearance.primaryColor ?? null)) change.primaryColor = color;
  if (form.position !== saved.appearance.position) change.position = form.position;
  if (form.launcherLabel.trim() !== saved.appearance.launcherLabel) change.launcherLabel = form.launcherLabel.trim();
  if (form.hideBranding !== saved.appearance.hideBranding) change.hideBranding = form.hideBranding;
  return Object.keys(change).length > 0 ? change : undefined;
}

export interface PlacementChange {
  allowedDomains?: string[];
  standalonePage?: boolean;
}

export function placementChange(saved: ChatbotEmbedFragment, form: PlacementForm): PlacementChange | undefined {
  const change: PlacementChange = {};
  const domains = parseDomains(form.allowedDomains);
  if (domains.join('\n') !== saved.allowedDomains.join('\n')) change.allowedDomains = domains;
  if (form.standalonePage !== saved.standalonePage) change.standalonePage = form.standalonePage;
  return Object.keys(change).length > 0 ? change : undefined;
}

/** The limits that differ from the saved ones (null removes a limit), or the message of a count that is not a whole number. */
export function visitorLimitsChange(saved: ChatbotEmbedFragment, form: VisitorLimitsForm): { change?: VisitorLimitsInput; error?: string } {
  const change: VisitorLimitsInput = {};
  const messages = form.visitorMessagesPerDay.trim();
  if (messages && !/^\d+$/.test(messages)) return { error: VISITOR_MESSAGES_NOT_WHOLE_MESSAGE };
  const perDay = messages ? Number(messages) : null;
  if (perDay !== saved.limits.visitorMessagesPerDay) change.visitorMessagesPerDay = perDay;
  const spend = form.dailySpendLimit.trim().replace(/^\$\s*/, '');
  const spendLimit = spend || null;
  if (spendLimit !== saved.limits.dailySpendLimit) change.dailySpendLimit = spendLimit;
  if (form.proofOfWork !== saved.limits.proofOfWork) change.proofOfWork = form.proofOfWork;
  return Object.keys(change).length > 0 ? { change } : {};
}

/** The tag an owner pastes into their site, served from this very origin. */
export function embedSnippet(origin: string, uniqueId: string): string {
  return `<script src="${origin}/widget.js" data-chatbot="${uniqueId}" defer></script>`;
}
