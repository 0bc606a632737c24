// The webhook events a workspace's endpoints may subscribe to (docs/adr/0032-webhooks.md), in ONE
// place: each type's version, what it means, the JSON Schema of its `data` (what an OpenAPI document
// of the webhooks reuses as is) and an example (what a test delivery sends). The services that
// publish an event (chat, billing, the chatbot service) build its data with `webhookEvent`, typed by
// WebhookEventData; the chatbot service checks the data against the schema before fanning it out.
// Adding a type is one entry here (and its data's interface below).
//
// A delivery's body is the envelope `{ "type", "version", "timestamp", "data" }`.

type JsonSchema = {
  type: 'object' | 'string' | 'integer' | 'boolean' | 'number';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  enum?: readonly string[];
  format?: 'date-time' | 'uuid';
  additionalProperties?: boolean;
};

const string = (description: string, extra: Partial<JsonSchema> = {}): JsonSchema => ({ type: 'string', description, ...extra });
const object = (properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const chatbotId = string('The chatbot.', { format: 'uuid' });
const conversationId = string('The conversation: the visitor session id of the public chat.');
const entryId = string('The knowledge entry.', { format: 'uuid' });
const at = (description: string) => string(description, { format: 'date-time' });
const EXAMPLE_CHATBOT = '3f6c1a52-6a1e-4c55-9b0e-7f3f4c2a9d10';
const EXAMPLE_ENTRY = '0b7e2d7e-2b43-4b8e-a0c5-1c2f3e4d5a6b';
const EXAMPLE_AT = '2026-01-15T09:30:00.000Z';

/** The catalogue: one entry per event type, in the order the product lists them. */
export const WEBHOOK_EVENTS = {
  'conversation.started': {
    version: 1,
    description: "A visitor's first answered message opened a conversation with a chatbot.",
    schema: object({ chatbotId, conversationId, startedAt: at('When its first message arrived.') }),
    example: { chatbotId: EXAMPLE_CHATBOT, conversationId: 'b1d2c3e4-0000-4000-8000-000000000001', startedAt: EXAMPLE_AT },
  },
  'message.created': {
    version: 1,
    description: "A visitor's message was answered (or found no answer in the knowledge).",
    schema: object({
      chatbotId,
      conversationId,
      requestId: string("The message's request id (the public chat's id of the exchange; not the stored message id feedback carries)."),
      question: string("The visitor's message."),
      answered: { type: 'boolean', description: 'False when the knowledge held no answer.' },
      language: string('The language of the question, when detected ("" otherwise).'),
      createdAt: at('When the message arrived.'),
    }),
    example: {
      chatbotId: EXAMPLE_CHATBOT,
      conversationId: 'b1d2c3e4-0000-4000-8000-000000000001',
      requestId: 'c0ffee00-0000-4000-8000-000000000002',
      question: 'Can I return an item after 30 days?',
      answered: true,
      language: 'english',
      createdAt: EXAMPLE_AT,
    },
  },
  'feedback.created': {
    version: 1,
    description: 'A visitor rated an answer (thumbs up or down), or changed their rating.',
    schema: object({
      chatbotId,
      conversationId,
      messageId: string("The rated answer's id, as the public chat gave it to the visitor."),
      rating: string('The rating.', { enum: ['up', 'down'] }),
      createdAt: at('When the rating was given.'),
    }),
    example: {
      chatbotId: EXAMPLE_CHATBOT,
      conversationId: 'b1d2c3e4-0000-4000-8000-000000000001',
      messageId: '42',
      rating: 'up',
      createdAt: EXAMPLE_AT,
    },
  },
  'lead.created': {
    version: 1,
    description: "A visitor left their contact in the chat's lead form (or their email when nobody answered a handoff).",
    schema: object({
      chatbotId,
      conversationId,
      leadId: string('The lead.', { format: 'uuid' }),
      name: string('The name given; "" when not asked or not given.'),
      email: string('The email given; "" when not asked or not given.'),
      phone: string('The phone number given; "" when not asked or not given.'),
      consented: { type: 'boolean', description: "The visitor ticked the owner's consent line." },
      source: string('Which form.', { enum: ['form', 'handoff_timeout'] }),
      createdAt: at('When the lead was left.'),
    }),
    example: {
      chatbotId: EXAMPLE_CHATBOT,
      conversationId: 'b1d2c3e4-0000-4000-8000-000000000001',
      leadId: '7d1e5b0a-3c2f-4e8a-9b6d-2a1c0f9e8d7c',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '',
      consented: true,
      source: 'form',
      createdAt: EXAMPLE_AT,
    },
  },
  'handoff.requested': {
    version: 1,
    description: 'A visitor asked for a person: the conversation waits in the live inbox (once per conversation).',
    schema: object({
      chatbotId,
      conversationId,
      requestedAt: at('When the visitor asked.'),
      lastMessage: string('The visitor\'s latest message (at most 200 characters); "" when none.'),
    }),
    example: {
      chatbotId: EXAMPLE_CHATBOT,
      conversationId: 'b1d2c3e4-0000-4000-8000-000000000001',
      requestedAt: EXAMPLE_AT,
      lastMessage: 'I need to change the address of my order.',
    },
  },
  'knowledge.entry.ready': {
    version: 1,
    description: 'A file or web page became knowledge a chatbot answers from.',
    schema: object({
      chatbotId,
      entryId,
      title: string("The entry's title."),
      source: string('Where it came from.', { enum: ['file', 'url'] }),
    }),
    example: { chatbotId: EXAMPLE_CHATBOT, entryId: EXAMPLE_ENTRY, title: 'Returns policy', source: 'url' },
  },
  'knowledge.entry.failed': {
    version: 1,
    description: 'A file or web page could not become knowledge.',
    schema: object({
      chatbotId,
      entryId,
      title: string("The entry's title."),
      source: string('Where it came from.', { enum: ['file', 'url'] }),
      error: string('Why, in the words the dashboard shows.'),
    }),
    example: {
      chatbotId: EXAMPLE_CHATBOT,
      entryId: EXAMPLE_ENTRY,
      title: 'catalogue.pdf',
      source: 'file',
      error: 'This PDF is password-protected',
    },
  },
  'credit.low': {
    version: 1,
    description: "The workspace's available credit fell below the low-credit threshold (once per crossing).",
    schema: object({
      balance: string('Available credit in dollars, an exact decimal string.'),
      threshold: string('The threshold it fell below, in dollars.'),
    }),
    example: { balance: '0.42', threshold: '0.50' },
  },
  'plan.changed': {
    version: 1,
    description: "The workspace's plan changed (a subscription started, renewed into another plan or ended).",
    schema: object({
      plan: string('The plan now.', { enum: ['free', 'pro'] }),
      previousPlan: string('The plan before.', { enum: ['free', 'pro'] }),
    }),
    example: { plan: 'pro', previousPlan: 'free' },
  },
} as const satisfies Record<string, { version: number; description: string; schema: JsonSchema; example: Record<string, unknown> }>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];

/** The data of each type, as its schema says (a test checks each example against both). */
export interface WebhookEventData {
  'conversation.started': { chatbotId: string; conversationId: string; startedAt: string };
  'message.created': {
    chatbotId: string;
    conversationId: string;
    requestId: string;
    question: string;
    answered: boolean;
    language: string;
    createdAt: string;
  };
  'feedback.created': { chatbotId: string; conversationId: string; messageId: string; rating: 'up' | 'down'; createdAt: string };
  'lead.created': {
    chatbotId: string;
    conversationId: string;
    leadId: string;
    name: string;
    email: string;
    phone: string;
    consented: boolean;
    source: 'form' | 'handoff_timeout';
    createdAt: string;
  };
  'handoff.requested': { chatbotId: string; conversationId: string; requestedAt: string; lastMessage: string };
  'knowledge.entry.ready': { chatbotId: string; entryId: string; title: string; source: 'file' | 'url' };
  'knowledge.entry.failed': { chatbotId: string; entryId: string; title: string; source: 'file' | 'url'; error: string };
  'credit.low': { balance: string; threshold: string };
  'plan.changed': { plan: 'free' | 'pro'; previousPlan: 'free' | 'pro' };
}

export function isWebhookEventType(value: string): value is WebhookEventType {
  return Object.hasOwn(WEBHOOK_EVENTS, value);
}

/** An event as publishers hand it over (the WebhookEvent proto's fields, data not yet JSON). */
export interface WebhookEventInput<T extends WebhookEventType = WebhookEventType> {
  /** Unique per event, stable across its publisher's retries. */
  id: string;
  ownerId: string;
  type: T;
  occurredAt: Date;
  data: WebhookEventData[T];
}

export function webhookEvent<T extends WebhookEventType>(
  type: T,
  fields: { id: string; ownerId: string; occurredAt: Date; data: WebhookEventData[T] },
): WebhookEventInput<T> {
  return { type, ...fields };
}

/** The body of a delivery: the versioned envelope around the data. */
export function webhookPayload(type: WebhookEventType, timestamp: Date, data: unknown): string {
  return JSON.stringify({ type, version: WEBHOOK_EVENTS[type].version, timestamp: timestamp.toISOString(), data });
}

/**
 * Why `data` does not match its type's schema (the first difference found), or null when it does:
 * the schema's own subset (object, required, no other properties, string/boolean/integer/number, enum).
 */
export function webhookDataProblem(type: WebhookEventType, data: unknown): string | null {
  return check(WEBHOOK_EVENTS[type].schema, data, 'data');
}

function check(schema: JsonSchema, value: unknown, path: string): string | null {
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${path} must be an object`;
      const record = value as Record<string, unknown>;
      for (const key of schema.required ?? []) if (!(key in record)) return `${path}.${key} is missing`;
      for (const [key, v] of Object.entries(record)) {
        const property = schema.properties?.[key];
        if (!property) {
          if (schema.additionalProperties === false) return `${path}.${key} is not part of the schema`;
          continue;
        }
        const problem = check(property, v, `${path}.${key}`);
        if (problem) return problem;
      }
      return null;
    }
    case 'string':
      if (typeof value !== 'string') return `${path} must be a string`;
      if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(', ')}`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${path} must be a boolean`;
    case 'integer':
      return Number.isInteger(value) ? null : `${path} must be an integer`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : `${path} must be a number`;
  }
}
