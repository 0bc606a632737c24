// The webhook event catalogue: every type's example matches its schema (what a test delivery sends
// is what a receiver validating against the documented schema accepts), the schema check refuses
// what differs, and the envelope is versioned.
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES, isWebhookEventType, webhookDataProblem, webhookPayload } from '../src/webhook-events.ts';

describe('the webhook event catalogue', () => {
  it('lists the product’s events, each with a version, a description, a schema and an example that matches it', () => {
    expect(WEBHOOK_EVENT_TYPES).toEqual([
      'conversation.started',
      'message.created',
      'feedback.created',
      'lead.created',
      'handoff.requested',
      'knowledge.entry.ready',
      'knowledge.entry.failed',
      'credit.low',
      'plan.changed',
    ]);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const entry = WEBHOOK_EVENTS[type];
      expect(entry.version, type).toBe(1);
      expect(entry.description, type).not.toBe('');
      expect(webhookDataProblem(type, entry.example), type).toBeNull();
      // Every property is described and required (the data has no optional fields yet).
      const properties = entry.schema.properties ?? {};
      expect(Object.keys(properties).sort(), type).toEqual([...(entry.schema.required ?? [])].sort());
      for (const property of Object.values(properties)) expect(property.description).toBeTruthy();
    }
  });

  it('refuses data that differs from the schema, naming the first difference', () => {
    const example = WEBHOOK_EVENTS['feedback.created'].example;
    expect(webhookDataProblem('feedback.created', { ...example, rating: 'meh' })).toBe('data.rating must be one of up, down');
    const { messageId: _omitted, ...missing } = example;
    expect(webhookDataProblem('feedback.created', missing)).toBe('data.messageId is missing');
    expect(webhookDataProblem('feedback.created', { ...example, extra: 1 })).toBe('data.extra is not part of the schema');
    expect(webhookDataProblem('message.created', { ...WEBHOOK_EVENTS['message.created'].example, answered: 'yes' })).toBe(
      'data.answered must be a boolean',
    );
    expect(webhookDataProblem('credit.low', null)).toBe('data must be an object');
  });

  it('knows its types, and wraps data in the versioned envelope', () => {
    expect(isWebhookEventType('plan.changed')).toBe(true);
    expect(isWebhookEventType('toString')).toBe(false);
    expect(JSON.parse(webhookPayload('plan.changed', new Date('2026-01-15T09:30:00Z'), { plan: 'pro', previousPlan: 'free' }))).toEqual({
      type: 'plan.changed',
      version: 1,
      timestamp: '2026-01-15T09:30:00.000Z',
      data: { plan: 'pro', previousPlan: 'free' },
    });
  });
});
