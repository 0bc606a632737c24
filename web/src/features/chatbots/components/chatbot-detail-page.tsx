import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { ButtonLink } from '../../../components/ui/button-link';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useSession } from '../../../lib/session/session-context';
import { ROLE_LABELS } from '../../../lib/workspace/roles';
import { useCan } from '../../../lib/workspace/use-can';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { ChatbotQuery } from '../graphql/chatbot-query';
import { useKnowledgePolling } from '../hooks/use-knowledge-polling';
import { AnalyticsTab } from './analytics-tab';
import { BasicSettingsForm } from './basic-settings-form';
import { BotVoiceForm } from './bot-voice-form';
import { ChatbotProfileCard } from './chatbot-profile-card';
import { chatbotTabLabels, ChatbotTabs, type ChatbotTab } from './chatbot-tabs';
import { ConversationHistory } from './conversation-history';
import { EmbedTab } from './embed-tab';
import { HandoffSettingsCard } from './handoff-settings-card';
import { PrivacySettingsCard } from './privacy-settings-card';
import { ModelSettingsCard } from './model-settings-card';
import { LeadFormSettingsCard } from './lead-form-settings-card';
import { TestsSection } from './tests-section';
import { knowledgeEntries } from '../test-case-form';
import { KnowledgeBaseContent } from './knowledge-base-content';
import { KnowledgeBaseForm } from './knowledge-base-form';
import { ChannelsCard } from './channels-card';
import { McpServersCard } from './mcp-servers-card';
import { ActionsCard } from './actions-card';
import { SettingsSection, SettingsSectionNav, useActiveSection, useScrollToLinkedSection } from './settings-sections';

export const LOAD_CHATBOT_FAILED_MESSAGE = 'Failed to load chatbot';

/** In place of the forms, for a member whose role reads chatbots but does not change them. */
function ReadOnlyNotice({ role, readsConversations }: { role: string | null; readsConversations: boolean }) {
  const who = role ? `As ${/^[AEIOU]/.test(role) ? 'an' : 'a'} ${role}, you` : 'You';
  return (
    <Alert tone="info">
      {who} can read this chatbot{readsConversations ? ', its analytics and conversations' : ' and its analytics'}, but not change its
      settings. An editor, admin or owner of the workspace can.
    </Alert>
  );
}

export function ChatbotDetailPage() {
  const { id = '' } = useParams();
  // ?conversation=<id> (a lead's "Open conversation") opens that conversation in the History tab.
  const [searchParams] = useSearchParams();
  const linkedConversation = searchParams.get('conversation');
  const { user } = useSession();
  // A role below editor reads the chatbot: its settings, knowledge and embed forms are not shown.
  const canWrite = useCan('chatbots:write');
  const readsConversations = useCan('conversations:read');
  const { current: workspace } = useWorkspace();
  // Cached data shows at once; the network answer brings fresh interaction counts and dates.
  const { data, error, loading, startPolling, stopPolling } = useQuery(ChatbotQuery, {
    variables: { id },
    fetchPolicy: 'cache-and-network',
  });
  const chatbot = data?.chatbot;
  useKnowledgePolling(chatbot?.knowledgeBase, startPolling, stopPolling);
  const [tab, setTab] = useState<ChatbotTab>('settings');
  // "Embed · Acme Support — Parley": the open tab first, then the chatbot (its public page is "Acme Support — Parley").
  useDocumentTitle(chatbot ? `${chatbotTabLabels[tab]} · ${chatbot.name}` : 'Chatbot');
  // The Settings tab's sections and the one in view (only an editor and above has them).
  const sectioned = Boolean(chatbot) && canWrite && tab === 'settings';
  const [activeSection, setActiveSection] = useActiveSection(sectioned);
  useScrollToLinkedSection(sectioned);

  return (
    <PageContainer className="py-8 sm:py-10">
      <ButtonLink to="/dashboard" variant="secondary" size="sm">
        <span aria-hidden="true">←</span> Back to Dashboard
      </ButtonLink>

      {!chatbot && loading ? (
        <div className="flex justify-center py-24 text-brand-600">
          <Spinner className="size-8" label="Loading chatbot" />
        </div>
      ) : null}

      {!chatbot && !loading && error ? <Alert className="mt-6">{graphqlErrorMessage(error) ?? LOAD_CHATBOT_FAILED_MESSAGE}</Alert> : null}

      {chatbot ? (
        <>
          <h1 className="mt-6 text-2xl font-semibold tracking-tight break-words text-gray-900 sm:text-3xl">{chatbot.name}</h1>
          <div className="mt-6 grid items-start gap-6 lg:grid-cols-3">
            {/* The column stretches the whole row, so the sections' navigation under the card stays in view. */}
            <div className="space-y-6 self-stretch">
              <ChatbotProfileCard chatbot={chatbot} readOnly={!canWrite} />
              {sectioned ? (
                <div className="sticky top-24 hidden lg:block">
                  <SettingsSectionNav layout="column" active={activeSection} onChoose={setActiveSection} />
                </div>
              ) : null}
            </div>
            <div className="min-w-0 lg:col-span-2">
              <ChatbotTabs
                historyLocked={user?.subscription !== 'pro'}
                historyHidden={!readsConversations}
                onTabChange={setTab}
                initialTab={linkedConversation ? 'history' : 'settings'}
                settings={
                  !canWrite ? (
                    <ReadOnlyNotice role={workspace ? ROLE_LABELS[workspace.role] : null} readsConversations={readsConversations} />
                  ) : (
                    <>
                      <SettingsSectionNav layout="row" active={activeSection} onChoose={setActiveSection} />
                      <div className="space-y-6">
                        <SettingsSection id="basic">
                          <BasicSettingsForm key={chatbot.id} chatbot={chatbot} />
                        </SettingsSection>
                        <SettingsSection id="voice">
                          <BotVoiceForm key={`voice-${chatbot.id}`} chatbot={chatbot} />
                        </SettingsSection>
                        <SettingsSection id="model">
                          <ModelSettingsCard key={`model-${chatbot.id}`} chatbot={chatbot} />
                        </SettingsSection>
                        <SettingsSection id="lead-form">
                          <LeadFormSettingsCard key={`lead-form-${chatbot.id}`} chatbot={chatbot} />
                        </SettingsSection>
                        <SettingsSection id="handoff">
                          <HandoffSettingsCard key={`handoff-${chatbot.id}`} chatbot={chatbot} pro={user?.subscription === 'pro'} />
                        </SettingsSection>
                        <SettingsSection id="privacy">
                          <PrivacySettingsCard key={`privacy-${chatbot.id}`} chatbot={chatbot} />
                        </SettingsSection>
                        <SettingsSection id="channels">
                          <ChannelsCard chatbotId={chatbot.id} />
                        </SettingsSection>
                        <SettingsSection id="actions">
                          <ActionsCard chatbotId={chatbot.id} />
                        </SettingsSection>
                        <SettingsSection id="tools">
                          <McpServersCard chatbotId={chatbot.id} />
                        </SettingsSection>
                        <SettingsSection id="knowledge">
                          <KnowledgeBaseForm chatbotId={chatbot.id} />
                        </SettingsSection>
                        <SettingsSection id="entries">
                          <KnowledgeBaseContent chatbotId={chatbot.id} knowledgeBase={chatbot.knowledgeBase} />
                        </SettingsSection>
                        <SettingsSection id="tests">
                          <TestsSection
                            chatbotId={chatbot.id}
                            entries={knowledgeEntries(chatbot.knowledgeBase)}
                            current={{ model: chatbot.model, instructions: chatbot.instructions, temperature: chatbot.temperature }}
                          />
                        </SettingsSection>
                      </div>
                    </>
                  )
                }
                embed={
                  !canWrite ? (
                    <ReadOnlyNotice role={workspace ? ROLE_LABELS[workspace.role] : null} readsConversations={readsConversations} />
                  ) : (
                    <EmbedTab key={chatbot.id} chatbot={chatbot} chatbotName={chatbot.name} />
                  )
                }
                analytics={(open) => <AnalyticsTab key={chatbot.id} chatbotId={chatbot.id} open={open} />}
                history={(open) => (
                  <ConversationHistory
                    key={chatbot.id}
                    chatbotId={chatbot.id}
                    chatbotName={chatbot.name}
                    open={open}
                    initialConversationId={linkedConversation}
                  />
                )}
              />
            </div>
          </div>
        </>
      ) : null}
    </PageContainer>
  );
}
