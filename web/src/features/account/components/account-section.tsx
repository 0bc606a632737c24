import { useId, type ReactNode } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { cn } from '../../../lib/cn';

interface AccountSectionProps {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
  /** The danger zone (deleting the account) is framed in red. */
  tone?: 'default' | 'danger';
  className?: string;
  children: ReactNode;
}

/** One card of the account page, a named region so each form can be found by its title. */
export function AccountSection({ title, description, action, tone = 'default', className, children }: AccountSectionProps) {
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
      <CardBody>{children}</CardBody>
    </Card>
  );
}

/** The error, or the success banner, a form shows above its fields. */
export function FormOutcome({ error, success }: { error: string | null; success?: string | null }) {
  if (error) return <Alert>{error}</Alert>;
  if (success) return <Alert tone="success">{success}</Alert>;
  return null;
}
