// The web app cannot import the services or the gateway (tools/lint/config.js), so the few values it
// must know before or without the server's answer are copies. Each copy is checked against its one
// home here, where both sides can be loaded.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appearanceView } from '../gateway/src/features/chatbots/chatbots.ts';
import { PUBLIC_CHATBOT_NOT_FOUND } from '../services/common/src/public-chatbot.ts';
import { root } from './repo.ts';

/** A module of the web app's public chat page, loaded by vitest (the web's extensionless imports are not the root project's to type-check). */
const webModule = (path: string): Promise<Record<string, unknown>> => import(join(root, 'web/chat-page/src', path));

describe('values the web app copies', () => {
  it("shows the services' text for an unknown or inactive chatbot", async () => {
    const { PUBLIC_CHATBOT_NOT_FOUND: webCopy } = await webModule('features/public-chat/not-found.ts');
    expect(webCopy).toBe(PUBLIC_CHATBOT_NOT_FOUND);
  });

  it("falls back to the gateway's appearance for a chatbot that set nothing", async () => {
    const { DEFAULT_APPEARANCE: webCopy, readAppearance } = await webModule('features/public-chat/appearance.ts');
    expect(webCopy).toEqual(appearanceView(undefined));
    expect((readAppearance as (value: unknown) => unknown)(appearanceView(undefined))).toEqual(webCopy);
  });
});
