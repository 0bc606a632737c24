import { useId, type ReactNode } from 'react';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { cn } from '../../../lib/cn';

interface WorkspaceSectionProps {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
  tone?: 'default' | 'danger';
  className?: string;
  /** The body has no padding of its own: a list whose rows reach the card's edges. */
  flush?: boolean;
  children: ReactNode;
}

/** One card of the workspace pages, a named region so each part can be found by its title. */
export function WorkspaceSection({
  title,
  description,
  action,
  tone = 'default',
  className,
  flush = false,
  children,
}: WorkspaceSectionProps) {
  const titleId = useId();
  const danger = tone === 'danger';
  return (
    <Card role="region" aria-labelledby={titleId} className={cn(danger && 'border-red-200', className)}>
      <CardHeader
        title={
          <span id={titleId} className={danger ? 'text-red-700' : undefined}>
            {title}
          </span>
        }
        description={description}
        action={action}
      />
      {flush ? <div>{children}</div> : <CardBody>{children}</CardBody>}
    </Card>
  );
}
