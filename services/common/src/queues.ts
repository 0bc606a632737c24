// Queues between services (BullMQ on Redis). Each job's payload is a proto event message in its
// JSON form, so producer and consumer share one contract. Producers and workers count what they do
// (metrics.ts): jobs published, processed and failed, by queue.
import { createHash } from 'node:crypto';
import { Queue, Worker, UnrecoverableError, type Job, type JobsOptions } from 'bullmq';
import { fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import type { Redis } from 'ioredis';
import { commonVars, readConfig } from './config.ts';
import { runWithRequestId } from './context.ts';
import { withDeadline } from './deadline.ts';
import type { Logger } from './logger.ts';
import { counter } from './metrics.ts';

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
  /** Enqueues the event under `jobId`; the same id twice enqueues it once. Fails after PUBLISH_TIMEOUT_MS. */
  publish(event: MessageShape<D>, jobId: string): Promise<void>;
  close(): Promise<void>;
}

export function createProducer<D extends DescMessage>(
  connection: Redis,
  name: QueueName,
  schema: D,
  opts: { prefix?: string } = {},
): Producer<D> {
  const queue = new Queue(name, { connection, prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX, defaultJobOptions });
  const published = jobsPublished.series({ queue: name });
  return {
    async publish(event, jobId) {
      await withDeadline(
        queue.add(schema.typeName, toJson(schema, event) as object, { jobId: safeJobId(jobId) }),
        PUBLISH_TIMEOUT_MS,
        `publish timed out after ${PUBLISH_TIMEOUT_MS} ms`,
      );
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
 * A batch whose publish fails is tried once more, then logged with every id it carried.
 */
export function createBatchProducer<D extends DescMessage, B extends DescMessage>(
  connection: Redis,
  name: QueueName,
  batch: EventBatch<D, B>,
  opts: { prefix?: string; waitMs: number; maxEvents: number; logger: Logger },
): BatchProducer<D> {
  const queue = new Queue(name, { connection, prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX, defaultJobOptions });
  const published = jobsPublished.series({ queue: name });
  let gathered: { event: MessageShape<D>; id: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  const add = async (events: { event: MessageShape<D>; id: string }[]) => {
    const ids = events.map((e) => e.id);
    const jobId = `batch-${createHash('sha256').update(ids.join('\n')).digest('hex').slice(0, 40)}`;
    const data = toJson(batch.schema, batch.wrap(events.map((e) => e.event))) as object;
    return withDeadline(
      queue.add(batch.schema.typeName, data, { jobId }),
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
      gathered.push({ event, id });
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
        const outcomes = await runWithRequestId(job.id, () => Promise.allSettled(events.map((event) => handler(event, job))));
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
      await runWithRequestId(job.id, () => handler(event, job));
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
  worker.on('completed', () => processed.inc());
  worker.on('failed', (job, err) => {
    failed.inc();
    opts.logger.warn({ queue: name, jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed');
  });
  worker.on('error', (err) => opts.logger.error({ queue: name, err: err.message }, 'worker error'));
  return worker;
}
