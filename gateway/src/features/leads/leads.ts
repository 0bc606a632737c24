// Leads and a chatbot's lead form and handoff settings (docs/adr/0034-humans-in-the-loop.md) as the
// product shows them, from the chat and chatbot services' messages. REST and GraphQL share these
// views; the services own every rule on the values (modes, triggers, ranges, the pro-only handoff).
import type { Lead } from '@parley/proto/parley/chat/v1/chat_pb.js';
import type { Handoff, LeadForm } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { int32Field } from '../../http/input.ts';

export type LeadFieldMode = 'off' | 'optional' | 'required';
export type LeadTrigger = 'before_first_message' | 'after_messages' | 'when_unanswered';

/** The lead form as the owner set it; every field "off" is no form. */
export interface LeadFormView {
  name: LeadFieldMode;
  email: LeadFieldMode;
  phone: LeadFieldMode;
  trigger: LeadTrigger;
  afterMessages: number;
  consentText: string;
}

export interface HandoffView {
  enabled: boolean;
  timeoutSeconds: number;
}

export interface LeadSettingsView {
  leadForm: LeadFormView;
  handoff: HandoffView;
}

const mode = (raw: string | undefined): LeadFieldMode => (raw === 'optional' || raw === 'required' ? raw : 'off');
const trigger = (raw: string | undefined): LeadTrigger =>
  raw === 'after_messages' || raw === 'when_unanswered' ? raw : 'before_first_message';

/** A service that sends no form or handoff predates them: no form, handoff off (the stored defaults). */
export function leadFormView(form: LeadForm | undefined): LeadFormView {
  return {
    name: mode(form?.name),
    email: mode(form?.email),
    phone: mode(form?.phone),
    trigger: trigger(form?.trigger),
    afterMessages: form?.afterMessages || 2,
    consentText: form?.consentText ?? '',
  };
}

export function leadSettingsView(chatbot: { leadForm?: LeadForm; handoff?: Handoff }): LeadSettingsView {
  return {
    leadForm: leadFormView(chatbot.leadForm),
    handoff: { enabled: chatbot.handoff?.enabled ?? false, timeoutSeconds: chatbot.handoff?.timeoutSeconds || 300 },
  };
}

/** What the owner asked to change; undefined leaves a field as it is. Values as typed, for the service to check. */
export interface LeadSettingsInput {
  leadForm?: { name?: string; email?: string; phone?: string; trigger?: string; afterMessages?: number; consentText?: string };
  handoff?: { enabled?: boolean; timeoutSeconds?: number };
}

const int32 = (typed: number | undefined) => (typed === undefined ? undefined : int32Field(typed));
const allUndefined = (o: object) => Object.values(o).every((v) => v === undefined);

/** The `leadForm` and `handoff` of an UpdateChatbot request (LeadFormChange, HandoffChange), each absent when nothing in it changes. */
export function leadSettingsChange({ leadForm, handoff }: LeadSettingsInput) {
  return {
    ...(leadForm && !allUndefined(leadForm) ? { leadForm: { ...leadForm, afterMessages: int32(leadForm.afterMessages) } } : {}),
    ...(handoff && !allUndefined(handoff) ? { handoff: { ...handoff, timeoutSeconds: int32(handoff.timeoutSeconds) } } : {}),
  };
}

/** The lead form as the chat page and the widget read it (GET /api/chatbot/public/{uniqueId}). */
export function publicLeadForm(form: LeadForm | undefined) {
  const { name, email, phone, trigger: when, afterMessages, consentText } = leadFormView(form);
  return { name, email, phone, trigger: when, afterMessages, consentText };
}

export interface LeadView {
  id: string;
  chatbotId: string;
  /** The conversation's id (what the History view opens). */
  conversationId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  consented: boolean;
  /** The consent line the visitor ticked; null when there was none. */
  consentText: string | null;
  source: 'form' | 'handoff_timeout';
  createdAt: string;
  /** web, or the messaging channel the visitor wrote from (telegram), as History names it. */
  channel: string;
  /** The visitor's identity on that channel (a Telegram chat id); null for the web. */
  channelContact: string | null;
}

export function leadView(lead: Lead): LeadView {
  return {
    id: lead.id,
    chatbotId: lead.chatbotId,
    conversationId: lead.conversationId,
    name: lead.name || null,
    email: lead.email || null,
    phone: lead.phone || null,
    consented: lead.consented,
    consentText: lead.consentText || null,
    source: lead.source === 'handoff_timeout' ? 'handoff_timeout' : 'form',
    createdAt: lead.createdAt ? timestampDate(lead.createdAt).toISOString() : new Date(0).toISOString(),
    channel: lead.channel || 'web',
    channelContact: lead.channelContact || null,
  };
}
