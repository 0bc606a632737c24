// GET /api/inbox/events (docs/product.md, Inbox; docs/adr/0034-humans-in-the-loop.md): the
// workspace's live inbox as server-sent events, for members whose role reads conversations, with the
// same auth as every dashboard path (Authorization: Bearer and X-Workspace-Id; the web app reads it
// with fetch, since EventSource cannot send headers). It relays the chat service's WatchInbox:
//   event: conversation   data: an InboxItem as JSON (the GraphQL type's fields), each time a
//                         conversation's state, assignee or messages change (bot and closed leave the inbox)
//   : ping                a comment every SSE_PING_MS (15 s), so an idle stream stays open
//   event: error          data: { message, status }, when the chat service refuses (a free workspace:
//                         403) or fails, or when the member's access ends (removed, left, a role
//                         without conversations:read, the workspace deleted: 403; signed out, a new
//                         password, the account deleted: 401; "You no longer have access to this
//                         workspace."); the stream then ends
// This file is the inbox's operation table (http/operations.ts): the one row, conversations:read.
// The stream is held (held-streams.ts): every change of the member's access is checked at once, on
// whichever replica it lands, and nothing is relayed while a check is under way.
// The stream has no deadline: it runs until the client goes, which ends the call in the chat service,
// or until the gateway stops (it ends its streams itself; the client then connects again).
// WatchInbox sends nothing until something changes, so the events start at once; a client refetches
// the inbox when it (re)connects, since a change made while it was away is not replayed.
import { gauge } from '@parley/common/metrics.ts';
import type { Permission } from '@parley/common/roles.ts';
import { mapError } from '../../http/errors.ts';
import { inboxItemView } from './inbox.ts';
import { member, restCaller } from '../../access/members.ts';
import { sendEvent } from '../../http/answer-stream.ts';
import { operation, type Operation } from '../../http/operations.ts';

const openStreams = gauge('parley_gateway_sse_inbox_open', 'Live inbox streams this gateway is relaying to members now.', []);

/** Reading the inbox is reading conversations. */
const permission: Permission = 'conversations:read';

export const inboxOperations: Operation[] = [
  operation(
    { method: 'GET', path: '/api/inbox/events', who: 'session', permission, streams: true },
    async ({ req, res, app: { clients, logger, ssePingMs, streams, held: heldStreams }, member: caller, accessMark }) => {
      // The client leaving, or this gateway stopping (it ends its open streams), ends the call in the chat service.
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const events = clients.chat.watchInbox({ ownerId: caller.ownerId }, { signal: abort.signal, timeoutMs: 0 });

      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache, no-transform');
      // Proxies such as nginx would otherwise hold the events back.
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      res.write(': connected\n\n');
      streams?.add(res);
      openStreams.inc();
      // Asked again with the same request (token, workspace, the row's permission) whenever access may have changed;
      // accessMark was taken before the row's first check of the member.
      const held = heldStreams.hold({
        holder: { userId: caller.user.id, workspaceId: caller.ownerId },
        since: accessMark,
        check: async () => {
          await member(clients, restCaller(req), permission);
          return Infinity;
        },
        end: ({ status, message }) => {
          if (!res.writableEnded && status !== 503) sendEvent(res, 'error', { message, status });
          res.end();
          abort.abort();
        },
      });
      // Nothing is written once the response has ended (the gateway stopping ends it before the call stops).
      const ping = setInterval(() => {
        if (!res.writableEnded) res.write(': ping\n\n');
      }, ssePingMs);
      try {
        for await (const { item } of events) {
          if (!(await held.allowed()) || res.writableEnded) break;
          sendEvent(res, 'conversation', inboxItemView(item));
        }
      } catch (err) {
        if (!abort.signal.aborted && !res.writableEnded) {
          const { status, message } = mapError(err, logger);
          sendEvent(res, 'error', { message, status });
        }
      } finally {
        held.release();
        clearInterval(ping);
        openStreams.dec();
      }
      res.end();
      return undefined;
    },
  ),
];
