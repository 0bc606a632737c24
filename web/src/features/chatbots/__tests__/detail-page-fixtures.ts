import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';

// The detail page's chatbot and knowledge entries as the gateway answers them: every
// entry carries its source and status, and the chatbot its voice and its embed settings.

export function sampleVoice(overrides: Record<string, unknown> = {}) {
  return {
    instructions: '',
    temperature: null as number | null,
    welcomeMessage: '',
    suggestedQuestions: [] as string[],
    noAnswerMessage: '',
    answerInVisitorLanguage: false,
    ...overrides,
  };
}

/** The Embed tab's fields with the product's defaults; `appearance`/`limits` overrides merge into them. */
export function sampleEmbed(
  overrides: { appearance?: Record<string, unknown>; limits?: Record<string, unknown>; [key: string]: unknown } = {},
) {
  const { appearance, limits, ...rest } = overrides;
  return {
    appearance: {
      __typename: 'Appearance' as const,
      primaryColor: null as string | null,
      position: 'right',
      launcherLabel: '',
      hideBranding: false,
      ...appearance,
    },
    allowedDomains: [] as string[],
    standalonePage: true,
    limits: {
      __typename: 'VisitorLimits' as const,
      visitorMessagesPerDay: 100 as number | null,
      dailySpendLimit: '5.00' as string | null,
      proofOfWork: false,
      ...limits,
    },
    ...rest,
  };
}

/** The lead form (every field off) and handoff (off, five minutes), as a new chatbot has them. */
export function sampleLeadSettings(overrides: { leadForm?: Record<string, unknown>; handoff?: Record<string, unknown> } = {}) {
  return {
    leadForm: {
      __typename: 'LeadForm' as const,
      name: 'off',
      email: 'off',
      phone: 'off',
      trigger: 'before_first_message',
      afterMessages: 2,
      consentText: '',
      ...overrides.leadForm,
    },
    handoff: { __typename: 'Handoff' as const, enabled: false, timeoutSeconds: 300, ...overrides.handoff },
  };
}

/** The model (the catalogue's default) and no fallback, as a new chatbot has them. */
export function sampleModelSettings() {
  return {
    model: { __typename: 'ChatbotModel' as const, id: 'gpt-4o-mini', displayName: 'GPT-4o mini', provider: 'openai' },
    fallbackModel: null as { __typename: 'ChatbotModel'; id: string; displayName: string; provider: string } | null,
  };
}

/** Privacy off, no pattern, as a new chatbot has it. */
export function samplePrivacy(overrides: Record<string, unknown> = {}) {
  return {
    privacy: { __typename: 'Privacy' as const, redactPersonalData: false, keepOriginal: false, patterns: [] as string[], ...overrides },
  };
}

/** An offered model as the models query answers it. */
export function sampleModel(id: string, displayName: string, provider: string, typicalAnswerCost: string, allowed = true) {
  return { __typename: 'Model' as const, id, displayName, provider, typicalAnswerCost, allowed, isDefault: id === 'gpt-4o-mini' };
}

/** What a free workspace may choose from: two models on every plan, one on Pro. */
export const FREE_PLAN_MODELS = [
  sampleModel('gpt-4o-mini', 'GPT-4o mini', 'openai', '0.00048'),
  sampleModel('claude-haiku-4-5', 'Claude Haiku 4.5', 'anthropic', '0.0035'),
  sampleModel('claude-sonnet-4-5', 'Claude Sonnet 4.5', 'anthropic', '0.0105', false),
];

export function detailChatbot(overrides: Record<string, unknown> = {}) {
  const { appearance, limits, leadForm, handoff, privacy, ...rest } = overrides as {
    appearance?: Record<string, unknown>;
    limits?: Record<string, unknown>;
    leadForm?: Record<string, unknown>;
    handoff?: Record<string, unknown>;
    privacy?: Record<string, unknown>;
  };
  return sampleChatbot({
    ...sampleVoice(),
    ...sampleEmbed({ appearance, limits }),
    ...sampleLeadSettings({ leadForm, handoff }),
    ...sampleModelSettings(),
    ...samplePrivacy(privacy),
    ...rest,
  });
}

export interface EntryOverrides {
  id: string;
  content?: string;
  title?: string;
  source?: { type: string; name?: string | null; url?: string | null };
  status?: string;
  error?: string | null;
  question?: string | null;
  autoSync?: boolean;
  lastSyncedAt?: string | null;
  lastSyncChanged?: boolean | null;
}

export function sampleEntry({ source = { type: 'text' }, content = '', ...rest }: EntryOverrides) {
  return {
    __typename: 'TextEntry' as const,
    title: content.split(/\s+/).slice(0, 5).join(' '),
    content,
    createdAt: '2025-03-06T10:00:00.000Z',
    updatedAt: '2025-03-06T10:00:00.000Z',
    source: { __typename: 'EntrySource' as const, type: source.type, name: source.name ?? null, url: source.url ?? null },
    status: 'ready',
    error: null as string | null,
    question: null as string | null,
    autoSync: false,
    lastSyncedAt: null as string | null,
    lastSyncChanged: null as boolean | null,
    ...rest,
  };
}

export function knowledgeBaseOf(entries: EntryOverrides[] = []) {
  const all = entries.map(sampleEntry);
  return {
    __typename: 'KnowledgeBase' as const,
    text: all
      .filter((e) => e.status === 'ready')
      .map((e) => e.content)
      .join('\n\n'),
    textEntries: all,
  };
}

/** The answer of addUrlEntry, addQaEntry, refreshTextEntry and setTextEntryAutoSync. */
export function entryResult(entry: EntryOverrides, knowledgeBase: ReturnType<typeof knowledgeBaseOf>) {
  return { __typename: 'TextEntryResult' as const, entry: sampleEntry(entry), knowledgeBase };
}

function monthlyCost(totalCost: string) {
  return { __typename: 'UsageReport', overallUsage: { __typename: 'UsageTotals', totalCost } };
}

/** A chatbot's quality settings as the gateway gives them: the defaults, `overrides` merged in. */
export function qualitySettingsOf(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'QualitySettings',
    judgeEnabled: false,
    judgeModelId: null,
    rubric: [
      'Faithful: everything the answer states is supported by the cited passages.',
      'Answers the question: the answer addresses what was asked.',
      'Tone: the answer is polite, clear and concise.',
    ],
    emailOnRegression: false,
    ...overrides,
  };
}

/** Opens /chatbots/c1 signed in, the chatbot holding `knowledgeBase`; `handlers` add or replace answers. */
export function openDetail(
  knowledgeBase: ReturnType<typeof knowledgeBaseOf> = knowledgeBaseOf(),
  handlers: Record<string, Handler> = {},
  chatbot: Record<string, unknown> = {},
) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: sampleUser } }),
    Chatbots: () => ({ data: { chatbots: [sampleChatbot()] } }),
    Chatbot: () => ({ data: { chatbot: { ...detailChatbot(chatbot), knowledgeBase } } }),
    ChatbotMonthlyCost: () => ({ data: { usage: monthlyCost('0.0123456') } }),
    Models: () => ({ data: { models: FREE_PLAN_MODELS } }),
    TestCases: () => ({ data: { testCases: [] } }),
    TestRuns: () => ({ data: { testRuns: [] } }),
    QualitySettings: () => ({ data: { qualitySettings: qualitySettingsOf() } }),
    ProposedTestCases: () => ({ data: { proposedTestCases: [] } }),
    ChannelConnections: () => ({ data: { channelConnections: [] } }),
    ...handlers,
  });
  return { ...mock, ...renderApp('/chatbots/c1', mock.link) };
}
