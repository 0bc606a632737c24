// Announces a workspace created besides a personal one on the workspace-created queue: billing opens
// its account from it, on the free plan without the starting credit (ADR 30).
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Producer } from '@parley/common/queues.ts';
import { WorkspaceCreatedSchema } from '@parley/proto/parley/events/v1/workspace_created_pb.js';

export type WorkspaceCreatedProducer = Producer<typeof WorkspaceCreatedSchema>;

export interface CreatedWorkspace {
  workspaceId: string;
  ownerUserId: string;
  createdAt: Date;
}

/** One job per workspace: BullMQ ignores a repeated job id, so a retried publish cannot duplicate it. */
export const workspaceCreatedJobId = (workspaceId: string) => `workspace-created.${workspaceId}`;

export async function publishWorkspaceCreated(producer: WorkspaceCreatedProducer, workspace: CreatedWorkspace): Promise<void> {
  const event = create(WorkspaceCreatedSchema, {
    workspaceId: workspace.workspaceId,
    ownerUserId: workspace.ownerUserId,
    occurredAt: timestampFromDate(workspace.createdAt),
  });
  // Fails after the kit's publish deadline, so a Redis outage cannot hang CreateWorkspace.
  await producer.publish(event, workspaceCreatedJobId(workspace.workspaceId));
}
