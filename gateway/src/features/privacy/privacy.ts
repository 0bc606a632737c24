// A chatbot's privacy as the owner reads and changes it (docs/product.md, Privacy; docs/adr/0049-personal-data-kept-from-the-model.md):
// the view REST and GraphQL share, and the UpdateChatbot request's PrivacyChange from what the owner
// sent. The patterns are the chatbot service's to check (it owns the rule and its messages).
import type { Privacy } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { optionalFlag, optionalTextList } from '../../http/input.ts';

export interface PrivacyView {
  /** Emails, phone numbers, card numbers, IBANs and the owner's patterns are replaced by placeholders before the model reads them. */
  redactPersonalData: boolean;
  /** The stored conversation keeps the visitor's words as typed (false: as the model read them). */
  keepOriginal: boolean;
  /** The owner's own regular expressions. */
  patterns: string[];
}

/** The privacy of a chatbot; a chatbot service that sends none predates it: off. */
export function privacyView(chatbot: { privacy?: Privacy }): { privacy: PrivacyView } {
  const p = chatbot.privacy;
  return {
    privacy: {
      redactPersonalData: p?.redactPersonalData ?? false,
      keepOriginal: p?.keepOriginal ?? false,
      patterns: [...(p?.patterns ?? [])],
    },
  };
}

/** What the owner asked to change; undefined leaves a field as it is, `patterns` replaces the list. */
export interface PrivacyInput {
  redactPersonalData?: boolean;
  keepOriginal?: boolean;
  patterns?: string[];
}

/** The `privacy` of an UpdateChatbot request (PrivacyChange), absent when nothing in it changes. */
export function privacyChange(input: PrivacyInput | undefined) {
  if (!input) return {};
  const { redactPersonalData, keepOriginal, patterns } = input;
  if (redactPersonalData === undefined && keepOriginal === undefined && patterns === undefined) return {};
  return { privacy: { redactPersonalData, keepOriginal, patterns: patterns && { patterns } } };
}

/** The fields of PUT /api/chatbot/{id}'s `privacy` object (named by their path, "privacy.patterns"); each optional. */
export const restPrivacyFields = {
  redactPersonalData: optionalFlag('privacy.redactPersonalData'),
  keepOriginal: optionalFlag('privacy.keepOriginal'),
  patterns: optionalTextList('privacy.patterns'),
};
