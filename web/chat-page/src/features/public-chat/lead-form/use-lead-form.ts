import { useCallback, useEffect, useState } from 'react';
import type { Visitor } from '../embed-messages';
import { leadFormDue, type ConversationProgress, type LeadFormConfig, type LeadValues, canSkip } from './lead-form-config';
import { submitLead } from './lead-api';
import { loadLeadOutcome, saveLeadOutcome, type LeadFormOutcome } from './lead-storage';

export interface LeadFormOptions extends ConversationProgress {
  uniqueId: string;
  form: LeadFormConfig | null;
  sessionId: string;
  embedded: boolean;
  visitor: Visitor | null;
  /** The bot asked for the visitor's contact details in its latest answer: the form shows, whatever its trigger. */
  asked?: boolean;
  /** The server issued the conversation a new session id (the visitor had none): the chat continues it. */
  onSessionId: (sessionId: string) => void;
}

/**
 * The inline lead form of one conversation (docs/product.md, Leads): shown once its trigger is met
 * (and then until it is sent or skipped, which is remembered for the session), sent to the server,
 * which may start the conversation. `blocking` while a shown form has a required field: the visitor
 * answers it before chatting on.
 */
export function useLeadForm({ uniqueId, form, sessionId, embedded, visitor, onSessionId, asked = false, ...progress }: LeadFormOptions) {
  const [outcome, setOutcome] = useState<LeadFormOutcome | null>(() => loadLeadOutcome(uniqueId, sessionId));
  const [triggered, setTriggered] = useState(false);
  const [justSent, setJustSent] = useState(false);
  const due = form !== null && outcome === null && (asked || leadFormDue(form, progress));

  // Another session (Clear, or the server's new id) has its own outcome.
  useEffect(() => {
    setOutcome(loadLeadOutcome(uniqueId, sessionId));
    setTriggered(false);
  }, [uniqueId, sessionId]);
  // Once due, the form stays until it is done (an answered question after an unanswered one keeps it).
  useEffect(() => {
    if (due) setTriggered(true);
  }, [due]);

  const submit = useCallback(
    async (values: LeadValues) => {
      const sent = await submitLead({
        uniqueId,
        sessionId,
        name: values.name.trim() || undefined,
        email: values.email.trim() || undefined,
        phone: values.phone.trim() || undefined,
        consent: values.consent,
        visitor,
        embedded,
      });
      saveLeadOutcome(uniqueId, sent.sessionId, 'sent');
      setOutcome('sent');
      setJustSent(true);
      if (sent.sessionId !== sessionId) onSessionId(sent.sessionId);
    },
    [uniqueId, sessionId, visitor, embedded, onSessionId],
  );

  const skip = useCallback(() => {
    saveLeadOutcome(uniqueId, sessionId, 'skipped');
    setOutcome('skipped');
  }, [uniqueId, sessionId]);

  const shown = form !== null && outcome === null && (triggered || due);
  return { shown, justSent, blocking: shown && form !== null && !canSkip(form), submit, skip };
}
