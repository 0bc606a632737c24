// The views and request pieces chatbots.ts shares between REST and GraphQL for the embed settings
// (appearance, allowed domains, standalone page, visitor limits): pure, no services.
import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { ChatbotSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { chatbotView, embedSettingsChange, embedSettingsView } from '../chatbots.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';

const catalogue = loadCatalogue({});

describe('embedSettingsView', () => {
  it('shows what the service sent: an empty colour as null, dollars as sent, absent limits as null', () => {
    const chatbot = create(ChatbotSchema, {
      appearance: { primaryColor: '', position: 'left', launcherLabel: 'Ask', hideBranding: true },
      embedding: { allowedDomains: ['shop.example.com'], standalonePage: false },
      limits: { dailySpendLimit: '5.00', proofOfWork: true },
    });
    expect(embedSettingsView(chatbot)).toEqual({
      appearance: { primaryColor: null, position: 'left', launcherLabel: 'Ask', hideBranding: true },
      allowedDomains: ['shop.example.com'],
      standalonePage: false,
      limits: { visitorMessagesPerDay: null, dailySpendLimit: '5.00', proofOfWork: true },
    });
    expect(chatbotView(create(ChatbotSchema, { ...chatbot, id: 'c1' }), catalogue)).toMatchObject(embedSettingsView(chatbot));
  });

  it('reads a service that predates them as the product was then: on everywhere, right, unlimited', () => {
    expect(embedSettingsView(create(ChatbotSchema, {}))).toEqual({
      appearance: { primaryColor: null, position: 'right', launcherLabel: '', hideBranding: false },
      allowedDomains: [],
      standalonePage: true,
      limits: { visitorMessagesPerDay: null, dailySpendLimit: null, proofOfWork: false },
    });
    expect(embedSettingsView(create(ChatbotSchema, { appearance: { position: 'sideways' } })).appearance.position).toBe('right');
  });
});

describe('embedSettingsChange', () => {
  it('sends nothing when nothing of these changes', () => {
    expect(embedSettingsChange({})).toEqual({});
    expect(embedSettingsChange({ appearance: { position: undefined }, limits: {} })).toEqual({});
  });

  it('sends each part alone, only the fields given; null resets the colour and clears a limit', () => {
    expect(embedSettingsChange({ appearance: { primaryColor: null } })).toEqual({
      appearance: { primaryColor: '', position: undefined, launcherLabel: undefined, hideBranding: undefined },
    });
    expect(embedSettingsChange({ allowedDomains: [] })).toEqual({
      embedding: { allowedDomains: { domains: [] }, standalonePage: undefined },
    });
    expect(embedSettingsChange({ standalonePage: false })).toEqual({ embedding: { allowedDomains: undefined, standalonePage: false } });
    expect(embedSettingsChange({ limits: { visitorMessagesPerDay: null, dailySpendLimit: 7.5 } })).toEqual({
      limits: {
        visitorMessagesPerDay: undefined,
        clearVisitorMessagesPerDay: true,
        dailySpendLimit: '7.5',
        clearDailySpendLimit: false,
        proofOfWork: undefined,
      },
    });
    expect(embedSettingsChange({ limits: { dailySpendLimit: null, proofOfWork: false } }).limits).toMatchObject({
      dailySpendLimit: undefined,
      clearDailySpendLimit: true,
      clearVisitorMessagesPerDay: false,
      proofOfWork: false,
    });
  });

  it('sends a fraction or a number beyond int32 as one the service refuses', () => {
    const perDay = (n: number) => embedSettingsChange({ limits: { visitorMessagesPerDay: n } }).limits?.visitorMessagesPerDay;
    expect(perDay(100)).toBe(100);
    expect(perDay(0)).toBe(0);
    expect(perDay(2.5)).toBe(-1);
    expect(perDay(2 ** 40)).toBe(2 ** 31 - 1);
    expect(perDay(-(2 ** 40))).toBe(-(2 ** 31 - 1));
  });
});
