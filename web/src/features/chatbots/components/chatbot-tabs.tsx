import type { ReactNode } from 'react';
import { LockIcon } from '../../../components/chatbots/chatbot-icons';
import { Badge } from '../../../components/ui/badge';

export const SETTINGS_TAB_ID = 'chatbot-tab-settings';
export const SETTINGS_PANEL_ID = 'chatbot-panel-settings';

/**
 * The detail page's tabs. Conversation history is not built yet, so its tab is shown locked with a
 * PRO badge for every plan; Settings is the only panel for now.
 */
export function ChatbotTabs({ children }: { children: ReactNode }) {
  return (
    <div>
      <div role="tablist" aria-label="Chatbot sections" className="flex gap-1 border-b border-gray-200">
        <button
          type="button"
          role="tab"
          id={SETTINGS_TAB_ID}
          aria-selected="true"
          aria-controls={SETTINGS_PANEL_ID}
          className="-mb-px border-b-2 border-brand-600 px-4 py-2.5 text-sm font-semibold text-brand-700"
        >
          Settings
        </button>
        <button
          type="button"
          role="tab"
          aria-selected="false"
          aria-disabled="true"
          disabled
          title="Conversation history is a Pro feature"
          className="-mb-px inline-flex cursor-not-allowed items-center gap-2 border-b-2 border-transparent px-4 py-2.5 text-sm font-medium text-gray-400"
        >
          <LockIcon className="size-3.5" />
          History
          <Badge tone="brand">PRO</Badge>
        </button>
      </div>
      <div role="tabpanel" id={SETTINGS_PANEL_ID} aria-labelledby={SETTINGS_TAB_ID} className="pt-6">
        {children}
      </div>
    </div>
  );
}
