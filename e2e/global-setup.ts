// Starts the whole product on its own ports, database and queue prefix for the end-to-end run.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startFakeAnthropic } from '../services/common/src/testing/fake-anthropic.ts';
import {
  groundedReply,
  startFakeOpenAI,
  structuredReply,
  toolResultReply,
  toolTriggers,
} from '../services/common/src/testing/fake-openai.ts';
import { startFakeTelegram } from '../services/common/src/testing/fake-telegram.ts';
import { startFakeSlack } from '../services/common/src/testing/fake-slack.ts';
import { startFakeMailgun } from '../services/common/src/testing/fake-mailgun.ts';
import { startStack } from '../scripts/stack.ts';
import { startFakeMeta } from '../services/common/src/testing/fake-meta.ts';
import { startFakeTwilio } from '../services/common/src/testing/fake-twilio.ts';
import { CLAUDE_OVERLOADED, E2E_SLACK_APP, E2E_SLACK_TOKEN, E2E_TELEGRAM_TOKEN, E2E_TWILIO, E2E_WHATSAPP } from './fixtures.ts';
import { E2E_PORT_OFFSET } from './playwright.config.ts';

export default async function globalSetup() {
  const base = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_test';
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  // Its own database, named after the port offset when that is moved (another checkout's run).
  const database = E2E_PORT_OFFSET === 100 ? 'parley_e2e' : `parley_e2e_${E2E_PORT_OFFSET}`;
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${database}`);
  await client.end();
  const databaseUrl = new URL(base);
  databaseUrl.pathname = `/${database}`;

  // The chat service talks to a local OpenAI-compatible fake through the real SDK. Its answers cite
  // the knowledge passage that shares words with the question when there is one (as a model tags
  // what it used), otherwise quote the question in Markdown; they stream in small pieces slowly
  // enough for the page to show them arriving.
  // A chatbot with HTTP actions (actions.spec.ts) is offered tools: "where is my order #N" calls
  // look_up_order, "cancel my order #N" calls cancel_order; one offered the MCP spec's order tool
  // (mcp-tools.spec.ts) calls it when the visitor names an order, and its cancel tool on "cancel my
  // shop order #N". A tool's result is quoted back.
  const model = await startFakeOpenAI({
    chunkDelayMs: 40,
    toolCalls: toolTriggers([
      { pattern: /where is my order #?(\d+)/i, tool: 'look_up_order', args: (m) => ({ order_id: m[1] }) },
      { pattern: /cancel my order #?(\d+)/i, tool: 'cancel_order', args: (m) => ({ order_id: m[1] }) },
      { pattern: /cancel my shop order #?(\d+)/i, tool: 'shop_cancel_order', args: (m) => ({ order_id: m[1] }) },
      { pattern: /order #?(\d+)/i, tool: 'shop_order_status', args: (m) => ({ order_id: m[1] }) },
    ]),
    reply: (body) => {
      // The quality loop's judge and generated cases (structured output) get the fake's deterministic JSON.
      const structured = structuredReply(body);
      if (structured) return structured;
      const fromTool = toolResultReply(body);
      if (fromTool) return fromTool;
      const grounded = groundedReply(body);
      if (/\[\d+\]/.test(grounded)) return grounded;
      const question = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      return `**Thanks for asking!** You asked: _${question}_. See [our site](https://example.com) for more.`;
    },
  });

  // Anthropic's Messages API, for the chatbots whose owner chose a Claude model (models.spec.ts). It
  // is overloaded (529, before any token) for a chatbot whose knowledge names CLAUDE_OVERLOADED, so
  // that chatbot's fallback model answers.
  const anthropic = await startFakeAnthropic({
    chunkDelayMs: 20,
    failWith: (body) => (body.messages.some((m) => m.role === 'system' && m.content.includes(CLAUDE_OVERLOADED)) ? 529 : null),
  });

  // Telegram's Bot API, for the chatbots connected to Telegram (channels.spec.ts): the specs reach it
  // at E2E_FAKE_TELEGRAM_URL (its /_fake/ endpoints deliver updates and list what the bot sent).
  const telegram = await startFakeTelegram({ bots: { [E2E_TELEGRAM_TOKEN]: 'parley_e2e_bot' } });
  // Slack's Web API, for the chatbots connected to Slack (slack-channel.spec.ts), at E2E_FAKE_SLACK_URL.
  // Its authorize page (Add to Slack) sends the browser straight back with a code for the operator's app.
  const slack = await startFakeSlack({
    bots: { [E2E_SLACK_TOKEN]: 'parley_e2e_slackbot', [E2E_SLACK_APP.botToken]: 'parley_e2e_app' },
    app: { clientId: E2E_SLACK_APP.clientId, clientSecret: E2E_SLACK_APP.clientSecret, botToken: E2E_SLACK_APP.botToken },
  });

  // Meta's Graph API, for the chatbots connected to WhatsApp (channels-meta.spec.ts): the specs reach it
  // at E2E_FAKE_META_URL (its /_fake/ endpoints deliver signed events and list what was sent).
  const meta = await startFakeMeta({
    accounts: {
      [E2E_WHATSAPP.phoneNumberId]: {
        token: E2E_WHATSAPP.token,
        name: '+1 555-010-0100',
        businessAccountId: E2E_WHATSAPP.businessAccountId,
      },
    },
  });

  // Mailgun, for the chatbots connected to email (email-channel.spec.ts): its inbound route at
  // E2E_FAKE_MAILGUN_URL (/_fake/deliver signs and posts a mail) and an SMTP server catching the answers
  // (EMAIL_SMTP_URL: auth's own mail still goes to the outbox below).
  const mailgun = await startFakeMailgun();
  // Twilio's REST API, for the chatbots connected to SMS (sms-channel.spec.ts): the spec reaches it at
  // E2E_FAKE_TWILIO_URL (/_fake/deliver signs and posts an SMS, /_fake/sent lists what was sent).
  const twilio = await startFakeTwilio({
    accounts: { [E2E_TWILIO.accountSid]: { authToken: E2E_TWILIO.authToken, numbers: [E2E_TWILIO.number] } },
  });

  const mailOutboxDir = mkdtempSync(join(tmpdir(), 'parley-e2e-mail-'));
  const stack = await startStack({
    portOffset: E2E_PORT_OFFSET,
    output: process.env.E2E_LOGS ? 'inherit' : 'quiet',
    env: {
      DATABASE_URL: databaseUrl.toString(),
      QUEUE_PREFIX: `e2e${randomBytes(4).toString('hex')}`,
      LOG_LEVEL: 'warn',
      // Every spec signs up from localhost.
      REGISTRATIONS_MAX_PER_IP: '100000',
      PORT: '',
      OPENAI_API_KEY: 'e2e-key',
      OPENAI_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'e2e-anthropic-key',
      ANTHROPIC_BASE_URL: anthropic.url,
      TELEGRAM_API_BASE: telegram.url,
      SLACK_API_BASE: slack.url,
      SLACK_AUTHORIZE_URL: `${slack.url}/oauth/v2/authorize`,
      SLACK_CLIENT_ID: E2E_SLACK_APP.clientId,
      SLACK_CLIENT_SECRET: E2E_SLACK_APP.clientSecret,
      SLACK_SIGNING_SECRET: E2E_SLACK_APP.signingSecret,
      META_GRAPH_API_BASE: meta.url,
      TWILIO_API_BASE: twilio.url,
      EMAIL_SMTP_URL: mailgun.smtpUrl,
      EMAIL_INBOUND_DOMAIN: 'mail.parley.e2e',
      // Checkout runs in test mode (no STRIPE_SECRET_KEY): its local page and return URLs live here.
      PUBLIC_URL: `http://localhost:${8080 + E2E_PORT_OFFSET}`,
      // No SMTP server: auth writes mails to this folder and the gateway shows them at /dev/mail.
      MAIL_OUTBOX_DIR: mailOutboxDir,
      // The knowledge spec serves its website from 127.0.0.1, and the webhooks spec receives its deliveries there.
      KNOWLEDGE_URL_ALLOW_PRIVATE: '1',
      // The single sign-on spec starts its OpenID provider on 127.0.0.1, over http.
      SSO_ALLOW_PRIVATE_ADDRESSES: '1',
      // A chatbot's automatic test run starts a second after its last change (quality.spec.ts).
      TEST_AUTO_RUN_DELAY_MS: '1000',
    },
  });
  process.env.E2E_DATABASE_URL = databaseUrl.toString();
  process.env.E2E_FAKE_TELEGRAM_URL = telegram.url;
  process.env.E2E_FAKE_SLACK_URL = slack.url;
  process.env.E2E_FAKE_META_URL = meta.url;
  process.env.E2E_FAKE_MAILGUN_URL = mailgun.url;
  process.env.E2E_FAKE_TWILIO_URL = twilio.url;
  return async () => {
    await stack.stop();
    await model.close();
    await anthropic.close();
    await telegram.close();
    await slack.close();
    await meta.close();
    await mailgun.close();
    await twilio.close();
    rmSync(mailOutboxDir, { recursive: true, force: true });
  };
}
