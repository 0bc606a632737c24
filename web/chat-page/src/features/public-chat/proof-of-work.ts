// Proof of work (ADR 19): when the chatbot asks for it, a new conversation's first message carries
// a solved ALTCHA v1 challenge, so a scripted flood costs its sender CPU. The solver is loaded only
// here, when it is needed; the payload is what altcha-lib's verifySolution reads: base64 of the JSON
// { algorithm, challenge, number, salt, signature }.
import { fetchChallenge, PublicChatError, SEND_MESSAGE_FAILED_MESSAGE, type Challenge, type RequestOptions } from './api/public-chat-api';

/** The payload for a solved challenge. */
export function proofOfWorkPayload({ algorithm, challenge, salt, signature }: Challenge, number: number): string {
  return btoa(JSON.stringify({ algorithm, challenge, number, salt, signature }));
}

/** Fetches a challenge for this chatbot and solves it; the payload to send as `proofOfWork`. */
export async function solveProofOfWork(uniqueId: string, options: RequestOptions = {}): Promise<string> {
  const challenge = await fetchChallenge(uniqueId, options);
  const { solveChallenge } = await import('altcha-lib/v1');
  const { promise, controller } = solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber);
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop);
  try {
    const solution = await promise;
    if (options.signal?.aborted) throw new DOMException('The visitor left', 'AbortError');
    if (!solution) throw new PublicChatError(SEND_MESSAGE_FAILED_MESSAGE);
    return proofOfWorkPayload(challenge, solution.number);
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
}
