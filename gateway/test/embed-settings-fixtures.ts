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
