// What the contract tests of the chatbot's embed settings share: a new chatbot's settings as the
// owner reads them (REST and GraphQL alike), and the GraphQL selection of them.
export const DEFAULT_EMBED_SETTINGS = {
  appearance: { primaryColor: null, position: 'right', launcherLabel: '', hideBranding: false },
  allowedDomains: [],
  standalonePage: true,
  limits: { visitorMessagesPerDay: 100, dailySpendLimit: '5.00', proofOfWork: false },
};

export const EMBED_FIELDS =
  'appearance { primaryColor position launcherLabel hideBranding } allowedDomains standalonePage limits { visitorMessagesPerDay dailySpendLimit proofOfWork }';

/** A new chatbot's lead form (asking for nothing) and handoff (off, five minutes), REST and GraphQL alike (leads.test.ts has the rest). */
export const DEFAULT_LEAD_SETTINGS = {
  leadForm: { name: 'off', email: 'off', phone: 'off', trigger: 'before_first_message', afterMessages: 2, consentText: '' },
  handoff: { enabled: false, timeoutSeconds: 300 },
};

export const LEAD_SETTINGS_FIELDS = 'leadForm { name email phone trigger afterMessages consentText } handoff { enabled timeoutSeconds }';

export const MODEL_FIELDS = 'model { id displayName provider } fallbackModel { id displayName provider }';

/** A new chatbot's model (the catalogue's default) and fallback (none), REST and GraphQL alike (models.test.ts has the rest). */
export const DEFAULT_MODEL_SETTINGS = {
  model: { id: 'gpt-4o-mini', displayName: 'GPT-4o mini', provider: 'openai' },
  fallbackModel: null,
};
