// The developer API's request and answer shapes (docs/api.md), as zod schemas: the same schemas
// validate each request (routes.ts names them per route) and become the OpenAPI document
// (openapi.ts), so the two cannot drift. Like the rest of the gateway, they check JSON types and
// clean text only; every rule on the values (lengths, formats, limits) stays the services'.
import { z } from 'zod';
import { isCleanText } from '../http/input.ts';
import { CONTROL_CHARACTERS } from '../http/input.ts';

/** Text the services may store: no control characters, no lone surrogates (rest/input.ts). */
const text = () => z.string().refine(isCleanText, CONTROL_CHARACTERS);

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable, machine-readable: see the list in the description of the API.' }),
      message: z.string().meta({ description: 'For people; may change.' }),
    }),
  })
  .meta({ id: 'Error', examples: [{ error: { code: 'not_found', message: 'Chatbot not found' } }] });

export const Source = z
  .object({ entryId: z.string(), title: z.string(), url: z.string().optional() })
  .meta({ id: 'Source', description: 'A knowledge entry an answer cites; url for a web page only.' });

export const TextEntry = z
  .object({
    id: z.string(),
    title: z.string(),
    content: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    source: z.object({ type: z.string(), name: z.string().optional(), url: z.string().optional() }),
    status: z.string().meta({ description: 'ready, processing or failed.' }),
    error: z.string().nullable(),
    question: z.string().nullable(),
    autoSync: z.boolean(),
    lastSyncedAt: z.string().nullable(),
    lastSyncChanged: z.boolean().nullable(),
  })
  .meta({ id: 'TextEntry' });

export const ChatbotModel = z
  .object({ id: z.string(), displayName: z.string(), provider: z.string().meta({ description: 'openai, anthropic or gemini.' }) })
  .meta({ id: 'ChatbotModel', description: 'A model a chatbot answers with, as the catalogue names it.' });

export const Chatbot = z
  .object({
    id: z.string(),
    uniqueId: z.string(),
    name: z.string(),
    profilePicture: z.string().nullable(),
    isActive: z.boolean(),
    language: z.string(),
    interactions: z.number(),
    lastInteraction: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    instructions: z.string(),
    temperature: z.number().nullable(),
    welcomeMessage: z.string(),
    suggestedQuestions: z.array(z.string()),
    noAnswerMessage: z.string(),
    allowedDomains: z.array(z.string()),
    standalonePage: z.boolean(),
    model: ChatbotModel,
    fallbackModel: ChatbotModel.nullable().meta({ description: 'Tried once when the model fails before its first word; null: none.' }),
  })
  .meta({ id: 'Chatbot' });

export const Model = z
  .object({
    id: z.string().meta({ description: "The id a chatbot's modelId takes." }),
    provider: z.string().meta({ description: 'openai, anthropic or gemini.' }),
    displayName: z.string(),
    contextWindow: z.number().meta({ description: 'Tokens the model reads in one call.' }),
    maxOutputTokens: z.number().meta({ description: 'The most tokens it writes in one answer.' }),
    inputPricePerMillion: z.string().meta({ description: 'US dollars per million prompt tokens, an exact decimal.' }),
    outputPricePerMillion: z.string().meta({ description: 'US dollars per million answer tokens, an exact decimal.' }),
    capabilities: z.object({ streaming: z.boolean(), tools: z.boolean(), images: z.boolean() }),
    plans: z.array(z.string()).meta({ description: 'The plans that may use it: free, pro.' }),
    isDefault: z.boolean().meta({ description: 'The model a new chatbot answers with.' }),
    allowed: z.boolean().meta({ description: "The workspace's plan may use it." }),
    typicalAnswerCost: z
      .string()
      .meta({ description: 'Dollars of credit a typical answer costs (2,000 prompt tokens and 300 answer tokens), an exact decimal.' }),
  })
  .meta({
    id: 'Model',
    examples: [
      {
        id: 'gpt-4o-mini',
        provider: 'openai',
        displayName: 'GPT-4o mini',
        contextWindow: 128000,
        maxOutputTokens: 16384,
        inputPricePerMillion: '0.15',
        outputPricePerMillion: '0.60',
        capabilities: { streaming: true, tools: true, images: true },
        plans: ['free', 'pro'],
        isDefault: true,
        allowed: true,
        typicalAnswerCost: '0.00048',
      },
    ],
  });

export const ModelList = z.object({ data: z.array(Model) }).meta({ id: 'ModelList' });

export const ChatbotList = z.object({ data: z.array(Chatbot) }).meta({ id: 'ChatbotList' });

export const CreateChatbot = z.object({ name: text() }).meta({ id: 'CreateChatbot', examples: [{ name: 'Support' }] });

export const UpdateChatbot = z
  .object({
    name: text().optional(),
    isActive: z.boolean().optional(),
    language: text().optional(),
    instructions: text().optional(),
    temperature: z.number().nullable().optional(),
    welcomeMessage: text().optional(),
    suggestedQuestions: z.array(text()).optional(),
    noAnswerMessage: text().optional(),
    allowedDomains: z.array(text()).optional(),
    standalonePage: z.boolean().optional(),
    modelId: text().optional().meta({ description: 'One of GET /api/v1/models; 400 for another, 403 for one the plan may not use.' }),
    fallbackModelId: text()
      .nullable()
      .optional()
      .meta({ description: 'Tried once when the model fails; null or "" removes it. Checked like modelId.' }),
  })
  .meta({ id: 'UpdateChatbot', description: 'Only the fields given change.', examples: [{ welcomeMessage: 'Hi! Ask me anything.' }] });

export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });

export const EntryList = z.object({ data: z.array(TextEntry) }).meta({ id: 'TextEntryList' });
export const EntryResult = z.object({ entry: TextEntry }).meta({ id: 'TextEntryAdded' });

export const AddText = z.object({ text: text() }).meta({ id: 'AddTextEntry', examples: [{ text: 'We are open from nine to five.' }] });
export const AddUrl = z
  .object({ url: text(), crawl: z.boolean().optional(), maxPages: z.number().int().optional() })
  .meta({ id: 'AddUrlEntry', examples: [{ url: 'https://example.com/faq', crawl: false }] });
export const AddQa = z
  .object({ question: text(), answer: text() })
  .meta({ id: 'AddQaEntry', examples: [{ question: 'When do you open?', answer: 'At nine.' }] });
export const AddFile = z
  .object({ file: z.string().meta({ format: 'binary', description: 'PDF, DOCX, TXT or Markdown.' }) })
  .meta({ id: 'AddFileEntry', description: 'multipart/form-data with one file field.' });

export const Visitor = z
  .object({
    id: text().optional(),
    name: text().optional(),
    email: text().optional(),
    userHash: text().optional().meta({
      description:
        "HMAC-SHA256 of id under the chatbot's identity secret, in hex: when it matches, the visitor is verified as id. A wrong one leaves the visitor unverified (no error).",
    }),
  })
  .meta({ id: 'Visitor', description: 'Who your user is, kept with a new conversation.' });

export const ChatConfirm = z
  .object({
    callId: text().meta({ description: "The pending confirmation's callId." }),
    decision: z
      .enum(['confirm', 'cancel'])
      .meta({ description: 'confirm runs the call (once, however often it is sent); cancel tells the bot it was declined.' }),
  })
  .strict()
  .meta({ id: 'ChatConfirm', examples: [{ callId: '0f8c…', decision: 'confirm' }] });

export const Confirmation = z
  .object({
    callId: z.string(),
    actionName: z.string().meta({ description: 'The action or MCP tool (`<server>_<tool>`) waiting for the user.' }),
    question: z
      .string()
      .meta({ description: 'What to ask the user, e.g. "Cancel order (order id: 1042)?"; the reply\'s message ends with it.' }),
    expiresAt: z.string().nullable().meta({ description: 'Until when it can be confirmed (15 minutes).' }),
  })
  .meta({
    id: 'Confirmation',
    description:
      'An action or tool that runs only once the user confirms: answer with confirm { callId, decision } in the same conversation.',
  });

export const ChatRequest = z
  .object({
    message: text(),
    conversationId: text().optional().meta({ description: 'Continue this conversation; absent: a new one.' }),
    stream: z.boolean().optional().meta({ description: 'Answer as server-sent events (delta, then done).' }),
    visitor: Visitor.optional(),
    confirm: ChatConfirm.optional().meta({
      description:
        "The user's answer to the pending confirmation a reply carried (send with its conversationId); message is then the user's words, e.g. Confirm.",
    }),
  })
  .meta({ id: 'ChatRequest', examples: [{ message: 'When do you open?', visitor: { id: 'user-42', name: 'Ada' } }] });

export const ChatUsage = z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }).meta({
  id: 'ChatUsage',
  description: "The tokens the answer is billed for (the model's counts); zero for an answer no model wrote (a Q&A pair's, offline mode).",
});

export const ChatReply = z
  .object({
    message: z.string(),
    conversationId: z.string(),
    messageId: z.string(),
    sources: z.array(Source),
    usage: ChatUsage,
    confirmation: Confirmation.optional().meta({ description: 'Present only when the answer waits for the user to confirm an action.' }),
  })
  .meta({
    id: 'ChatReply',
    examples: [
      {
        message: 'We open at nine [1].',
        conversationId: 'c_…',
        messageId: '9b1…',
        sources: [{ entryId: 'e1', title: 'Hours' }],
        usage: { promptTokens: 412, completionTokens: 9, totalTokens: 421 },
      },
    ],
  });

export const AnsweringModel = z
  .object({
    id: z.string().meta({ description: "The catalogue's id, e.g. claude-haiku-4-5." }),
    displayName: z.string(),
    provider: z.string().meta({ description: 'openai, anthropic or gemini.' }),
  })
  .meta({ id: 'AnsweringModel' });

export const Message = z
  .object({
    id: z.string(),
    role: z.string().meta({
      description:
        "user (the visitor), assistant (the bot), agent (a member's reply to the visitor), note (a member's internal note, never shown to the visitor) or system.",
    }),
    content: z.string(),
    authorName: z.string().nullable().meta({ description: 'The member who wrote an agent reply or a note; null otherwise.' }),
    createdAt: z.string().nullable(),
    rating: z.string().nullable(),
    sources: z.array(Source),
    model: AnsweringModel.nullable().meta({
      description: "The model that gave a model's answer, as the catalogue names it; null for every other message.",
    }),
    fallback: z.boolean().meta({ description: "The chatbot's chosen model failed before its first token and model is its fallback." }),
  })
  .meta({ id: 'Message' });

export const Conversation = z
  .object({
    id: z.string().meta({ description: 'What POST /chat takes as conversationId to continue it.' }),
    createdAt: z.string(),
    updatedAt: z.string(),
    visitorId: z.string().nullable(),
    visitorName: z.string().nullable(),
    visitorEmail: z.string().nullable(),
    verifiedUserId: z.string().nullable().meta({
      description: "The verified visitor's user id (a userHash matched the chatbot's identity secret); null when never verified.",
    }),
    verifiedEmail: z.string().nullable().meta({ description: 'The email told with the verified user id; null when none.' }),
    messageCount: z.number(),
  })
  .meta({ id: 'Conversation' });

const page = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      data: z.array(item),
      nextCursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page.' }),
    })
    .meta({ id });
export const ConversationPage = page(Conversation, 'ConversationPage');
export const MessagePage = page(Message, 'MessagePage');

export const PageQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'limit must be a whole number from 1 to 100')
    .optional()
    .meta({ description: '1 to 100; 20 when absent.' }),
  cursor: z.string().max(500).optional().meta({ description: 'The nextCursor of the previous page.' }),
});

export const UsageQuery = z.object({
  startDate: z.string().meta({ description: 'ISO 8601 date (UTC), first day.' }),
  endDate: z.string().meta({ description: 'ISO 8601 date (UTC), last day.' }),
  chatbotId: z.string().optional().meta({ description: 'Only this chatbot (required for a key restricted to chatbots).' }),
});

export const Usage = z
  .object({
    totalCost: z.number(),
    totalTokens: z.number(),
    totalRequests: z.number(),
    daily: z.array(z.object({ date: z.string(), totalCost: z.number(), totalTokens: z.number(), requests: z.number() })),
    chatbots: z.array(z.object({ chatbotId: z.string(), name: z.string().nullable(), totalCost: z.number(), requests: z.number() })),
    recentRequests: z
      .array(
        z.object({
          requestId: z.string(),
          timestamp: z.string(),
          chatbotId: z.string().nullable(),
          apiKeyId: z.string().nullable().meta({ description: 'The API key the answer was asked through; null for the public chat.' }),
          ownKey: z.boolean().meta({ description: "Answered on the workspace's own provider key: totalCost is the own-key fee." }),
          totalTokens: z.number(),
          totalCost: z.number(),
        }),
      )
      .meta({ description: 'The newest answers of the range, newest first (the most recent few hundred at most).' }),
  })
  .meta({ id: 'Usage' });

// Webhook endpoints and their delivery log: the dashboard's shapes (docs/product.md, Webhooks).
export const WebhookAttempt = z
  .object({
    attemptedAt: z.string(),
    responseStatus: z.number().nullable().meta({ description: "The answer's HTTP status; null when no answer came." }),
    durationMs: z.number(),
    error: z.string().nullable().meta({ description: 'The failure in words; null for a success.' }),
  })
  .meta({ id: 'WebhookAttempt' });

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: 'The webhook-id header: the same on every attempt and redelivery.' }),
    endpointId: z.string(),
    eventType: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().meta({ description: 'Attempts made, redeliveries included.' }),
    responseStatus: z.number().nullable().meta({ description: "The last attempt's HTTP status; null when no answer came." }),
    durationMs: z.number().nullable().meta({ description: 'How long the last attempt took; null before the first.' }),
    responseExcerpt: z.string().meta({ description: "The start of the last answer's body (at most 500 characters)." }),
    error: z.string().nullable().meta({ description: 'The last failure in words; null after a success.' }),
    test: z.boolean().meta({ description: 'A test event.' }),
    payload: z.string().meta({ description: 'The body as sent (JSON).' }),
    createdAt: z.string(),
    lastAttemptAt: z.string().nullable(),
    attemptLog: z
      .array(WebhookAttempt)
      .meta({ description: 'Each attempt, oldest first, redeliveries included: the last 20 (attempts counts them all).' }),
  })
  .meta({ id: 'WebhookDelivery' });

const webhookEndpointFields = {
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()).meta({ description: 'Subscribed event types (the webhooks section lists them).' }),
  enabled: z.boolean(),
  disabledReason: z.string().nullable().meta({ description: 'Why Parley disabled it after a day of failures; null otherwise.' }),
  failingSince: z.string().nullable().meta({ description: 'When the current run of failed attempts began; null after a success.' }),
  createdAt: z.string(),
};
export const WebhookEndpoint = z.object(webhookEndpointFields).meta({ id: 'WebhookEndpoint' });
export const WebhookEndpointList = z
  .object({
    data: z.array(z.object({ ...webhookEndpointFields, lastDelivery: WebhookDelivery.nullable() }).meta({ id: 'WebhookEndpointListed' })),
  })
  .meta({ id: 'WebhookEndpointList' });
export const WebhookEndpointCreated = z
  .object({ endpoint: WebhookEndpoint, secret: z.string().meta({ description: 'The signing secret (whsec_…): shown only here.' }) })
  .meta({ id: 'WebhookEndpointCreated' });
export const WebhookSecret = z
  .object({ secret: z.string().meta({ description: 'The new signing secret, shown only here; the previous one stops signing at once.' }) })
  .meta({ id: 'WebhookSecret' });
export const WebhookDeliveryPage = page(WebhookDelivery, 'WebhookDeliveryPage');

export const CreateWebhookEndpoint = z
  .object({
    url: text().meta({ description: 'A public https address.' }),
    events: z.array(text()).meta({ description: 'At least one event type.' }),
    enabled: z.boolean().optional().meta({ description: 'false creates it disabled; enabled otherwise.' }),
  })
  .meta({ id: 'CreateWebhookEndpoint', examples: [{ url: 'https://example.com/parley-hooks', events: ['message.created'] }] });
export const UpdateWebhookEndpoint = z
  .object({
    url: text().optional(),
    events: z.array(text()).optional().meta({ description: 'Replaces the subscribed types (at least one).' }),
    enabled: z.boolean().optional().meta({ description: 'Enabling clears a failure streak.' }),
  })
  .meta({ id: 'UpdateWebhookEndpoint', description: 'Only the fields given change.', examples: [{ enabled: false }] });
export const SendTestWebhook = z
  .object({ eventType: text().optional().meta({ description: "An event type; absent: the endpoint's first subscribed type." }) })
  .meta({ id: 'SendTestWebhook', examples: [{ eventType: 'message.created' }] });

// The OpenAI-compatible pair (https://platform.openai.com/docs/api-reference/chat): what Parley reads of it.
const ContentPart = z.object({ type: z.string(), text: z.string().optional() }).loose();
export const OpenAIMessage = z
  .object({ role: z.string(), content: z.union([z.string(), z.array(ContentPart), z.null()]).optional() })
  .loose();
export const OpenAIChatRequest = z
  .object({
    model: z.string().meta({ description: "A chatbot's id (GET /openai/models lists them)." }),
    messages: z.array(OpenAIMessage).min(1, 'messages must hold at least one message'),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .object({ include_usage: z.boolean().optional() })
      .loose()
      .nullable()
      .optional()
      .meta({ description: 'include_usage: true ends a stream with a chunk of no choices carrying the usage.' }),
    user: z.string().optional(),
  })
  .loose()
  .meta({
    id: 'OpenAIChatCompletionRequest',
    description:
      "The last user message is the visitor's; earlier user and assistant turns are the history; system messages are ignored (the chatbot has its own instructions). Other fields are accepted and ignored.",
    examples: [{ model: '3f0c…', messages: [{ role: 'user', content: 'When do you open?' }] }],
  });

export const OpenAIChatCompletion = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number(),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        finish_reason: z.literal('stop'),
        logprobs: z.null(),
      }),
    ),
    usage: z
      .object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })
      .meta({ description: "The tokens the answer is billed for (the model's counts); zero for an answer no model wrote." }),
    parley_sources: z.array(Source).meta({ description: 'What the answer cites (ignored by OpenAI clients).' }),
  })
  .meta({ id: 'OpenAIChatCompletion' });

export const OpenAIModels = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() })),
  })
  .meta({ id: 'OpenAIModelList' });

export const NoQuery = z.object({});
