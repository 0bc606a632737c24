import type { ReactNode } from 'react';
import { LogoMark } from '../../../components/ui/logo';

interface AuthCardProps {
  title: string;
  subtitle: ReactNode;
  children: ReactNode;
  footer: ReactNode;
}

/** The centred card shared by the login, registration and password pages. */
export function AuthCard({ title, subtitle, children, footer }: AuthCardProps) {
  return (
    <div className="flex flex-1 items-start justify-center bg-gray-50 px-4 py-12 sm:items-center sm:py-16">
      <div className="w-full max-w-md">
        <div className="mb-6 flex flex-col items-center text-center">
          <LogoMark className="size-10" />
          <h1 className="mt-4 text-2xl font-semibold tracking-tight text-gray-900">{title}</h1>
          <p className="mt-1.5 text-sm text-gray-600">{subtitle}</p>
        </div>
        <div className="rounded-2xl border border-gray-200 bg-white p-6 shadow-sm sm:p-8">{children}</div>
        <p className="mt-6 text-center text-sm text-gray-600">{footer}</p>
      </div>
    </div>
  );
}

export const textLinkClasses = 'font-medium text-brand-600 hover:text-brand-700 hover:underline underline-offset-2 rounded-sm';
