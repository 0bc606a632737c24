import type { ComponentPropsWithRef, HTMLAttributes, ReactNode } from 'react';
import { cn } from '../../lib/cn';

export function Card({ className, ...rest }: ComponentPropsWithRef<'div'>) {
  return <div className={cn('rounded-2xl border border-gray-200 bg-white shadow-sm', className)} {...rest} />;
}

interface CardHeaderProps {
  title: ReactNode;
  description?: ReactNode;
  action?: ReactNode;
  /** Heading level of the title; defaults to h2. */
  as?: 'h2' | 'h3';
}

export function CardHeader({ title, description, action, as: Heading = 'h2' }: CardHeaderProps) {
  return (
    <div className="flex items-center justify-between gap-4 border-b border-gray-100 px-6 py-4">
      <div className="min-w-0">
        <Heading className="text-base font-semibold text-gray-900">{title}</Heading>
        {description ? <p className="mt-0.5 text-sm text-gray-500">{description}</p> : null}
      </div>
      {action ? <div className="shrink-0">{action}</div> : null}
    </div>
  );
}

export function CardBody({ className, ...rest }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('px-6 py-5', className)} {...rest} />;
}
