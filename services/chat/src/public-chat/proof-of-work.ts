// An invisible proof-of-work before a new conversation's first message (ADR 19), for a chatbot
// whose owner asks for it (limits.proofOfWork): the page fetches an ALTCHA challenge (v1, signed with
// this service's ALTCHA_HMAC_KEY, valid 10 minutes), the browser finds the number behind it (about
// 25,000 SHA-256 hashes on average, well under a second), and the message carries the solution. A
// scripted flood of new conversations thus costs its sender CPU for each one, while a conversation's
// later messages (its session id is this service's) need nothing more. Self-hosted: no third party.
//
// A solution is good once: its signature is remembered in Redis (SET NX) until the challenge expires.
// Missing, malformed, wrong, expired or reused: PERMISSION_DENIED "Please reload the page and try
// again." (reloading fetches a new challenge).
import { createChallenge, extractParams, verifySolution } from 'altcha-lib/v1';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { forbidden } from '@parley/common/rpc-errors.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';

export const PROOF_OF_WORK_FAILED = 'Please reload the page and try again.';
export const proofOfWorkFailed = () => forbidden(PROOF_OF_WORK_FAILED);

export const CHALLENGE_TTL_MS = 10 * 60_000;
/** The largest number to find: about 25,000 hashes on average, tens of milliseconds in a browser. */
export const CHALLENGE_MAX_NUMBER = 50_000;
/** A real payload (base64 JSON of five short fields) is about 400 characters. */
const MAX_PAYLOAD_CHARS = 2_000;

export interface Challenge {
  algorithm: string;
  challenge: string;
  maxNumber: number;
  salt: string;
  signature: string;
}

export interface ProofOfWork {
  challenge(): Promise<Challenge>;
  /**
   * Accepts a solved, unexpired challenge of this service once, or throws PERMISSION_DENIED with the
   * visitor's message. Redis failing throws its own error (the caller's "could not answer").
   */
  redeem(payload: string): Promise<void>;
}

/** The challenge's signature and expiry (ms) when the payload is well-formed, else null. */
function readPayload(payload: string): { signature: string; expiresAt: number } | null {
  try {
    const decoded = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { signature?: unknown };
    const expires = Number(extractParams(payload).expires);
    if (typeof decoded.signature !== 'string' || !/^[0-9a-f]{16,128}$/.test(decoded.signature) || !Number.isFinite(expires)) return null;
    return { signature: decoded.signature, expiresAt: expires * 1000 };
  } catch {
    return null;
  }
}

export function altchaProofOfWork(redis: Redis, opts: { prefix: string; hmacKey: string }): ProofOfWork {
  const keys = redisKeys(opts.prefix);
  return {
    async challenge() {
      const c = await createChallenge({
        hmacKey: opts.hmacKey,
        maxnumber: CHALLENGE_MAX_NUMBER,
        expires: new Date(Date.now() + CHALLENGE_TTL_MS),
      });
      return {
        algorithm: c.algorithm,
        challenge: c.challenge,
        maxNumber: c.maxnumber ?? CHALLENGE_MAX_NUMBER,
        salt: c.salt,
        signature: c.signature,
      };
    },
    async redeem(raw) {
      const payload = raw.trim();
      if (!payload || payload.length > MAX_PAYLOAD_CHARS) throw proofOfWorkFailed();
      // Every challenge of this service carries its expiry; one without could never expire, so it is refused.
      const read = readPayload(payload);
      if (!read) throw proofOfWorkFailed();
      // An unknown algorithm or a field of the wrong type throws inside the library: not solved either.
      const solved = await verifySolution(payload, opts.hmacKey, true).catch(() => false);
      const ttl = read.expiresAt - Date.now();
      if (!solved || ttl <= 0) throw proofOfWorkFailed();
      const first = await withRedisDeadline(redis.set(keys.chatLimitChallengeUsed(read.signature), '1', 'PX', Math.ceil(ttl), 'NX'));
      if (first !== 'OK') throw proofOfWorkFailed();
    },
  };
}
