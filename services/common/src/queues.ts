// Queues between services (BullMQ on Redis). Each job's payload is a proto event message in its
// JSON form, so producer and consumer share one contract. Producers and workers count what they do
// (metrics.ts): jobs published, processed and failed, by queue; each process reports, when scraped,
// the depth of the queues it consumes. A job carries the trace context of the work that published
// it in BullMQ's own telemetry field of the job's options (stored with the job by the same command,
// outside the payload), and its worker continues that trace.
import { createHash } from 'node:crypto';
import type { Job, JobsOptions } from 'bullmq';
import { Queue, Worker, UnrecoverableError } from './bullmq.ts';
import { fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import type { Redis } from 'ioredis';
import { commonVars, readConfig } from './config.ts';
import { currentTrace, formatTraceparent, parseTraceparent, runWithRequestId } from './context.ts';
import { withDeadline } from './deadline.ts';
import type { Logger } from './logger.ts';
import { counter, gauge } from './metrics.ts';
import { startSpan } from './tracing.ts';

/**
 * Queue names. NEVER rename a value: jobs already waiting in Redis are stored under these names,
 * and a renamed queue silently strands them.
 */
export const QUEUES = {
  userRegistered: 'parley.user-registered',
  usageRecorded: 'parley.usage-recorded',
  /**
   * ChatbotInteraction per answered message, for the chatbot's counter. No longer published (ADR 23:
   * the counter is fed by chatbotInteractionsCounted); the chatbot service still consumes what waits in it.
   */
  chatbotInteraction: 'parley.chatbot-interaction',
  chatbotDeleted: 'parley.chatbot-deleted',
  stripeEvents: 'parley.stripe-events',
  /** Auth's own background job: look up the email, issue a reset token, send the mail. */
  passwordResetRequested: 'parley.password-reset-requested',
  /** AccountDeleted fans out: one queue per service that holds the owner's data. */
  accountDeletedChatbot: 'parley.account-deleted.chatbot',
  accountDeletedChat: 'parley.account-deleted.chat',
  accountDeletedBilling: 'parley.account-deleted.billing',
  /** The chatbot service's own background jobs: parse an uploaded file, fetch or crawl a web page, re-fetch one. */
  knowledgeIngest: 'parley.knowledge-ingest',
  /** ChatbotInteraction again, for the chat service's own analytics worker (ADR 18, ADR 23). */
  chatbotInteractionAnalytics: 'parley.chatbot-interaction.analytics',
  /** The chatbot service's own background jobs: embed an entry's chunks (only with an embeddings model). */
  knowledgeEmbed: 'parley.knowledge-embed',
  /** ChatbotInteractionsCounted: the chat service's analytics worker tells the chatbot service how many answered messages of a chatbot it counted (ADR 23). */
  chatbotInteractionsCounted: 'parley.chatbot-interactions-counted',
  /** WorkspaceCreated: auth announces a workspace created besides a personal one; billing opens its account (ADR 30). */
  workspaceCreated: 'parley.workspace-created',
  /** WebhookEvent (in batches): chat, billing and the chatbot service announce what webhooks may carry; the chatbot service fans each out to its owner's endpoints (ADR 32). */
  webhookEvents: 'parley.webhook-events',
  /** The chatbot service's own background jobs: one attempt at a signed webhook delivery (ADR 32). */
  webhookDeliveries: 'parley.webhook-deliveries',
  /** WebhookEndpointDisabled: the chatbot service disabled a failing endpoint; auth mails the workspace's owners (ADR 32). */
  webhookEndpointDisabled: 'parley.webhook-endpoint-disabled',
  /** The chat service's own delayed jobs: a visitor waiting for a person whom nobody answered in time goes back to the bot (ADR 34). */
  handoffTimeout: 'parley.handoff-timeout',
  /** HandoffRequested: a visitor is waiting for a person; auth mails the workspace's agents who chose to be told (ADR 34). */
  handoffRequested: 'parley.handoff-requested',
  /** RetentionSwept: a service deleted what was past a workspace's retention windows; auth audits the counts (ADR 48). */
  retentionSwept: 'parley.retention-swept',
  /** ChatbotChanged: the chatbot service committed a change of what a chatbot's answers read; chat schedules its automatic test run (ADR 50). */
  chatbotChanged: 'parley.chatbot-changed',
  /** The chat service's own jobs: a test run to answer, or a chatbot's automatic run once its changes settled (debounced, ADR 50). */
  testRun: 'parley.test-run',
  /** TestRunRegressed: a test run finished with regressions of a chatbot whose owner asked for the mail; auth mails the workspace's owners, once per run (ADR 61). */
  testRunRegressed: 'parley.test-run-regressed',
  /** ChannelMessageReceived: the chat service's own jobs, a channel user's message verified by the webhook, answered once by its provider message id (ADR 44). */
  channelInbound: 'parley.channel-inbound',
  /** ChannelReplyRequested: the chat service's own jobs, an agent's inbox reply to a channel's conversation, sent on the channel (ADR 44). */
  channelOutbound: 'parley.channel-outbound',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const DEFAULT_QUEUE_PREFIX = 'parley';

const defaultJobOptions: JobsOptions = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 500 },
  // Completed jobs are kept a day so a repeated job id within that window is ignored by BullMQ;
  // consumers are idempotent anyway, keyed on the same id.
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * A batch's job (ADR 29) is kept by count alone: its id is a hash of its events' ids, needed only
 * while its publish may be retried (seconds), and each consumer applies an event once by its own id.
 * Without the age, completing a job costs one Redis command less (no scan of the completed set by
 * age: ADR 51).
 */
const batchJobOptions: JobsOptions = { ...defaultJobOptions, removeOnComplete: { count: 100_000 } };

/** The Redis client queues commands while disconnected; a deadline keeps a publisher from hanging on it. */
export const PUBLISH_TIMEOUT_MS = 3000;

const jobsPublished = counter(
  'parley_queue_jobs_published_total',
  'Jobs this process added to a queue (a job id added again counts again, though the queue keeps it once), by queue.',
  ['queue'],
);
const jobsProcessed = counter('parley_queue_jobs_processed_total', "Jobs this process's workers completed, by queue.", ['queue']);
const jobsFailed = counter(
  'parley_queue_jobs_failed_total',
  "Attempts of a job that failed in this process's workers (retried or not), by queue.",
  ['queue'],
);

export interface Producer<D extends DescMessage> {
  /**
   * Enqueues the event under `jobId`; the same id twice enqueues it once. Fails after PUBLISH_TIMEOUT_MS.
   * `delayMs`: the job is processed no sooner than that (a deadline, e.g. a handoff's wait).
   * `debounceId` (with `delayMs`): a job of the same id still waiting is replaced and its delay starts
   * again, so a burst of publishes becomes one job, `delayMs` after the last (BullMQ's deduplication).
   */
  publish(event: MessageShape<D>, jobId: string, opts?: { delayMs?: number; debounceId?: string }): Promise<void>;
  close(): Promise<void>;
}

export function createProducer<D extends DescMessage>(
  connection: Redis,
  name: QueueName,
  schema: D,
  opts: {
    prefix?: string;
    retries?: { attempts: number; backoffMs: number };
    /**
     * The publishes made in one turn of the event loop (a burst of webhook calls read in the same
     * turn) are added together, with one addBulk: one Redis round trip and one write for them all,
     * each still its own job under its own id, and each publish resolved only once that round trip
     * answered. A failed round trip fails every publish of it (a job of it may still have been
     * added: its id keeps the caller's retry from adding it twice).
     */
    gatherTurn?: boolean;
  } = {},
): Producer<D> {
  // A queue may set its own retries (exponential backoff from backoffMs): webhook deliveries retry for a day.
  const jobOptions: JobsOptions = opts.retries
    ? { ...defaultJobOptions, attempts: opts.retries.attempts, backoff: { type: 'exponential', delay: opts.retries.backoffMs } }
    : defaultJobOptions;
  const queue = new Queue(name, { connection, prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX, defaultJobOptions: jobOptions });
  const published = jobsPublished.series({ queue: name });
  const timedOut = `publish timed out after ${PUBLISH_TIMEOUT_MS} ms`;
  type Gathered = { job: { name: string; data: object; opts: JobsOptions }; settle: (err?: Error) => void };
  let gathered: Gathered[] = [];
  const addGathered = () => {
    const jobs = gathered;
    gathered = [];
    // A publish alone in its turn is added alone: a batch's pipeline costs more to set up than one add.
    const adding: Promise<unknown> =
      jobs.length === 1 ? queue.add(jobs[0].job.name, jobs[0].job.data, jobs[0].job.opts) : queue.addBulk(jobs.map((g) => g.job));
    withDeadline(adding, PUBLISH_TIMEOUT_MS, timedOut).then(
      () => {
        published.inc(jobs.length);
        for (const g of jobs) g.settle();
      },
      (err: Error) => {
        for (const g of jobs) g.settle(err);
      },
    );
  };
  return {
    async publish(event, jobId, publishOpts) {
      const trace = currentTrace();
      const data = toJson(schema, event) as object;
      const jobOpts: JobsOptions = {
        jobId: safeJobId(jobId),
        ...(publishOpts?.delayMs ? { delay: publishOpts.delayMs } : {}),
        ...(publishOpts?.debounceId && publishOpts.delayMs
          ? { deduplication: { id: safeJobId(publishOpts.debounceId), ttl: publishOpts.delayMs, extend: true, replace: true } }
          : {}),
        ...(trace ? { telemetry: { metadata: formatTraceparent(trace) } } : {}),
      };
      if (opts.gatherTurn) {
        await new Promise<void>((resolve, reject) => {
          // The first publish of the turn adds them all once this turn's other callbacks have run.
          if (gathered.length === 0) setImmediate(addGathered);
          gathered.push({ job: { name: schema.typeName, data, opts: jobOpts }, settle: (err) => (err ? reject(err) : resolve()) });
        });
        return;
      }
      await withDeadline(queue.add(schema.typeName, data, jobOpts), PUBLISH_TIMEOUT_MS, timedOut);
      published.inc();
    },
    close: () => queue.close(),
  };
}

/**
 * A batch message of a queue's events (`repeated` of the event), and how to wrap and unwrap it: the
 * form a BatchProducer publishes and a worker given it reads beside the single events.
 */
export interface EventBatch<D extends DescMessage, B extends DescMessage> {
  schema: B;
  wrap(events: MessageShape<D>[]): MessageShape<B>;
  unwrap(batch: MessageShape<B>): MessageShape<D>[];
}

export interface BatchProducer<D extends DescMessage> {
  /**
   * Adds the event (its id, the one a single job would have had) to the batch being gathered, which
   * is published within `waitMs`. Returns at once: a batch that cannot be published is logged with
   * its events' ids (nothing is thrown to the caller, whose answer is already given).
   */
  publish(event: MessageShape<D>, id: string): void;
  /** Publishes what is gathered now, and resolves once every batch so far is published (or logged as failed). */
  flush(): Promise<void>;
  /** Flushes, then closes the queue (at shutdown, after the last answer). */
  close(): Promise<void>;
}

/**
 * A producer that publishes the events arriving within `waitMs` of each other (up to `maxEvents`)
 * as one job of their batch message (ADR 29): under load, one job stands for many events, and its
 * Redis commands and its consumer's fetch and completion with it. The job's id is a hash of its
 * events' ids, so a publish retried after a timeout adds it once; consumers apply each event once
 * by its own id, so a batch delivered again, or an event also published alone, changes nothing.
 * A batch whose publish fails is tried once more, then logged with every id it carried. Each event
 * keeps the trace context it was published in: the job's telemetry field carries one traceparent per
 * event, comma-separated, in the batch's order (empty where there was none).
 */
export function createBatchProducer<D extends DescMessage, B extends DescMessage>(
  connection: Redis,
  name: QueueName,
  batch: EventBatch<D, B>,
  opts: { prefix?: string; waitMs: number; maxEvents: number; logger: Logger },
): BatchProducer<D> {
  const queue = new Queue(name, { connection, prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX, defaultJobOptions: batchJobOptions });
  const published = jobsPublished.series({ queue: name });
  type Gathered = { event: MessageShape<D>; id: string; traceparent: string };
  let gathered: Gathered[] = [];
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  const add = async (events: Gathered[]) => {
    const ids = events.map((e) => e.id);
    const jobId = `batch-${createHash('sha256').update(ids.join('\n')).digest('hex').slice(0, 40)}`;
    const data = toJson(batch.schema, batch.wrap(events.map((e) => e.event))) as object;
    const traceparents = events.map((e) => e.traceparent);
    return withDeadline(
      queue.add(batch.schema.typeName, data, {
        jobId,
        ...(traceparents.some(Boolean) ? { telemetry: { metadata: traceparents.join(',') } } : {}),
      }),
      PUBLISH_TIMEOUT_MS,
      `publish timed out after ${PUBLISH_TIMEOUT_MS} ms`,
    );
  };
  const publishGathered = () => {
    clearTimeout(timer);
    timer = undefined;
    const events = gathered;
    gathered = [];
    if (events.length === 0) return;
    const publishing = add(events)
      .catch(() => add(events))
      .then(
        () => published.inc(),
        (err: Error) =>
          opts.logger.error({ queue: name, ids: events.map((e) => e.id), err: err.message }, 'publishing a batch of events failed'),
      )
      .finally(() => inFlight.delete(publishing));
    inFlight.add(publishing);
  };

  return {
    publish(event, id) {
      const trace = currentTrace();
      gathered.push({ event, id, traceparent: trace ? formatTraceparent(trace) : '' });
      if (gathered.length >= opts.maxEvents) publishGathered();
      else timer ??= setTimeout(publishGathered, opts.waitMs);
    },
    async flush() {
      publishGathered();
      await Promise.all(inFlight);
    },
    async close() {
      await this.flush();
      await queue.close();
    },
  };
}

/** BullMQ job ids may not contain ':' and may not be plain integers. */
export function safeJobId(id: string): string {
  return id.replace(/:/g, '_');
}

export interface WorkerOptions<D extends DescMessage = DescMessage, B extends DescMessage = DescMessage> {
  prefix?: string;
  concurrency?: number;
  logger: Logger;
  /**
   * The queue's batch message, read beside single events: each event of a batch job goes to the
   * handler on its own, side by side. An event whose handler fails for good (UnrecoverableError) is
   * logged and left; any other failure fails the job, which is retried whole (handlers are
   * idempotent by the event's id, so the events already applied change nothing).
   */
  batch?: EventBatch<D, B>;
}

export type EventHandler<D extends DescMessage> = (event: MessageShape<D>, job: Job) => Promise<void>;

/**
 * How every worker of a process waits and looks after its jobs, from QUEUE_IDLE_WAIT_SECONDS and
 * QUEUE_STALLED_CHECK_SECONDS (commonVars: each service validates them at start). An idle worker
 * blocks on Redis that long before asking again (a job added wakes it at once, so this only sets how
 * often an idle process polls); every stalled-check interval it takes back the jobs of a worker that
 * stopped mid-job, which are retried.
 */
export function workerTiming(env: NodeJS.ProcessEnv = process.env): { idleWaitSeconds: number; stalledCheckMs: number } {
  const { QUEUE_IDLE_WAIT_SECONDS, QUEUE_STALLED_CHECK_SECONDS } = readConfig(
    { QUEUE_IDLE_WAIT_SECONDS: commonVars.QUEUE_IDLE_WAIT_SECONDS, QUEUE_STALLED_CHECK_SECONDS: commonVars.QUEUE_STALLED_CHECK_SECONDS },
    env,
  );
  return { idleWaitSeconds: QUEUE_IDLE_WAIT_SECONDS, stalledCheckMs: QUEUE_STALLED_CHECK_SECONDS * 1000 };
}

/** A worker that decodes each job's proto payload and hands it to `handler` (a use case). */
export function createWorker<D extends DescMessage, B extends DescMessage = DescMessage>(
  connection: Redis,
  name: QueueName,
  schema: D,
  handler: EventHandler<D>,
  opts: WorkerOptions<D, B>,
): Worker {
  const timing = workerTiming();
  /** One event, continuing the trace of the work that published it (a new trace without one). */
  const processEvent = async (event: MessageShape<D>, job: Job, traceparent: string | undefined) => {
    const span = startSpan(`process ${name}`, 'consumer', parseTraceparent(traceparent), {
      'messaging.system': 'bullmq',
      'messaging.destination.name': name,
    });
    try {
      await runWithRequestId(
        job.id,
        async () => {
          await handler(event, job);
          opts.logger.debug({ queue: name, jobId: job.id }, 'job processed');
        },
        span.context,
      );
      span.end();
    } catch (err) {
      span.end(undefined, (err as Error).message);
      throw err;
    }
  };
  const processed = jobsProcessed.series({ queue: name });
  const failed = jobsFailed.series({ queue: name });
  const worker = new Worker(
    name,
    async (job) => {
      const { batch } = opts;
      if (batch && job.name === batch.schema.typeName) {
        let events: MessageShape<D>[];
        try {
          events = batch.unwrap(fromJson(batch.schema, job.data as JsonValue));
        } catch (err) {
          throw new UnrecoverableError(`invalid ${batch.schema.typeName} payload: ${(err as Error).message}`);
        }
        const traceparents = job.opts.telemetry?.metadata?.split(',') ?? [];
        const outcomes = await Promise.allSettled(events.map((event, i) => processEvent(event, job, traceparents[i])));
        const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as Error] : []));
        for (const err of failures.filter((f) => f instanceof UnrecoverableError))
          opts.logger.error({ queue: name, jobId: job.id, err: err.message }, 'an event of a batch can never be applied: left');
        const retryable = failures.find((f) => !(f instanceof UnrecoverableError));
        if (retryable) throw retryable;
        return;
      }
      let event: MessageShape<D>;
      try {
        event = fromJson(schema, job.data as JsonValue);
      } catch (err) {
        throw new UnrecoverableError(`invalid ${schema.typeName} payload: ${(err as Error).message}`);
      }
      await processEvent(event, job, job.opts.telemetry?.metadata);
    },
    {
      connection,
      prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX,
      concurrency: opts.concurrency ?? 4,
      autorun: true,
      drainDelay: timing.idleWaitSeconds,
      stalledInterval: timing.stalledCheckMs,
    },
  );
  const watched = { name, connection, prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX };
  consumedQueues.add(watched);
  worker.on('closed', () => {
    consumedQueues.delete(watched);
    const key = `${watched.prefix}:${name}`;
    void depthReaders.get(key)?.close();
    depthReaders.delete(key);
  });
  worker.on('completed', () => processed.inc());
  worker.on('failed', (job, err) => {
    failed.inc();
    opts.logger.warn({ queue: name, jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed');
  });
  worker.on('error', (err) => opts.logger.error({ queue: name, err: err.message }, 'worker error'));
  return worker;
}

// --- Depth, computed when scraped --------------------------------------------------------------------

/** The queues this process's workers consume: their depth is what /metrics reports for the process. */
const consumedQueues = new Set<{ name: QueueName; connection: Redis; prefix: string }>();
/** One Queue per consumed queue, opened at the first scrape on the worker's connection. */
const depthReaders = new Map<string, Queue>();

const DEPTH_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** A scrape does not wait on an unreachable Redis longer than this. */
const DEPTH_TIMEOUT_MS = 2000;

/**
 * Reads the depth of every consumed queue once per scrape (a few Redis commands per queue, only when
 * scraped, never per message), for both gauges: the second one's collect waits for the same read.
 */
let depthRead: Promise<void> | undefined;
const readDepth = () => (depthRead ??= collectDepth().finally(() => (depthRead = undefined)));

async function collectDepth(): Promise<void> {
  queueJobs.reset();
  oldestWaiting.reset();
  await Promise.all(
    [...consumedQueues].map(async ({ name, connection, prefix }) => {
      const key = `${prefix}:${name}`;
      let queue = depthReaders.get(key);
      if (!queue) {
        queue = new Queue(name, { connection, prefix });
        depthReaders.set(key, queue);
      }
      try {
        const [counts, oldest] = await withDeadline(
          Promise.all([queue.getJobCounts(...DEPTH_STATES), queue.getJobs(['wait'], 0, 0, true)]),
          DEPTH_TIMEOUT_MS,
          `queue depth not read within ${DEPTH_TIMEOUT_MS} ms`,
        );
        for (const state of DEPTH_STATES) queueJobs.labels(name, state).set(counts[state] ?? 0);
        oldestWaiting.labels(name).set(oldest[0] ? Math.max(0, (Date.now() - oldest[0].timestamp) / 1000) : 0);
      } catch {
        // Redis unreachable: the queue is left out of this scrape (its series absent, not a false 0).
      }
    }),
  );
}

const queueJobs = gauge(
  'parley_queue_jobs',
  'Jobs in a queue this process consumes, by queue and state (waiting, active, delayed, failed), read from Redis when scraped.',
  ['queue', 'state'],
  readDepth,
);
const oldestWaiting = gauge(
  'parley_queue_oldest_waiting_age_seconds',
  'Age of the oldest job waiting in a queue this process consumes (0 when none waits), read from Redis when scraped.',
  ['queue'],
  readDepth,
);
