import { useState } from 'react';
import type { ChatbotEmbedFragment } from '../../../gql/graphql';
import { useSession } from '../../../lib/session/session-context';
import { appearanceFormOf, type AppearanceForm } from '../embed-settings';
import { EmbedAppearanceCard } from './embed-appearance-card';
import { EmbedVisitorLimitsCard } from './embed-visitor-limits-card';
import { EmbedPlacementCard } from './embed-placement-card';
import { EmbedPreview } from './embed-preview';
import { EmbedSnippetCard } from './embed-snippet-card';
import { EmbedIdentityCard } from './embed-identity-card';

/** Revision of the saved appearance: the preview's chat panel reloads when it changes. */
function appearanceRevision(chatbot: ChatbotEmbedFragment): string {
  const { primaryColor, position, launcherLabel, hideBranding } = chatbot.appearance;
  return [primaryColor, position, launcherLabel, hideBranding].join('|');
}

/**
 * The Embed tab: the script tag for the owner's site, how the widget looks (with a live preview),
 * where the chat may run, what visitors may spend, and how signed-in visitors are verified. Each card saves only its own changed fields.
 */
export function EmbedTab({ chatbot, chatbotName }: { chatbot: ChatbotEmbedFragment; chatbotName: string }) {
  const { user } = useSession();
  const [appearance, setAppearance] = useState<AppearanceForm>(() => appearanceFormOf(chatbot));

  return (
    <div className="space-y-6">
      <EmbedSnippetCard uniqueId={chatbot.uniqueId} />
      <EmbedAppearanceCard
        chatbot={chatbot}
        form={appearance}
        onChange={(patch) => setAppearance((current) => ({ ...current, ...patch }))}
        onSaved={(saved) => setAppearance(appearanceFormOf(saved))}
        pro={user?.subscription === 'pro'}
        preview={
          <EmbedPreview
            uniqueId={chatbot.uniqueId}
            chatbotName={chatbotName}
            appearance={appearance}
            revision={appearanceRevision(chatbot)}
          />
        }
      />
      <EmbedPlacementCard chatbot={chatbot} />
      <EmbedVisitorLimitsCard chatbot={chatbot} />
      <EmbedIdentityCard chatbotId={chatbot.id} />
    </div>
  );
}
