import type { ReactNode } from 'react';
import { WorkspaceEyebrow } from '../../../components/workspace/workspace-eyebrow';

/** The heading area of a workspace page: the workspace's name, the page's title and a line about it. */
export function WorkspacePageHeader({ title, subtitle, action }: { title: string; subtitle?: ReactNode; action?: ReactNode }) {
  return (
    <div className="mb-8 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
      <div className="min-w-0">
        <WorkspaceEyebrow />
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">{title}</h1>
        {subtitle ? <p className="mt-1 text-sm text-gray-600">{subtitle}</p> : null}
      </div>
      {action ? <div className="shrink-0">{action}</div> : null}
    </div>
  );
}
