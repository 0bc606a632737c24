// Email (docs/adr/0063-email-channel.md): connecting gives the chatbot an inbound address and seals
// the Mailgun webhook signing key; Mailgun's inbound calls are verified by their signature over
// timestamp and token (missing, wrong, old, truncated or replayed: refused, nothing queued); a mail is
// answered through the widget's turn and sent over SMTP in its thread (Message-ID, In-Reply-To,
// References, "Re: …"); a thread of three mails is one conversation; auto-replies and bounces are
// taken and never answered; the same mail delivered five times at once is answered and billed once;
// an agent's inbox reply goes out by email in the thread. Real chatbot and billing services,
// PostgreSQL, Redis and BullMQ, a real SMTP server catching the mail (smtp-catcher.ts).
import { Queue } from 'bullmq';
import nodemailer from 'nodemailer';
import { Code } from '@connectrpc/connect';
import { QUEUES } from '@parley/common/queues.ts';
import { contactMessageId, inboundMail, signedInbound, signMailgun } from '@parley/common/testing/fake-mailgun.ts';
import { startSmtpCatcher, type SmtpCatcher } from '@parley/common/testing/smtp-catcher.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_TEST_MESSAGE, openSigningSecret } from '../../src/channels/connections.ts';
import { EMAIL_KEY_SHAPE_INVALID } from '../../src/channels/email-connections.ts';
import { MAILGUN_SIGNATURE_MISSING, MAILGUN_SIGNATURE_REFUSED } from '../../src/channels/email-receive.ts';
import { WAITING_FOR_PERSON } from '../../src/channels/answer-update.ts';
import { channelContact } from '../../src/leads/channel-lead.ts';
import { agent, clientMessageId, enableHandoff } from './handoff-helpers.ts';
import { rpcError, startChatStack, type ChatStack } from './harness.ts';

const KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const DOMAIN = 'mail.parley.test';
const KNOWLEDGE = ['The museum opens at ten and closes at six, every day but Monday.'];

let stack: ChatStack;
let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
  stack = await startChatStack({ SMTP_URL: smtp.url, EMAIL_INBOUND_DOMAIN: DOMAIN, EMAIL_SMTP_INBOUND_PORT: '0' });
});
afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
});
beforeEach(() => {
  smtp.mails.length = 0;
  stack.fake.reset();
});

const text = (message: unknown) => JSON.stringify(message, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

async function connectedBot(credit = '5') {
  const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
  await stack.setCredit(bot.ownerId, credit);
  const { connection } = await stack.client.connectChannel({
    ownerId: bot.ownerId,
    chatbotId: bot.id,
    uniqueId: bot.uniqueId,
    channel: 'email',
    token: '',
    signingSecret: KEY,
    webhookBaseUrl: '',
  });
  return { bot, connection: connection!, address: connection!.accountId };
}

async function until<T>(read: () => Promise<T> | T, ready: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await read();
    if (ready(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const inboundJobs = async () => {
  const queue = new Queue(QUEUES.channelInbound, { connection: stack.redis, prefix: stack.prefix });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  } finally {
    await queue.close();
  }
};

/** The form's fields as the gateway hands them to chat (JSON), with the signature fields as they came. */
const post = (connectionId: string, form: Record<string, string>) =>
  stack.client.receiveChannelUpdate({
    channel: 'email',
    connectionId,
    secret: form.signature ?? '',
    timestamp: form.timestamp ?? '',
    body: Buffer.from(JSON.stringify(form)),
  });

const send = (connectionId: string, fields: Record<string, string>) => post(connectionId, signedInbound(KEY, fields));

const mailsTo = (to: string, count: number, what: string) =>
  until(
    () => smtp.mails.filter((m) => m.to.includes(to)),
    (m) => m.length >= count,
    what,
  );

describe('connecting email', () => {
  it('gives the chatbot an inbound address, seals the signing key and shows only its last four characters', async () => {
    const { bot, connection, address } = await connectedBot();
    expect(address).toMatch(new RegExp(`^bot-[0-9a-f]{20}@${DOMAIN.replace(/\./g, '\\.')}$`));
    expect([connection.channel, connection.status, connection.tokenLastFour, connection.botName]).toEqual([
      'email',
      'connected',
      'eol0',
      address,
    ]);
    const listed = await stack.client.listChannelConnections({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(text(listed)).not.toContain(KEY);
    const row = await stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(row.signingSecretCiphertext).not.toContain(KEY.slice(4));
    expect(openSigningSecret(stack.parts.deps.channels.ciphers, row.id, row.signingSecretCiphertext!)).toBe(KEY);
  });

  it('refuses a malformed signing key and stores nothing', async () => {
    const bot = await stack.newChatbot({ knowledge: KNOWLEDGE });
    const refused = await rpcError(
      stack.client.connectChannel({
        ownerId: bot.ownerId,
        chatbotId: bot.id,
        uniqueId: bot.uniqueId,
        channel: 'email',
        token: '',
        signingSecret: 'not a key',
        webhookBaseUrl: '',
      }),
    );
    expect([refused.code, refused.rawMessage]).toEqual([Code.InvalidArgument, EMAIL_KEY_SHAPE_INVALID]);
    expect(await stack.parts.prisma.channelConnection.count({ where: { chatbotId: bot.id } })).toBe(0);
  });
});

describe("Mailgun's signature", () => {
  it('refuses a missing, wrong, old, truncated or replayed signature and a body changed after signing, and queues nothing', async () => {
    const { connection, address } = await connectedBot();
    const fields = inboundMail({ from: 'ada@example.com', to: address, text: 'Is the museum open on Monday?' });
    const before = await inboundJobs();
    const good = signedInbound(KEY, fields);
    const old = String(Math.floor(Date.now() / 1000) - 6 * 60);
    const { signature: _s, ...unsigned } = good;
    const missing = await Promise.all([
      rpcError(post(connection.id, unsigned)),
      rpcError(post(connection.id, { ...good, token: '' })),
      rpcError(post(connection.id, { ...good, timestamp: '' })),
    ]);
    for (const err of missing) expect([err.code, err.rawMessage]).toEqual([Code.Unauthenticated, MAILGUN_SIGNATURE_MISSING]);
    const refusals = await Promise.all([
      rpcError(post(connection.id, signedInbound('key-another0accounts0signing0key0', fields))),
      rpcError(post(connection.id, { ...good, signature: good.signature.slice(0, -1) })),
      rpcError(post(connection.id, { ...good, signature: `${good.signature}0` })),
      rpcError(post(connection.id, { ...good, timestamp: old, signature: signMailgun(KEY, old, good.token) })),
      rpcError(post(connection.id, { ...good, token: `${good.token}x` })),
      rpcError(post('00000000-0000-4000-8000-000000000000', good)),
    ]);
    for (const err of refusals) expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, MAILGUN_SIGNATURE_REFUSED]);
    for (const err of [...missing, ...refusals]) {
      expect(err.message).not.toContain(good.signature);
      expect(err.message).not.toContain(KEY);
    }
    expect(await inboundJobs()).toBe(before);

    // The genuine call is taken; the same signature again, as it was or with another body, is a replay.
    expect((await post(connection.id, good)).queued).toBe(true);
    const replayed = await rpcError(post(connection.id, good));
    const changed = await rpcError(
      post(connection.id, { ...good, 'body-plain': 'Send me every visitor list.', 'Message-Id': '<other@x>' }),
    );
    for (const err of [replayed, changed]) expect([err.code, err.rawMessage]).toEqual([Code.PermissionDenied, MAILGUN_SIGNATURE_REFUSED]);
    expect(await inboundJobs()).toBe(before + 1);
  });
});

describe('a mail', () => {
  it('is answered in its thread over SMTP, and a thread of three mails is one conversation', async () => {
    const { bot, connection, address } = await connectedBot();
    await stack.makePro(bot.ownerId);
    const contact = 'eve@example.com';
    const first = contactMessageId(contact);
    await send(
      connection.id,
      inboundMail({ from: contact, to: address, subject: 'Opening hours', text: 'Is the museum open every day?', messageId: first }),
    );
    const [answer1] = await mailsTo(contact, 1, 'the first answer');
    expect(answer1.from).toBe(address);
    expect(answer1.subject).toBe('Re: Opening hours');
    expect(answer1.inReplyTo).toBe(first);
    expect(answer1.references).toBe(first);
    expect(answer1.messageId).toMatch(new RegExp(`^<parley\\.[0-9a-f-]{36}@${DOMAIN.replace(/\./g, '\\.')}>$`));
    expect(answer1.text).toContain('The museum opens at ten');
    expect(answer1.text).not.toMatch(/\[\d\]/);
    expect(answer1.text).toContain('\n\nSources:\n1. ');

    // The reply quotes the answer; the quote is not the question (no stripped-text: Parley strips it).
    const second = contactMessageId(contact);
    await send(
      connection.id,
      inboundMail({
        from: contact,
        to: address,
        subject: 'Re: Opening hours',
        text: `And when does it close?\n\nOn Tue, 1 Dec 2026 at 10:00, Museum <${address}> wrote:\n> ${answer1.text.split('\n')[0]}\n`,
        messageId: second,
        inReplyTo: answer1.messageId,
        references: [first, answer1.messageId],
      }),
    );
    const [, answer2] = await mailsTo(contact, 2, 'the second answer');
    expect([answer2.subject, answer2.inReplyTo, answer2.references]).toEqual([
      'Re: Opening hours',
      second,
      `${first} ${answer1.messageId} ${second}`,
    ]);
    const asked = text(stack.fake.requests.at(-1)!.messages);
    expect(asked).toContain('And when does it close?');
    expect(asked.match(/wrote:/g) ?? []).toHaveLength(0);

    // Mailgun's stripped-text, when given, is the question.
    const third = contactMessageId(contact);
    await send(
      connection.id,
      inboundMail({
        from: contact,
        to: address,
        subject: 'Re: Opening hours',
        text: 'What about Monday?\n\n> quoted answer',
        strippedText: 'What about Monday?',
        messageId: third,
        inReplyTo: answer2.messageId,
        references: [first, answer1.messageId, second, answer2.messageId],
      }),
    );
    await mailsTo(contact, 3, 'the third answer');
    expect(text(stack.fake.requests.at(-1)!.messages)).not.toContain('quoted answer');
    const { conversations } = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(conversations.map((c) => [c.channel, c.messageCount])).toEqual([['email', 6]]);
    // A new mail (no thread named) opens another conversation.
    await send(connection.id, inboundMail({ from: contact, to: address, subject: 'Tickets', text: 'Is the museum open every day?' }));
    await mailsTo(contact, 4, 'the answer in a new thread');
    const after = await stack.client.listConversations({ ownerId: bot.ownerId, chatbotId: bot.id });
    expect(after.conversations).toHaveLength(2);
    // The delivery record is written once the SMTP server took the mail, so it may follow the catcher by a moment.
    const { deliveries } = await until(
      () => stack.client.listChannelDeliveries({ ownerId: bot.ownerId, connectionId: connection.id }),
      (r) => r.deliveries.length === 4,
      'the fourth delivery record',
    );
    expect(deliveries.map((d) => [d.kind, d.status, d.chatId])).toEqual(Array.from({ length: 4 }, () => ['answer', 'sent', contact]));
  });

  it('an auto-reply and a bounce are taken with their reason and never answered, with no model call and no bill', async () => {
    const { bot, connection, address } = await connectedBot();
    const cases: [Record<string, string>, string][] = [
      [
        inboundMail({
          from: 'ada@example.com',
          to: address,
          text: 'I am out of the office.',
          headers: [['Auto-Submitted', 'auto-replied']],
        }),
        'auto_reply',
      ],
      [inboundMail({ from: 'ada@example.com', to: address, text: 'Away until Monday', headers: [['X-Autoreply', 'yes']] }), 'auto_reply'],
      [
        inboundMail({
          from: 'news@example.com',
          to: address,
          text: 'Our newsletter',
          headers: [['List-Unsubscribe', '<mailto:u@example.com>']],
        }),
        'auto_reply',
      ],
      [inboundMail({ from: 'MAILER-DAEMON@mx.example.com', to: address, text: 'Delivery failed' }), 'bounce'],
      [
        inboundMail({
          from: 'bob@example.com',
          to: address,
          text: 'report',
          headers: [['Content-Type', 'multipart/report; report-type=delivery-status']],
        }),
        'bounce',
      ],
      [inboundMail({ from: address, to: address, text: 'Is the museum open every day?' }), 'own_address'],
    ];
    const before = await inboundJobs();
    for (const [fields, reason] of cases) expect([reason, (await send(connection.id, fields)).queued]).toEqual([reason, false]);
    expect(await inboundJobs()).toBe(before);
    const rows = await stack.parts.prisma.channelInbound.findMany({
      where: { connectionId: connection.id },
      orderBy: { receivedAt: 'asc' },
    });
    expect(rows.map((r) => r.skipReason)).toEqual(cases.map(([, reason]) => reason));
    // The owner reads them newest first: who sent each and why.
    const { messages } = await stack.client.listSkippedMessages({ ownerId: bot.ownerId, connectionId: connection.id });
    expect(messages.map((m) => [m.contact, m.reason])).toEqual(
      cases.map(([fields, reason]) => [fields.sender.toLowerCase(), reason]).reverse(),
    );
    const foreign = await rpcError(stack.client.listSkippedMessages({ ownerId: 'someone-else', connectionId: connection.id }));
    expect(foreign.code).toBe(Code.NotFound);
    await stack.applyUsage();
    expect(stack.fake.requests).toHaveLength(0);
    expect(smtp.mails).toHaveLength(0);
    expect(await stack.billing.prisma.usageRecord.count({ where: { ownerId: bot.ownerId } })).toBe(0);
  });

  it('a loop (ten of our own Message-IDs in References) is not answered', async () => {
    const { connection, address } = await connectedBot();
    const ours = Array.from({ length: 10 }, (_, i) => `<parley.00000000-0000-4000-8000-00000000000${i % 10}@${DOMAIN}>`);
    const outcome = await send(
      connection.id,
      inboundMail({ from: 'bot@elsewhere.example', to: address, text: 'Re: Re: Re: hello', references: ours }),
    );
    expect(outcome).toMatchObject({ queued: false });
    const [row] = await stack.parts.prisma.channelInbound.findMany({ where: { connectionId: connection.id } });
    expect(row.skipReason).toBe('loop');
  });

  it('delivered 5 times at once is answered once and billed once', async () => {
    const { bot, connection, address } = await connectedBot();
    const fields = inboundMail({ from: 'bob@example.com', to: address, text: 'Is the museum open every day?' });
    await Promise.all(Array.from({ length: 5 }, () => send(connection.id, fields)));
    await mailsTo('bob@example.com', 1, 'the answer');
    await send(connection.id, fields);
    await stack.applyUsage();
    expect(smtp.mails.filter((m) => m.to.includes('bob@example.com'))).toHaveLength(1);
    expect(stack.fake.requests).toHaveLength(1);
    expect(await stack.billing.prisma.usageRecord.count({ where: { ownerId: bot.ownerId } })).toBe(1);
    expect(await stack.parts.prisma.channelInbound.count({ where: { connectionId: connection.id } })).toBe(1);
  });

  it('a test message goes to the address typed, else to the last contact', async () => {
    const { bot, connection, address } = await connectedBot();
    const typed = await stack.client.sendChannelTestMessage({
      ownerId: bot.ownerId,
      connectionId: connection.id,
      chatId: 'owner@example.com',
    });
    expect([typed.delivery?.status, typed.delivery?.chatId]).toEqual(['sent', 'owner@example.com']);
    const [mail] = await mailsTo('owner@example.com', 1, 'the test message');
    expect([mail.from, mail.text.trim()]).toEqual([address, EMAIL_TEST_MESSAGE]);
    const none = await rpcError(stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '' }));
    expect(none.code).toBe(Code.FailedPrecondition);
    const bad = await rpcError(
      stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: 'not an address' }),
    );
    expect(bad.code).toBe(Code.InvalidArgument);
    await send(connection.id, inboundMail({ from: 'cat@example.com', to: address, text: 'Is the museum open every day?' }));
    await mailsTo('cat@example.com', 1, 'the answer');
    await until(
      () => stack.parts.prisma.channelConnection.findUniqueOrThrow({ where: { id: connection.id } }),
      (r) => r.lastChatId !== null,
      'the last contact',
    );
    const last = await stack.client.sendChannelTestMessage({ ownerId: bot.ownerId, connectionId: connection.id, chatId: '' });
    expect(last.delivery?.chatId).toBe('cat@example.com');
  });
});

describe('the development SMTP server (EMAIL_SMTP_INBOUND_PORT)', () => {
  it('takes a mail for an inbound address into the same path, answered in its thread, and refuses other recipients', async () => {
    const { connection, address } = await connectedBot();
    const port = stack.parts.emailSmtpInbound!.port;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    try {
      const sent = await transport.sendMail({
        from: 'Fay <fay@example.com>',
        to: address,
        subject: 'Hours',
        text: 'Is the museum open every day?',
        messageId: '<smtp-1@example.com>',
      });
      expect(sent.accepted).toEqual([address]);
      const [answer] = await mailsTo('fay@example.com', 1, 'the answer to the SMTP mail');
      expect([answer.from, answer.subject, answer.inReplyTo]).toEqual([address, 'Re: Hours', '<smtp-1@example.com>']);
      await expect(transport.sendMail({ from: 'fay@example.com', to: `nobody@${DOMAIN}`, subject: 'x', text: 'x' })).rejects.toThrow(/550/);
      // An auto-reply through SMTP is taken and not answered, as through Mailgun.
      await transport.sendMail({
        from: 'fay@example.com',
        to: address,
        subject: 'Out of office',
        text: 'Away',
        messageId: '<smtp-2@example.com>',
        headers: { 'Auto-Submitted': 'auto-replied' },
      });
      const skipped = await until(
        () =>
          stack.parts.prisma.channelInbound.findFirst({
            where: { connectionId: connection.id, providerMessageId: '<smtp-2@example.com>' },
          }),
        (r) => r !== null,
        'the skipped mail',
      );
      expect(skipped?.skipReason).toBe('auto_reply');
    } finally {
      transport.close();
    }
  });
});

describe('handoff across email', () => {
  it("an agent's inbox reply goes out by email in the thread, and the conversation's contact is the sender's address", async () => {
    const { bot, connection, address } = await connectedBot();
    await stack.makePro(bot.ownerId);
    await enableHandoff(stack.chatbots, bot);
    const contact = 'dan@example.com';
    const first = contactMessageId(contact);
    await send(
      connection.id,
      inboundMail({
        from: contact,
        to: address,
        subject: 'Help',
        text: 'Is the museum open every day? I want to talk to a person',
        messageId: first,
      }),
    );
    const [answer] = await mailsTo(contact, 1, 'the answer');
    expect(answer.text.trim().endsWith(WAITING_FOR_PERSON)).toBe(true);
    const { waiting } = await until(
      () => stack.client.listInbox({ ownerId: bot.ownerId }),
      (r) => r.waiting.some((i) => i.chatbotId === bot.id),
      'the waiting conversation',
    );
    const item = waiting.find((i) => i.chatbotId === bot.id)!;
    expect(item.channel).toBe('email');
    await stack.client.replyToConversation({
      ownerId: bot.ownerId,
      conversationId: item.conversationId,
      agent: agent('Ada'),
      content: 'Hello, Ada from the museum here.',
      clientMessageId: clientMessageId(),
    });
    const [, reply] = await mailsTo(contact, 2, "the agent's reply");
    expect([reply.from, reply.subject, reply.inReplyTo, reply.text.trim()]).toEqual([
      address,
      'Re: Help',
      answer.messageId,
      'Hello, Ada from the museum here.',
    ]);
    const thread = await stack.parts.prisma.channelThread.findFirstOrThrow({ where: { connectionId: connection.id } });
    expect(await channelContact(stack.parts.prisma, bot.id, thread.sessionId, 'email')).toBe(contact);
  });
});
