// Recording an action a caller performed for a workspace (billing and plan changes the gateway
// starts, which auth does not see). The actor is a member, or empty for the system (a Stripe event).
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';
import { parseWorkspaceId, WORKSPACE_NOT_FOUND } from '../core/workspace.ts';
import { findMember, type ActorInput } from './access.ts';
import { recordAudit } from './audit.ts';

const ACTION = /^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/;
export const MAX_ACTION_LENGTH = 64;
export const MAX_TARGET_LENGTH = 256;
export const MAX_DETAILS_LENGTH = 4096;

export async function recordAuditEvent(
  db: PrismaClient,
  req: { actor: ActorInput; action: string; target: string; detailsJson: string },
): Promise<void> {
  if (!ACTION.test(req.action) || req.action.length > MAX_ACTION_LENGTH)
    throw invalid('action must be a dotted verb such as "billing.checkout_started"');
  if (hasControlCharacters(req.target) || req.target.length > MAX_TARGET_LENGTH) {
    throw invalid(`target must be at most ${MAX_TARGET_LENGTH} characters, without control characters`);
  }
  const details = parseDetails(req.detailsJson);

  const system = !req.actor.userId;
  const member = system ? undefined : await findMember(db, req.actor);
  const workspaceId = member?.workspace.id ?? parseWorkspaceId(req.actor.workspaceId);
  if (system && !(await db.workspace.count({ where: { id: workspaceId } }))) throw notFound(WORKSPACE_NOT_FOUND);
  await recordAudit(db, {
    workspaceId,
    actorUserId: member?.userId ?? null,
    actorEmail: member?.email ?? '',
    action: req.action,
    target: req.target,
    details,
    clientIp: req.actor.clientIp,
  });
}

function parseDetails(raw: string): Record<string, unknown> {
  if (!raw) return {};
  if (raw.length > MAX_DETAILS_LENGTH) throw invalid(`details_json must be at most ${MAX_DETAILS_LENGTH} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid('details_json must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('details_json must be a JSON object');
  return parsed as Record<string, unknown>;
}
