import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

/** The "← Back to …" link at the top of the chatbot pages, styled like the legal pages' one. */
export function BackLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Link to={to} className="inline-flex items-center gap-1.5 rounded-sm text-sm font-medium text-brand-600 hover:text-brand-700">
      <span aria-hidden="true">←</span> {children}
    </Link>
  );
}
