// A chatbot's knowledge base over REST (docs/product.md, REST API), this feature's operation table
// (http/operations.ts): each path acts in the request's workspace with the permission its row names,
// and another owner's chatbot answers 404 (the chatbot service decides, and owns every rule on the values):
//   POST   /api/chatbot/{id}/knowledge-base/text { text, append? } → { knowledgeBase }
//   POST   /api/chatbot/{id}/knowledge-base/files     multipart, field file → entry (202; parsed in the background)
//   POST   /api/chatbot/{id}/knowledge-base/urls { url, crawl?, maxPages? } → entry (202)
//   POST   /api/chatbot/{id}/knowledge-base/qa { question, answer } → entry (201)
//   POST   /api/chatbot/{id}/knowledge-base/text-entries/{entryId}/refresh → entry (202)
//   PUT    /api/chatbot/{id}/knowledge-base/text-entries/{entryId} { autoSync } → entry
//   DELETE /api/chatbot/{id}/knowledge-base/text-entries/{entryId} → { knowledgeBase }
// The file's upload is a row that reads its own body (`multipart`), once the caller is checked.
import type { Permission } from '@parley/common/roles.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { knowledgeBaseView, maxPagesField, restKnowledgeBase, restTextEntryResult, textEntryResultView } from './knowledge.ts';
import { readKnowledgeUpload } from './knowledge-upload.ts';
import { operation, type Operation } from '../../http/operations.ts';
import { flag, jsonBody, optionalFlag, optionalWholeNumber, text } from '../../http/input.ts';

export const APPEND_ONLY = 'append must be true: text is added to the knowledge base as a new entry';

const who = 'session';
const write: Permission = 'chatbots:write';
const base = '/api/chatbot';
const entry = `${base}/:id/knowledge-base/text-entries/:entryId`;

export const knowledgeOperations: Operation[] = [
  operation(
    {
      method: 'POST',
      path: `${base}/:id/knowledge-base/text`,
      who,
      permission: write,
      body: jsonBody({ append: optionalFlag('append'), text: text('text') }),
    },
    async ({ app: { clients }, member, params, body }) => {
      if (body.append === false) throw invalid(APPEND_ONLY);
      const { knowledgeBase } = await clients.chatbot.addTextEntry({ ownerId: member.ownerId, chatbotId: params.id, text: body.text });
      return { knowledgeBase: restKnowledgeBase(knowledgeBaseView(knowledgeBase)) };
    },
  ),
  // Accepted: the entry is parsed in the background (status "processing").
  operation(
    { method: 'POST', path: `${base}/:id/knowledge-base/files`, who, permission: write, status: 202, multipart: true },
    async ({ app: { clients, uploads }, member, params, req }) => {
      const file = await readKnowledgeUpload(req, uploads.maxUploadBytes);
      const added = await clients.chatbot.addFileEntry(
        { ownerId: member.ownerId, chatbotId: params.id, fileName: file.name, content: file.content },
        { timeoutMs: uploads.uploadTimeoutMs },
      );
      return restTextEntryResult(textEntryResultView(added));
    },
  ),
  operation(
    {
      method: 'POST',
      path: `${base}/:id/knowledge-base/urls`,
      who,
      permission: write,
      status: 202,
      body: jsonBody({ url: text('url'), crawl: optionalFlag('crawl'), maxPages: optionalWholeNumber('maxPages') }),
    },
    async ({ app: { clients }, member, params, body }) => {
      const added = await clients.chatbot.addUrlEntry({
        ownerId: member.ownerId,
        chatbotId: params.id,
        url: body.url,
        crawl: body.crawl ?? false,
        maxPages: maxPagesField(body.maxPages),
      });
      return restTextEntryResult(textEntryResultView(added));
    },
  ),
  operation(
    {
      method: 'POST',
      path: `${base}/:id/knowledge-base/qa`,
      who,
      permission: write,
      status: 201,
      body: jsonBody({ question: text('question'), answer: text('answer') }),
    },
    async ({ app: { clients }, member, params, body }) => {
      const added = await clients.chatbot.addQaEntry({ ownerId: member.ownerId, chatbotId: params.id, ...body });
      return restTextEntryResult(textEntryResultView(added));
    },
  ),
  // Accepted: the page is fetched again in the background.
  operation(
    { method: 'POST', path: `${entry}/refresh`, who, permission: write, status: 202 },
    async ({ app: { clients }, member, params }) => {
      const refreshed = await clients.chatbot.refreshEntry({ ownerId: member.ownerId, chatbotId: params.id, entryId: params.entryId });
      return restTextEntryResult(textEntryResultView(refreshed));
    },
  ),
  operation(
    { method: 'PUT', path: entry, who, permission: write, body: jsonBody({ autoSync: flag('autoSync') }) },
    async ({ app: { clients }, member, params, body }) => {
      const changed = await clients.chatbot.setEntryAutoSync({
        ownerId: member.ownerId,
        chatbotId: params.id,
        entryId: params.entryId,
        autoSync: body.autoSync,
      });
      return restTextEntryResult(textEntryResultView(changed));
    },
  ),
  operation({ method: 'DELETE', path: entry, who, permission: write }, async ({ app: { clients }, member, params }) => {
    const { knowledgeBase } = await clients.chatbot.deleteTextEntry({
      ownerId: member.ownerId,
      chatbotId: params.id,
      entryId: params.entryId,
    });
    return { knowledgeBase: restKnowledgeBase(knowledgeBaseView(knowledgeBase)) };
  }),
];
