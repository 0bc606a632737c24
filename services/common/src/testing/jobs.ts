// Waiting on queue workers in tests.
import type { Job, Worker } from 'bullmq';

/** Resolves when `worker` has finished an attempt at the job with this id: completed or failed. */
export function jobSettled(worker: Worker, jobId: string): Promise<{ state: 'completed' | 'failed'; job: Job; error?: Error }> {
  return new Promise((resolve) => {
    const onCompleted = (job: Job) => {
      if (job.id !== jobId) return;
      off();
      resolve({ state: 'completed', job });
    };
    const onFailed = (job: Job | undefined, error: Error) => {
      if (job?.id !== jobId) return;
      off();
      resolve({ state: 'failed', job: job!, error });
    };
    const off = () => {
      worker.off('completed', onCompleted);
      worker.off('failed', onFailed);
    };
    worker.on('completed', onCompleted);
    worker.on('failed', onFailed);
  });
}
