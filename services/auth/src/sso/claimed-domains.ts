// Claimed domains: an email domain belongs to at most one workspace (the table's primary key), and
// its people sign in through that workspace's identity provider. A claim is proven by who makes it: an
// owner of the workspace whose own account email is in the domain (the product verified that mailbox
// when the account was made or its email changed). Public mail providers cannot be claimed.
import { invalid } from '@parley/common/rpc-errors.ts';

export const MAX_CLAIMED_DOMAINS = 20;

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** Mailboxes anyone can open: a claim of one would hand strangers' sign-ins to a workspace. */
const PUBLIC_MAIL_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'web.de',
  'mail.com',
  'yandex.ru',
  'qq.com',
]);

export function parseClaimedDomains(raw: string[]): string[] {
  const domains = [...new Set(raw.map((d) => d.trim().toLowerCase().replace(/^@/, '')).filter(Boolean))];
  if (domains.length > MAX_CLAIMED_DOMAINS) throw invalid(`At most ${MAX_CLAIMED_DOMAINS} domains can be claimed`);
  for (const d of domains) {
    if (!DOMAIN.test(d)) throw invalid(`"${d.slice(0, 80)}" is not a domain name`);
    if (PUBLIC_MAIL_DOMAINS.has(d)) throw invalid(`${d} is a public mail provider and cannot be claimed`);
  }
  return domains;
}

export const CLAIM_NEEDS_OWNER_IN_DOMAIN = (domain: string) =>
  `Only an owner of this workspace whose own email is in ${domain} can claim it.`;
export const DOMAIN_CLAIMED_ELSEWHERE = (domain: string) => `${domain} is already claimed by another workspace.`;
