import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { LockIcon } from '../../../components/chatbots/chatbot-icons';
import { Badge } from '../../../components/ui/badge';
import { cn } from '../../../lib/cn';

export type ChatbotTab = 'settings' | 'embed' | 'analytics' | 'history';

const tabIds: Record<ChatbotTab, { tab: string; panel: string }> = {
  settings: { tab: 'chatbot-tab-settings', panel: 'chatbot-panel-settings' },
  embed: { tab: 'chatbot-tab-embed', panel: 'chatbot-panel-embed' },
  analytics: { tab: 'chatbot-tab-analytics', panel: 'chatbot-panel-analytics' },
  history: { tab: 'chatbot-tab-history', panel: 'chatbot-panel-history' },
};

const tabClasses = '-mb-px inline-flex items-center gap-2 border-b-2 px-2.5 py-2.5 sm:px-4 text-sm transition-colors';

interface ChatbotTabsProps {
  settings: ReactNode;
  /** The Embed tab; mounted once first shown (its preview loads the chat page). */
  embed: ReactNode;
  /** Rendered with whether the Analytics tab is open, so it loads only once it is. */
  analytics: (open: boolean) => ReactNode;
  /** Rendered with whether the History tab is open, so it loads only once it is. */
  history: (open: boolean) => ReactNode;
  /** Conversation history is a Pro feature: other plans see the tab locked with a PRO badge. */
  historyLocked: boolean;
  /** A role that does not read conversations (a viewer) has no History tab at all. */
  historyHidden?: boolean;
  /** Told which tab is open, first and on every change (the page names the browser tab after it). */
  onTabChange?: (tab: ChatbotTab) => void;
  /** The tab open first (a link to a conversation opens History); Settings when it is not there. */
  initialTab?: ChatbotTab;
}

export const chatbotTabLabels: Record<ChatbotTab, string> = {
  settings: 'Settings',
  embed: 'Embed',
  analytics: 'Analytics',
  history: 'History',
};

/**
 * The detail page's tabs, Settings (the default), Embed, Analytics and History. Every panel stays mounted
 * once shown, so unsaved settings, the chosen range and the opened conversation survive switching.
 */
export function ChatbotTabs({
  settings,
  embed,
  analytics,
  history,
  historyLocked,
  historyHidden = false,
  onTabChange,
  initialTab = 'settings',
}: ChatbotTabsProps) {
  const tabs: ChatbotTab[] =
    historyLocked || historyHidden ? ['settings', 'embed', 'analytics'] : ['settings', 'embed', 'analytics', 'history'];
  const first = tabs.includes(initialTab) ? initialTab : 'settings';
  const [active, setActive] = useState<ChatbotTab>(first);
  const [shown, setShown] = useState<ReadonlySet<ChatbotTab>>(() => new Set(['settings', first]));
  const tabRefs = useRef<Partial<Record<ChatbotTab, HTMLButtonElement | null>>>({});

  useEffect(() => {
    onTabChange?.(active);
  }, [active, onTabChange]);

  function select(tab: ChatbotTab) {
    setActive(tab);
    setShown((before) => (before.has(tab) ? before : new Set([...before, tab])));
  }

  // Arrow keys move between the tabs, as in any tab list.
  function handleKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0 || tabs.length < 2) return;
    event.preventDefault();
    const next = tabs[(tabs.indexOf(active) + step + tabs.length) % tabs.length];
    select(next);
    tabRefs.current[next]?.focus();
  }

  function tabProps(tab: ChatbotTab) {
    const selected = active === tab;
    return {
      ref: (element: HTMLButtonElement | null) => {
        tabRefs.current[tab] = element;
      },
      type: 'button' as const,
      role: 'tab',
      id: tabIds[tab].tab,
      'aria-selected': selected,
      'aria-controls': tabIds[tab].panel,
      tabIndex: selected ? 0 : -1,
      onClick: () => select(tab),
      className: cn(
        tabClasses,
        selected
          ? 'border-brand-600 font-semibold text-brand-700'
          : 'border-transparent font-medium text-gray-600 hover:border-gray-300 hover:text-gray-900',
      ),
    };
  }

  return (
    <div>
      <div className="flex flex-wrap items-center justify-between gap-x-4 border-b border-gray-200">
        <div role="tablist" aria-label="Chatbot sections" className="flex gap-1" onKeyDown={handleKeyDown}>
          <button {...tabProps('settings')}>{chatbotTabLabels.settings}</button>
          <button {...tabProps('embed')}>{chatbotTabLabels.embed}</button>
          <button {...tabProps('analytics')}>{chatbotTabLabels.analytics}</button>
          {historyHidden ? null : historyLocked ? (
            <button
              type="button"
              role="tab"
              id={tabIds.history.tab}
              aria-selected="false"
              aria-disabled="true"
              aria-describedby="chatbot-history-locked-hint"
              disabled
              title="Conversation history is a Pro feature"
              className={cn(tabClasses, 'cursor-not-allowed border-transparent font-medium text-gray-400')}
            >
              <LockIcon className="size-3.5" />
              History
              <Badge tone="brand">PRO</Badge>
            </button>
          ) : (
            <button {...tabProps('history')}>{chatbotTabLabels.history}</button>
          )}
        </div>
        {historyLocked && !historyHidden ? (
          <p id="chatbot-history-locked-hint" className="py-2 text-xs text-gray-500">
            <Link to="/pricing" className="font-medium text-brand-700 hover:text-brand-800 hover:underline">
              Upgrade to Pro
            </Link>{' '}
            to see your chatbot's conversations.
          </p>
        ) : null}
      </div>
      <div role="tabpanel" id={tabIds.settings.panel} aria-labelledby={tabIds.settings.tab} hidden={active !== 'settings'} className="pt-6">
        {settings}
      </div>
      <div role="tabpanel" id={tabIds.embed.panel} aria-labelledby={tabIds.embed.tab} hidden={active !== 'embed'} className="pt-6">
        {shown.has('embed') ? embed : null}
      </div>
      <div
        role="tabpanel"
        id={tabIds.analytics.panel}
        aria-labelledby={tabIds.analytics.tab}
        hidden={active !== 'analytics'}
        className="pt-6"
      >
        {shown.has('analytics') ? analytics(active === 'analytics') : null}
      </div>
      {!historyLocked && !historyHidden ? (
        <div role="tabpanel" id={tabIds.history.panel} aria-labelledby={tabIds.history.tab} hidden={active !== 'history'} className="pt-6">
          {shown.has('history') ? history(active === 'history') : null}
        </div>
      ) : null}
    </div>
  );
}
