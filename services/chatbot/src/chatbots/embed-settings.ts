// A chatbot's appearance, where it may run and what its visitors may spend (ADR 19): the owner's
// changes validated with the messages owners see, as the Chatbot row's columns. Pure: whether the
// owner may hide the badge is the plan's question, asked by update-chatbot.ts.
import { domainToASCII } from 'node:url';
import { isLauncherPosition, type LauncherPosition } from '@parley/proto/appearance.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';

export const PRIMARY_COLOR_INVALID = 'Primary colour must be a colour like #1a73e8.';
export const POSITION_INVALID = 'Position must be left or right.';
export const LAUNCHER_LABEL_MAX_CHARS = 40;
export const LAUNCHER_LABEL_TOO_LONG = `Launcher label must be at most ${LAUNCHER_LABEL_MAX_CHARS} characters.`;
export const LAUNCHER_LABEL_NOT_ONE_LINE = 'Launcher label must be one line of text.';
export const ALLOWED_DOMAIN_INVALID = 'Allowed domains must be host names like shop.example.com.';
export const MAX_ALLOWED_DOMAINS = 20;
export const TOO_MANY_ALLOWED_DOMAINS = `At most ${MAX_ALLOWED_DOMAINS} allowed domains.`;
export const MAX_VISITOR_MESSAGES_PER_DAY = 10_000;
export const VISITOR_MESSAGES_INVALID = `Messages per visitor per day must be a whole number from 1 to ${MAX_VISITOR_MESSAGES_PER_DAY}.`;
export const DAILY_SPEND_INVALID = 'Daily spend limit must be between 0.01 and 10000.00 dollars.';
export const HIDE_BRANDING_PRO_ONLY = 'Hiding the Parley badge is a Pro feature.';

const MAX_DAILY_SPEND_CENTS = 1_000_000;

/** The proto's AppearanceChange: only the fields present change. */
export interface AppearanceChangeInput {
  primaryColor?: string;
  position?: string;
  launcherLabel?: string;
  hideBranding?: boolean;
}

/** The proto's EmbeddingChange: a present list replaces the stored one. */
export interface EmbeddingChangeInput {
  allowedDomains?: { domains: string[] };
  standalonePage?: boolean;
}

/** The proto's VisitorLimitsChange: a clear flag removes that limit, whatever its value. */
export interface VisitorLimitsChangeInput {
  visitorMessagesPerDay?: number;
  clearVisitorMessagesPerDay?: boolean;
  dailySpendLimit?: string;
  clearDailySpendLimit?: boolean;
  proofOfWork?: boolean;
}

export interface EmbedSettingsChange {
  appearance?: AppearanceChangeInput;
  embedding?: EmbeddingChangeInput;
  limits?: VisitorLimitsChangeInput;
}

/** The validated change, as the Chatbot row's columns (undefined: unchanged; a null limit: no limit). */
export interface EmbedSettingsUpdate {
  primaryColor?: string;
  position?: LauncherPosition;
  launcherLabel?: string;
  hideBranding?: boolean;
  allowedDomains?: string[];
  standalonePage?: boolean;
  visitorMessagesPerDay?: number | null;
  /** Dollars, exact ("5.00"). */
  dailySpendLimit?: string | null;
  proofOfWork?: boolean;
}

const HEX_COLOR = /^#[0-9a-f]{6}$/;

/** "#rrggbb" in lower case; empty: the product's colour. */
export function parsePrimaryColor(raw: string): string {
  const color = raw.trim().toLowerCase();
  if (color && !HEX_COLOR.test(color)) throw invalid(PRIMARY_COLOR_INVALID);
  return color;
}

export function parsePosition(raw: string): LauncherPosition {
  const position = raw.trim().toLowerCase();
  if (!isLauncherPosition(position)) throw invalid(POSITION_INVALID);
  return position;
}

export function parseLauncherLabel(raw: string): string {
  const label = raw.trim();
  if (hasControlCharacters(label)) throw invalid(LAUNCHER_LABEL_NOT_ONE_LINE);
  if ([...label].length > LAUNCHER_LABEL_MAX_CHARS) throw invalid(LAUNCHER_LABEL_TOO_LONG);
  return label;
}

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4_OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${IPV4_OCTET}(\\.${IPV4_OCTET}){3}$`);
const NON_ASCII = /[^\u0020-\u007e]/;

/**
 * One allowed domain as the browser's Origin header names it: a host name of two labels or more,
 * "localhost" or an IPv4 address, lower case; a non-ASCII name in its punycode form. Anything else
 * (a scheme, a port, a path, a wildcard) is not a bare host: undefined.
 */
export function parseHost(raw: string): string | undefined {
  let host = raw.trim().toLowerCase();
  if (NON_ASCII.test(host)) host = domainToASCII(host);
  if (host === 'localhost' || IPV4.test(host)) return host;
  if (!host || host.length > 253) return undefined;
  const labels = host.split('.');
  // A last label of digits only is a malformed address (1.2.3.999), not a name.
  if (labels.length < 2 || !labels.every((l) => DNS_LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) return undefined;
  return host;
}

/** The list as stored: blank rows dropped, each a bare host, duplicates removed (first kept), at most 20. */
export function parseAllowedDomains(raw: string[]): string[] {
  const domains = new Set<string>();
  for (const entry of raw) {
    if (!entry.trim()) continue;
    const host = parseHost(entry);
    if (!host) throw invalid(ALLOWED_DOMAIN_INVALID);
    domains.add(host);
  }
  if (domains.size > MAX_ALLOWED_DOMAINS) throw invalid(TOO_MANY_ALLOWED_DOMAINS);
  return [...domains];
}

export function parseVisitorMessagesPerDay(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_VISITOR_MESSAGES_PER_DAY) throw invalid(VISITOR_MESSAGES_INVALID);
  return value;
}

// Digits, at most two decimals; ".5" is half a dollar, "5." is not a number an owner types.
const DOLLARS = /^(?=\.?\d)(\d{0,9})(?:\.(\d{1,2}))?$/;

/** Dollars as an exact decimal with two places ("5" → "5.00"), from 0.01 to 10000.00. */
export function parseDailySpendLimit(raw: string): string {
  const match = DOLLARS.exec(raw.trim());
  if (!match) throw invalid(DAILY_SPEND_INVALID);
  const cents = Number(match[1] || '0') * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (cents < 1 || cents > MAX_DAILY_SPEND_CENTS) throw invalid(DAILY_SPEND_INVALID);
  return formatCents(cents);
}

const formatCents = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export function parseEmbedSettingsChange(change: EmbedSettingsChange): EmbedSettingsUpdate {
  const { appearance = {}, embedding = {}, limits = {} } = change;
  const optional = <T, R>(value: T | undefined, parse: (v: T) => R) => (value === undefined ? undefined : parse(value));
  return {
    primaryColor: optional(appearance.primaryColor, parsePrimaryColor),
    position: optional(appearance.position, parsePosition),
    launcherLabel: optional(appearance.launcherLabel, parseLauncherLabel),
    hideBranding: appearance.hideBranding,
    allowedDomains: optional(embedding.allowedDomains?.domains, parseAllowedDomains),
    standalonePage: embedding.standalonePage,
    // A cleared limit ignores the value sent with it (VisitorLimitsChange).
    visitorMessagesPerDay: limits.clearVisitorMessagesPerDay ? null : optional(limits.visitorMessagesPerDay, parseVisitorMessagesPerDay),
    dailySpendLimit: limits.clearDailySpendLimit ? null : optional(limits.dailySpendLimit, parseDailySpendLimit),
    proofOfWork: limits.proofOfWork,
  };
}
