// The audit log as the product shows it.
export interface AuditEventView {
  id: string;
  actorUserId: string;
  actorEmail: string;
  action: string;
  target: string;
  detailsJson: string;
  clientIp: string;
  createdAt: Date;
}

export const auditEventSelect = {
  id: true,
  actorUserId: true,
  actorEmail: true,
  action: true,
  target: true,
  details: true,
  clientIp: true,
  createdAt: true,
} as const;

export const toAuditEventView = (e: {
  id: string;
  actorUserId: string | null;
  actorEmail: string;
  action: string;
  target: string;
  details: unknown;
  clientIp: string;
  createdAt: Date;
}): AuditEventView => ({
  id: e.id,
  actorUserId: e.actorUserId ?? '',
  actorEmail: e.actorEmail,
  action: e.action,
  target: e.target,
  detailsJson: JSON.stringify(e.details ?? {}),
  clientIp: e.clientIp,
  createdAt: e.createdAt,
});

/** Newest first, and by id among entries of one millisecond, so that pages never skip nor repeat one. */
export const auditOrder = [{ createdAt: 'desc' }, { id: 'desc' }] as const;
