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
