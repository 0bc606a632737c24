import { useEffect, useState } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router-dom';
import { Button } from '../components/ui/button';
import { ButtonLink } from '../components/ui/button-link';
import { LogoMark } from '../components/ui/logo';
import { NavButtonLink } from '../components/ui/nav-button-link';
import { InboxNavLink } from '../features/inbox/components/inbox-nav-link';
import { WorkspaceSwitcher } from '../features/workspace/components/workspace-switcher';
import { cn } from '../lib/cn';
import { useSession } from '../lib/session/session-context';
import { useCan } from '../lib/workspace/use-can';
import { useWorkspace } from '../lib/workspace/workspace-context';

function navLinkClasses({ isActive }: { isActive: boolean }) {
  return cn(
    'rounded-md px-3 py-2 text-sm font-medium transition-colors',
    isActive ? 'text-brand-700' : 'text-gray-600 hover:text-gray-900',
  );
}

const DASHBOARD_PAGES = ['/chatbots', '/usage'] as const;

export function SiteHeader() {
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [loggingOut, setLoggingOut] = useState(false);
  const readsLeads = useCan('conversations:read');
  // A person in no workspace has no API keys to manage, nor a workspace to call the API for.
  const { noWorkspace } = useWorkspace();

  // A navigation closes the small-screen menu.
  useEffect(() => setMenuOpen(false), [location.pathname]);

  useEffect(() => {
    if (!menuOpen) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpen(false);
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [menuOpen]);

  async function handleLogout() {
    setLoggingOut(true);
    try {
      await session.logout();
    } finally {
      setLoggingOut(false);
      setMenuOpen(false);
      navigate('/login');
    }
  }

  // While the stored session is being checked, neither set of buttons is shown, to avoid a flash of "Login".
  const actions = session.loading ? null : session.isAuthenticated ? (
    <>
      {/* The chatbots' pages and usage are reached from the dashboard and lead back to it. */}
      <NavButtonLink to="/dashboard" alsoCurrentFor={DASHBOARD_PAGES}>
        Dashboard
      </NavButtonLink>
      <InboxNavLink />
      {readsLeads ? <NavButtonLink to="/leads">Leads</NavButtonLink> : null}
      {noWorkspace ? null : <NavButtonLink to="/workspace/developers">Developers</NavButtonLink>}
      <NavButtonLink to="/account">Account</NavButtonLink>
      <Button variant="ghost" size="sm" onClick={handleLogout} busy={loggingOut}>
        Logout
      </Button>
    </>
  ) : (
    <>
      <ButtonLink to="/login" variant="ghost" size="sm">
        Login
      </ButtonLink>
      <ButtonLink to="/register" size="sm">
        Sign Up
      </ButtonLink>
    </>
  );

  return (
    <header className="sticky top-0 z-40 border-b border-gray-200 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/75">
      <div className="mx-auto flex h-16 w-full max-w-6xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <div className="flex min-w-0 items-center gap-3 sm:gap-6">
          <Link to="/" className="flex shrink-0 items-center gap-2 rounded-md" aria-label="Parley home">
            <LogoMark />
            <span className="text-lg font-semibold tracking-tight text-gray-900">Parley</span>
          </Link>
          {session.isAuthenticated ? <WorkspaceSwitcher /> : null}
          <nav aria-label="Main" className="hidden lg:block">
            <NavLink to="/pricing" className={navLinkClasses}>
              Pricing
            </NavLink>
          </nav>
        </div>

        <div className="hidden shrink-0 items-center gap-2 lg:flex">{actions}</div>

        <button
          type="button"
          className="inline-flex size-10 shrink-0 items-center justify-center rounded-lg text-gray-700 hover:bg-gray-100 lg:hidden"
          aria-expanded={menuOpen}
          aria-controls="mobile-menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span className="sr-only">{menuOpen ? 'Close menu' : 'Open menu'}</span>
          <svg className="size-6" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.75" aria-hidden="true">
            {menuOpen ? (
              <path strokeLinecap="round" d="M6 6l12 12M18 6L6 18" />
            ) : (
              <path strokeLinecap="round" d="M4 7h16M4 12h16M4 17h16" />
            )}
          </svg>
        </button>
      </div>

      {menuOpen ? (
        <div id="mobile-menu" className="border-t border-gray-200 bg-white px-4 pt-2 pb-4 lg:hidden">
          <nav aria-label="Main mobile" className="flex flex-col">
            <NavLink to="/pricing" className={navLinkClasses}>
              Pricing
            </NavLink>
          </nav>
          <div className="mt-3 grid grid-cols-2 gap-2 border-t border-gray-100 pt-3 [&>*]:w-full">{actions}</div>
        </div>
      ) : null}
    </header>
  );
}
