import { useCallback, useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { cn } from '../../../lib/cn';
import { SETTINGS_SECTIONS, sectionAnchor, sectionFromHash, type SettingsSectionId } from '../settings-sections';

/**
 * The Settings tab is one page of sections, each with its own address (`#settings-voice`): a sticky
 * navigation beside them (a column on a desktop, a row that scrolls sideways on a phone) says which
 * one is in view and jumps to another. One page rather than a route per section keeps every form
 * one scroll or one find (Ctrl+F) away, and unsaved edits in one section in view of the others.
 */

/** Where a section's top must have passed, from the window's top, to count as the one being read. */
const READ_LINE_PX = 160;

/** The section in view, following the scroll; the one the address names at first. */
export function useActiveSection(enabled: boolean): [SettingsSectionId, (id: SettingsSectionId) => void] {
  const { hash } = useLocation();
  const [active, setActive] = useState<SettingsSectionId>(() => sectionFromHash(hash) ?? SETTINGS_SECTIONS[0].id);

  useEffect(() => {
    if (!enabled) return undefined;
    let frame = 0;
    const measure = () => {
      frame = 0;
      const atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
      let current: SettingsSectionId | null = null;
      for (const { id } of SETTINGS_SECTIONS) {
        const element = document.getElementById(sectionAnchor(id));
        // A hidden section (another tab is open) has no box: the choice stays as it was.
        if (!element || element.offsetParent === null) return;
        if (element.getBoundingClientRect().top <= READ_LINE_PX) current = id;
      }
      if (atBottom && window.scrollY > 0) current = SETTINGS_SECTIONS[SETTINGS_SECTIONS.length - 1].id;
      setActive(current ?? SETTINGS_SECTIONS[0].id);
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('resize', onScroll);
    return () => {
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('resize', onScroll);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [enabled]);

  return [active, setActive];
}

/** Brings the section the address names into view once it is on the page (the chatbot loads first). */
export function useScrollToLinkedSection(ready: boolean) {
  const { hash } = useLocation();
  useEffect(() => {
    const id = sectionFromHash(hash);
    if (!ready || !id) return;
    document.getElementById(sectionAnchor(id))?.scrollIntoView?.({ block: 'start' });
    // Only on arriving: later hash changes come from the navigation, which scrolls itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the hash read once the page is ready
  }, [ready]);
}

/** One section of the Settings tab: where its link in the navigation lands (below the sticky header and row). */
export function SettingsSection({ id, children }: { id: SettingsSectionId; children: ReactNode }) {
  const label = SETTINGS_SECTIONS.find((s) => s.id === id)?.label;
  return (
    <section id={sectionAnchor(id)} aria-label={label} tabIndex={-1} className="scroll-mt-36 outline-none lg:scroll-mt-24">
      {children}
    </section>
  );
}

/** The links to the sections; `layout` "column" beside them on a desktop, "row" above them on a phone. */
export function SettingsSectionNav({
  active,
  onChoose,
  layout,
}: {
  active: SettingsSectionId;
  onChoose: (id: SettingsSectionId) => void;
  layout: 'column' | 'row';
}) {
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const row = useRef<HTMLUListElement>(null);
  const [rowAtEnd, setRowAtEnd] = useState(false);
  const followRow = useCallback(() => {
    const list = row.current;
    if (list) setRowAtEnd(list.scrollLeft + list.clientWidth >= list.scrollWidth - 1);
  }, []);
  useEffect(() => {
    followRow();
    window.addEventListener('resize', followRow);
    return () => window.removeEventListener('resize', followRow);
  }, [followRow]);

  // The row scrolls sideways to keep the current section's link in sight (the page itself does not move).
  useEffect(() => {
    const list = row.current;
    const link = list?.querySelector<HTMLElement>('[aria-current="true"]');
    if (!list || !link) return;
    const left = link.offsetLeft - list.offsetLeft;
    if (left < list.scrollLeft || left + link.offsetWidth > list.scrollLeft + list.clientWidth - 32) {
      list.scrollTo?.({ left: Math.max(0, left - 16), behavior: 'smooth' });
    }
  }, [active]);

  const choose = useCallback(
    (event: MouseEvent<HTMLAnchorElement>, id: SettingsSectionId) => {
      // A new tab or window opens the address as a link would.
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      const section = document.getElementById(sectionAnchor(id));
      const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
      section?.scrollIntoView?.({ behavior: reduced ? 'auto' : 'smooth', block: 'start' });
      // Keyboard and screen reader users land in the section they chose.
      section?.focus({ preventScroll: true });
      onChoose(id);
      void navigate({ pathname, search, hash: sectionAnchor(id) }, { replace: true, preventScrollReset: true });
    },
    [navigate, onChoose, pathname, search],
  );

  const links = SETTINGS_SECTIONS.map(({ id, label }) => {
    const current = id === active;
    return (
      <li key={id} className={layout === 'row' ? 'shrink-0' : undefined}>
        <a
          href={`#${sectionAnchor(id)}`}
          aria-current={current ? 'true' : undefined}
          onClick={(event) => choose(event, id)}
          className={cn(
            'block rounded-lg text-sm transition-colors focus-visible:outline-2 focus-visible:outline-brand-500',
            layout === 'column' ? 'border-l-2 px-3 py-1.5' : 'px-3 py-1.5 whitespace-nowrap ring-1 ring-inset',
            layout === 'column' &&
              (current
                ? 'rounded-l-none border-brand-600 bg-brand-50 font-semibold text-brand-700'
                : 'rounded-l-none border-transparent font-medium text-gray-600 hover:border-gray-300 hover:text-gray-900'),
            layout === 'row' &&
              (current
                ? 'bg-brand-600 font-semibold text-white ring-brand-600'
                : 'bg-white font-medium text-gray-700 ring-gray-200 hover:bg-gray-50'),
          )}
        >
          {label}
        </a>
      </li>
    );
  });

  if (layout === 'column') {
    return (
      <nav aria-label="Settings sections" className="hidden lg:block">
        <p className="px-3 text-xs font-semibold tracking-wide text-gray-500 uppercase">Settings</p>
        <ul className="mt-2 space-y-0.5">{links}</ul>
      </nav>
    );
  }
  return (
    <nav
      aria-label="Settings sections"
      className="sticky top-16 z-30 -mx-4 mb-6 border-b border-gray-200 bg-white/95 py-2.5 backdrop-blur sm:-mx-6 lg:hidden"
    >
      {/* The row scrolls sideways; its right edge fades while more links lie beyond it. */}
      <ul
        ref={row}
        onScroll={followRow}
        className={cn(
          'flex gap-2 overflow-x-auto px-4 pb-0.5 sm:px-6 [&::-webkit-scrollbar]:hidden [scrollbar-width:none]',
          !rowAtEnd && '[mask-image:linear-gradient(to_right,black_80%,transparent)]',
        )}
      >
        {links}
      </ul>
    </nav>
  );
}
