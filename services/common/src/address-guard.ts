// The outbound address guard of the chatbot and auth services (server-side request forgery): every request to
// an address an owner gave (a web page to learn from, a webhook endpoint, an identity provider) connects only to public
// internet addresses. The address is checked after DNS resolution, inside the connection itself, so a
// second resolution cannot answer differently (DNS rebinding). KNOWLEDGE_URL_ALLOW_PRIVATE=1 lifts it
// (tests and local use only).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, interceptors, type Dispatcher } from 'undici';

/**
 * Whether an address is on the public internet: only ipaddr.js's "unicast" range passes, so private,
 * loopback, link-local, unique-local, carrier-grade NAT, multicast, unspecified, reserved and the IPv6
 * forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are all refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:10.0.0.1 into 10.0.0.1, so a mapped address is judged as the IPv4 one it is.
  return ipaddr.process(address).range() === 'unicast';
}

/** Thrown inside a connection attempt to a refused address; callers find its code in the error's causes. */
export class AddressRefused extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED';
}

type Lookup = typeof dnsLookup;

/**
 * An undici agent that only connects to addresses `isAllowed` accepts: names are resolved once, by
 * the connection itself, and refused when any answer is not allowed; IP literals (which Node does
 * not look up) are checked before connecting. Tests pass their own rule and resolver.
 */
export function createGuardedAgent(isAllowed: (address: string) => boolean, resolve: Lookup = dnsLookup): Dispatcher {
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { ...options, all: true }, (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const refused = addresses.find((a) => !isAllowed(a.address));
      if (refused || addresses.length === 0)
        return callback(new AddressRefused(`${hostname} resolves to ${refused?.address ?? 'nothing'}`));
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  }) as unknown as Lookup;
  // safeFetch's own deadline bounds connecting too; idle connections to owners' sites are not kept long.
  const connector = buildConnector({ lookup, timeout: 120_000 });
  return new Agent({
    keepAliveTimeout: 4_000,
    connect: (options, callback) => {
      if (isIP(options.hostname) && !isAllowed(options.hostname)) {
        callback(new AddressRefused(`${options.hostname} is not allowed`), null);
        return;
      }
      return connector(options, callback);
    },
  }).compose(interceptors.decompress());
}

const agents = new Map<boolean, Dispatcher>();
/** The process's one guarded agent (or, with allowPrivate, its unguarded twin). */
export const guardedAgent = (allowPrivate: boolean): Dispatcher => {
  let agent = agents.get(allowPrivate);
  if (!agent) agents.set(allowPrivate, (agent = createGuardedAgent(allowPrivate ? () => true : isPublicAddress)));
  return agent;
};

/** The code AddressRefused carries, to find it in an error's chain of causes. */
export const ADDRESS_REFUSED_CODE = 'ERR_ADDRESS_REFUSED';

/** Whether a failed request was refused by the guard (anywhere in its chain of causes). */
export function refusedByGuard(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if ((e as NodeJS.ErrnoException).code === ADDRESS_REFUSED_CODE) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => (inner as NodeJS.ErrnoException).code === ADDRESS_REFUSED_CODE))
      return true;
  }
  return false;
}
