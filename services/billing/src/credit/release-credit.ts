// Releasing the credit hold of an answer that was not produced (the model failed, the visitor left):
// the hold is deleted and the owner's reservedCredit lowered by its amount, in one statement (the
// release_credit function: the owner's account row locked first, as every writer of money does).
import type { PrismaClient } from '../generated/prisma/client.ts';
import { requiredText } from '../core/usage-input.ts';

/**
 * False when there is no open hold under this request id: never held, already released, swept, or
 * settled by the answer's usage record. A hold deleted by two of these at once is deleted by one
 * statement only, and only that one lowers reservedCredit.
 */
export async function releaseCredit(deps: { prisma: PrismaClient }, rawRequestId: string): Promise<{ released: boolean }> {
  const requestId = requiredText(rawRequestId, 'request_id', 200);
  const [{ released }] = await deps.prisma.$queryRaw<{ released: boolean }[]>`SELECT release_credit(${requestId}) AS released`;
  return { released };
}
