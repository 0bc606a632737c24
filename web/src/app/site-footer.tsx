import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { LogoMark } from '../components/ui/logo';

function FooterColumn({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <h2 className="text-sm font-semibold text-gray-900">{title}</h2>
      <ul className="mt-3 space-y-2 text-sm">{children}</ul>
    </div>
  );
}

function FooterLink({ to, children }: { to: string; children: ReactNode }) {
  return (
    <li>
      <Link to={to} className="rounded-sm text-gray-600 hover:text-gray-900">
        {children}
      </Link>
    </li>
  );
}

export function SiteFooter() {
  const year = new Date().getFullYear();
  return (
    <footer className="border-t border-gray-200 bg-gray-50">
      <div className="mx-auto w-full max-w-6xl px-4 py-12 sm:px-6 lg:px-8">
        <div className="grid gap-10 sm:grid-cols-2 md:grid-cols-4">
          <div className="sm:col-span-2">
            <Link to="/" className="inline-flex items-center gap-2 rounded-md" aria-label="Parley home">
              <LogoMark className="size-7" />
              <span className="text-base font-semibold tracking-tight text-gray-900">Parley</span>
            </Link>
            <p className="mt-3 max-w-xs text-sm text-gray-600">Create and manage AI chatbots powered by OpenAI.</p>
          </div>
          <FooterColumn title="Quick Links">
            <FooterLink to="/dashboard">Dashboard</FooterLink>
            <FooterLink to="/usage">Usage Details</FooterLink>
            <FooterLink to="/pricing">Pricing</FooterLink>
          </FooterColumn>
          <FooterColumn title="Legal">
            <FooterLink to="/privacy">Privacy Policy</FooterLink>
            <FooterLink to="/terms">Terms of Service</FooterLink>
          </FooterColumn>
        </div>
        <p className="mt-10 border-t border-gray-200 pt-6 text-sm text-gray-500">&copy; {year} Parley. All rights reserved.</p>
      </div>
    </footer>
  );
}
