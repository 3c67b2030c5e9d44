import { Injectable } from '@nestjs/common';
import type { Worker } from 'bullmq';

/** The BullMQ workers a worker service runs, for its readiness check and its graceful stop. */
@Injectable()
export class WorkerRegistry {
  readonly workers: Worker[] = [];

  /** Ready: every worker is running and none is closing. */
  ready(): boolean {
    return this.workers.every((worker) => worker.isRunning() && !worker.closing);
  }

  /** Stops fetching new jobs and resolves once every in-flight job has finished. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }
}
