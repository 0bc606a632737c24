// The views and request pieces chatbots.ts and knowledge.ts share between REST and GraphQL, and the statuses
// errors.ts gives the knowledge sources' refusals: pure, no services.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { ChatbotSchema, TextEntrySchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { Code, ConnectError, conflict, failedPrecondition } from '@parley/common/rpc-errors.ts';
import { createLogger } from '@parley/common/logger.ts';
import { chatbotView, voiceChange } from '../chatbots.ts';
import { maxPagesField, restTextEntry, textEntryView } from '../../knowledge/knowledge.ts';
import { mapError } from '../../../http/errors.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';

const catalogue = loadCatalogue({});

const created = new Date('2026-01-02T03:04:05.678Z');
const synced = new Date('2026-02-03T04:05:06.789Z');

describe('textEntryView', () => {
  it('shows a website entry with its url only, and its sync state', () => {
    const entry = create(TextEntrySchema, {
      id: 'e1',
      title: 'Shipping',
      content: 'Free.',
      createdAt: timestampFromDate(created),
      updatedAt: timestampFromDate(synced),
      source: { type: 'url', url: 'https://example.com/shipping' },
      status: 'ready',
      autoSync: true,
      lastSyncedAt: timestampFromDate(synced),
      lastSyncChanged: false,
    });
    expect(restTextEntry(textEntryView(entry))).toEqual({
      _id: 'e1',
      title: 'Shipping',
      content: 'Free.',
      createdAt: created.toISOString(),
      updatedAt: synced.toISOString(),
      source: { type: 'url', url: 'https://example.com/shipping' },
      status: 'ready',
      error: null,
      question: null,
      autoSync: true,
      lastSyncedAt: synced.toISOString(),
      lastSyncChanged: false,
    });
  });

  it('reads an entry from a service that predates sources as typed text, ready, updated when created', () => {
    const view = textEntryView(create(TextEntrySchema, { id: 'e2', title: 'T', content: 'C', createdAt: timestampFromDate(created) }));
    expect(view).toMatchObject({ source: { type: 'text' }, status: 'ready', updatedAt: created.toISOString(), lastSyncChanged: null });
    expect(view.source).toEqual({ type: 'text' });
  });

  it('shows a failed file with its name and error', () => {
    const view = textEntryView(
      create(TextEntrySchema, {
        id: 'e3',
        createdAt: timestampFromDate(created),
        source: { type: 'file', name: 'scan.pdf' },
        status: 'failed',
        error: 'No text found — is it a scanned image?',
      }),
    );
    expect(view).toMatchObject({
      source: { type: 'file', name: 'scan.pdf' },
      status: 'failed',
      error: 'No text found — is it a scanned image?',
    });
  });

  it('treats a missing entry as a contract violation', () => {
    expect(() => textEntryView(undefined)).toThrow(ConnectError);
  });
});

describe('chatbotView', () => {
  it("carries the voice, the product's defaults when the service sent none", () => {
    const base = { id: 'c1', uniqueId: 'u', name: 'Bot', createdAt: timestampFromDate(created), updatedAt: timestampFromDate(created) };
    expect(chatbotView(create(ChatbotSchema, base), catalogue)).toMatchObject({
      instructions: '',
      temperature: null,
      welcomeMessage: '',
      suggestedQuestions: [],
      noAnswerMessage: '',
    });
    const voice = {
      instructions: 'Be brief.',
      temperature: 0,
      welcomeMessage: 'Hi',
      suggestedQuestions: ['Why?'],
      noAnswerMessage: 'Ask us.',
    };
    expect(chatbotView(create(ChatbotSchema, { ...base, voice }), catalogue)).toMatchObject(voice);
  });
});

describe('voiceChange', () => {
  it('sends no voice when nothing in it changes', () => {
    expect(voiceChange({})).toEqual({});
  });

  it('sends only the fields given; a null temperature clears it, zero is a temperature', () => {
    expect(voiceChange({ temperature: null }).voice).toMatchObject({ temperature: undefined, clearTemperature: true });
    expect(voiceChange({ temperature: 0 }).voice).toMatchObject({ temperature: 0, clearTemperature: false });
    expect(voiceChange({ suggestedQuestions: [] }).voice).toMatchObject({ suggestedQuestions: { questions: [] }, instructions: undefined });
    expect(voiceChange({ instructions: '' }).voice).toMatchObject({ instructions: '', suggestedQuestions: undefined });
  });
});

describe('maxPagesField', () => {
  it('sends 0 (the default) only when not given, and out-of-range numbers so the service refuses them', () => {
    expect(maxPagesField(undefined)).toBe(0);
    expect(maxPagesField(null)).toBe(0);
    expect(maxPagesField(5)).toBe(5);
    expect(maxPagesField(0)).toBe(-1);
    expect(maxPagesField(-7)).toBe(-1);
    expect(maxPagesField(2 ** 40)).toBe(2 ** 31 - 1);
  });
});

describe("statuses of the knowledge sources' refusals", () => {
  const logger = createLogger('test', 'silent');
  it("a service's conflict (ABORTED) is 409 CONFLICT; a failed precondition stays 400", () => {
    expect(mapError(conflict('This entry is still being processed'), logger)).toMatchObject({
      status: 409,
      code: 'CONFLICT',
      message: 'This entry is still being processed',
    });
    expect(mapError(failedPrecondition('Something else'), logger)).toMatchObject({ status: 400, code: 'BAD_USER_INPUT' });
  });

  it('an ABORTED call whose connection was reset is the service being unavailable, not a conflict', () => {
    const lost = new ConnectError(
      'socket hang up',
      Code.Aborted,
      undefined,
      undefined,
      Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
    );
    expect(mapError(lost, logger)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });
});
