import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge';
import { cn } from '../../../lib/cn';
import { hasPermission, ROLE_LABELS } from '../../../lib/workspace/roles';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useSwitchWorkspace } from '../hooks/use-switch-workspace';
import { CreateWorkspaceDialog } from './create-workspace-dialog';
import { CheckIcon, ChevronUpDownIcon, ListIcon, PlusIcon, UsersIcon, WebhookIcon } from './workspace-icons';

const itemClasses =
  'flex w-full items-center gap-3 rounded-lg px-3 py-2 text-left text-sm text-gray-700 hover:bg-gray-100 hover:text-gray-900';

/**
 * The header's workspace switcher: the workspace the app acts in, the others the user belongs to
 * with their role, the members, audit log and webhooks of the current one, and creating a new one.
 * A person in no workspace sees "No workspace" there, and creating one.
 */
export function WorkspaceSwitcher() {
  const workspace = useWorkspace();
  const switchTo = useSwitchWorkspace();
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    const closeOutside = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', closeOnEscape);
    document.addEventListener('mousedown', closeOutside);
    return () => {
      document.removeEventListener('keydown', closeOnEscape);
      document.removeEventListener('mousedown', closeOutside);
    };
  }, [open]);

  const { current, workspaces, noWorkspace } = workspace;
  if (!current && !noWorkspace) return null;

  function choose(id: string) {
    setOpen(false);
    if (id !== current?.id) void switchTo(id);
  }

  return (
    <div ref={root} className="relative min-w-0">
      <button
        type="button"
        className="flex h-9 max-w-full min-w-0 items-center gap-1.5 rounded-lg border border-gray-200 bg-white pr-2 pl-3 text-sm font-medium text-gray-800 shadow-xs hover:border-gray-300 hover:bg-gray-50"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="sr-only">Workspace: </span>
        <span className={cn('truncate', !current && 'text-gray-500')}>{current ? current.name : 'No workspace'}</span>
        <ChevronUpDownIcon className="size-4 shrink-0 text-gray-500" />
      </button>

      {open ? (
        <div
          id={panelId}
          className="fixed inset-x-4 top-16 z-50 rounded-xl border border-gray-200 bg-white p-2 shadow-lg sm:absolute sm:inset-x-auto sm:top-full sm:left-0 sm:mt-2 sm:w-72"
        >
          <p className="px-3 pt-1 pb-2 text-xs font-medium tracking-wide text-gray-500 uppercase">Workspaces</p>
          {!current ? <p className="px-3 pb-2 text-sm text-gray-600">You are not a member of any workspace.</p> : null}
          <ul className="space-y-0.5">
            {workspaces.map((w) => {
              const isCurrent = w.id === current?.id;
              return (
                <li key={w.id}>
                  <button
                    type="button"
                    className={cn(itemClasses, isCurrent && 'bg-brand-50')}
                    aria-current={isCurrent || undefined}
                    onClick={() => choose(w.id)}
                  >
                    <span className="flex size-4 shrink-0 items-center text-brand-600">{isCurrent ? <CheckIcon /> : null}</span>
                    <span className="min-w-0 flex-1 truncate font-medium">{w.name}</span>
                    <Badge tone={isCurrent ? 'brand' : 'neutral'}>{ROLE_LABELS[w.role]}</Badge>
                  </button>
                </li>
              );
            })}
          </ul>
          <div className="mt-2 space-y-0.5 border-t border-gray-100 pt-2">
            {current ? (
              <Link to="/workspace/members" className={itemClasses} onClick={() => setOpen(false)}>
                <UsersIcon className="size-4 shrink-0 text-gray-500" />
                Members
              </Link>
            ) : null}
            {hasPermission(current, 'audit:read') ? (
              <Link to="/workspace/audit-log" className={itemClasses} onClick={() => setOpen(false)}>
                <ListIcon className="size-4 shrink-0 text-gray-500" />
                Audit log
              </Link>
            ) : null}
            {hasPermission(current, 'members:manage') ? (
              <Link to="/workspace/security" className={itemClasses} onClick={() => setOpen(false)}>
                <ListIcon className="size-4 shrink-0 text-gray-500" />
                Security
              </Link>
            ) : null}
            {hasPermission(current, 'webhooks:manage') ? (
              <Link to="/workspace/webhooks" className={itemClasses} onClick={() => setOpen(false)}>
                <WebhookIcon className="size-4 shrink-0 text-gray-500" />
                Webhooks
              </Link>
            ) : null}
            <button
              type="button"
              className={itemClasses}
              onClick={() => {
                setOpen(false);
                setCreating(true);
              }}
            >
              <PlusIcon className="size-4 shrink-0 text-gray-500" />
              Create workspace
            </button>
          </div>
        </div>
      ) : null}

      {creating ? <CreateWorkspaceDialog onClose={() => setCreating(false)} /> : null}
    </div>
  );
}
