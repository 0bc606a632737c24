// The one outbound guard (server-side request forgery, ADR 0045): every request Parley makes to an
// address an owner or a model gave (a web page to learn from, a webhook endpoint, an action) goes
// through here. The host is resolved by the connection itself and the connection is pinned to the
// address that was checked, so a DNS answer that changes between check and connect cannot get
// through; only public unicast addresses pass, unless the operator named a range or host in the
// allow-list (OUTBOUND_ALLOW). Refusals name their reason.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Dispatcher } from 'undici';
import { undici } from './undici.ts';

/** What a guard lets through. */
export interface OutboundPolicy {
  /** Tests and local use only (KNOWLEDGE_URL_ALLOW_PRIVATE=1): every address, and http, pass. */
  allowPrivate: boolean;
  /** The operator's allow-list: ranges (CIDR) and host names that may be private. */
  allow: AllowList;
  /** Outside development only https is spoken; http stays refused even for allow-listed hosts. */
  httpsOnly: boolean;
}

export interface AllowList {
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  hosts: Set<string>;
}

export const EMPTY_ALLOW_LIST: AllowList = { ranges: [], hosts: new Set() };

/** The strict policy: public https addresses only. */
export const STRICT_POLICY: OutboundPolicy = { allowPrivate: false, allow: EMPTY_ALLOW_LIST, httpsOnly: true };

/**
 * Parses OUTBOUND_ALLOW: a comma-separated list of CIDR ranges ("10.20.0.0/16", "fd12::/64"), single
 * addresses and host names ("billing.internal"). Throws on an entry that is none of them.
 */
export function parseAllowList(raw: string | undefined): AllowList {
  const list: AllowList = { ranges: [], hosts: new Set() };
  for (const entry of (raw ?? '').split(',').map((e) => e.trim().toLowerCase())) {
    if (!entry) continue;
    if (entry.includes('/')) {
      try {
        list.ranges.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new Error(`"${entry}" is not a CIDR range`);
      }
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      list.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(entry)) {
      list.hosts.add(entry);
    } else throw new Error(`"${entry}" is neither a CIDR range, an address nor a host name`);
  }
  return list;
}

/** The cloud metadata services: named apart, since reaching one is the classic escalation. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a unique-local address',
  reserved: 'a reserved address',
};

function inAllowList(address: ipaddr.IPv4 | ipaddr.IPv6, allow: AllowList): boolean {
  return allow.ranges.some(
    ([range, bits]) => range.kind() === address.kind() && (address as ipaddr.IPv4).match(range as ipaddr.IPv4, bits),
  );
}

/**
 * Why an address may not be reached, or null when it may: only ipaddr.js's "unicast" range passes,
 * so private, loopback, link-local, unique-local, carrier-grade NAT, multicast, unspecified, broadcast,
 * reserved and the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are refused,
 * unless the operator allow-listed the range.
 */
export function addressRefusal(address: string, policy: Pick<OutboundPolicy, 'allowPrivate' | 'allow'> = STRICT_POLICY): string | null {
  if (policy.allowPrivate) return null;
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // process() turns ::ffff:10.0.0.1 into 10.0.0.1, so a mapped address is judged as the IPv4 one it is.
  const parsed = ipaddr.process(address);
  if (inAllowList(parsed, policy.allow)) return null;
  const shown = parsed.toString();
  if (METADATA.has(shown)) return `${shown} is a cloud metadata address`;
  const range = parsed.range();
  if (range === 'unicast') return null;
  return `${shown} is ${RANGE_WORDS[range] ?? `an address of a special range (${range})`}`;
}

/** Whether an address is on the public internet (the strict policy). */
export const isPublicAddress = (address: string): boolean => addressRefusal(address) === null;

/** Thrown inside a connection attempt to a refused address; callers find it in the error's causes. */
export class AddressRefused extends Error {
  readonly code = ADDRESS_REFUSED_CODE;
}

export const ADDRESS_REFUSED_CODE = 'ERR_ADDRESS_REFUSED';

type Lookup = typeof dnsLookup;

/**
 * An undici agent that only connects to addresses the policy accepts: names are resolved once, by the
 * connection itself, and refused when any answer is refused (an allow-listed host name is trusted
 * whatever it resolves to); the connection uses the checked answer. IP literals (which Node does not
 * look up) are checked before connecting. Tests pass their own resolver.
 */
export function createGuardedAgent(policy: Pick<OutboundPolicy, 'allowPrivate' | 'allow'>, resolve: Lookup = dnsLookup): Dispatcher {
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...options, all: true }, (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      if (addresses.length === 0) return callback(new AddressRefused(`${hostname} resolves to nothing`));
      if (!policy.allow.hosts.has(hostname.toLowerCase())) {
        for (const a of addresses) {
          const reason = addressRefusal(a.address, policy);
          if (reason) return callback(new AddressRefused(`${hostname} resolves to ${reason.replace(/^\S+ is /, `${a.address}, `)}`));
        }
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  }) as unknown as Lookup;
  // The callers' own deadlines bound connecting too; idle connections to owners' hosts are not kept long.
  const { Agent, buildConnector, interceptors } = undici();
  const connector = buildConnector({ lookup, timeout: 120_000 });
  return new Agent({
    keepAliveTimeout: 4_000,
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
      const reason = isIP(host) ? addressRefusal(host, policy) : null;
      if (reason) {
        callback(new AddressRefused(reason), null);
        return;
      }
      return connector(options, callback);
    },
  }).compose(interceptors.decompress());
}

const agents = new Map<OutboundPolicy | boolean, Dispatcher>();
/** The process's one guarded agent for a policy (or for allowPrivate true/false with no allow-list). */
export function guardedAgent(policy: OutboundPolicy | boolean): Dispatcher {
  let agent = agents.get(policy);
  if (!agent) {
    const p = typeof policy === 'boolean' ? { allowPrivate: policy, allow: EMPTY_ALLOW_LIST } : policy;
    agents.set(policy, (agent = createGuardedAgent(p)));
  }
  return agent;
}

/** The guard's reason when a failed request was refused by it (anywhere in its chain of causes), else null. */
export function guardRefusal(err: unknown): string | null {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if ((e as NodeJS.ErrnoException).code === ADDRESS_REFUSED_CODE) return e.message;
    if (e instanceof AggregateError) {
      const inner = e.errors.find((i) => (i as NodeJS.ErrnoException).code === ADDRESS_REFUSED_CODE) as Error | undefined;
      if (inner) return inner.message;
    }
  }
  return null;
}

/** Whether a failed request was refused by the guard. */
export const refusedByGuard = (err: unknown): boolean => guardRefusal(err) !== null;

/**
 * The process's policy from its settings: OUTBOUND_ALLOW (the operator's allow-list), http allowed
 * only outside production (NODE_ENV), and the tests' and local use's KNOWLEDGE_URL_ALLOW_PRIVATE=1.
 */
export function outboundPolicy(settings: { allowPrivate: boolean; allowList?: string; nodeEnv?: string }): OutboundPolicy {
  return {
    allowPrivate: settings.allowPrivate,
    allow: parseAllowList(settings.allowList),
    httpsOnly: settings.nodeEnv === 'production',
  };
}
