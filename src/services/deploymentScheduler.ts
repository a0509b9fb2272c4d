import { PollLoop } from '../lib/pollLoop.ts';
import type { Logger } from '../logger.ts';
import type { DeploymentService } from './deployments.ts';
import { Service } from './service.ts';

/** How often every instance looks for waiting deployments that are due: well inside the promised 5 s. */
export const SCHEDULER_INTERVAL_MS = 1000;

export interface DeploymentSchedulerDeps {
  deployments: DeploymentService;
  logger: Logger;
  intervalMs?: number;
}

/**
 * docs/product.md §9: moves a waiting deployment to `queued` by itself once its approvals are met and its
 * wait timer ran out. Every instance runs one (src/server.ts starts it; the CLI never does); what is due
 * is read from the database by the server's clock on every tick, so a timer that ran out while every
 * instance was down is seen by the first tick after one comes back, and the `decided` claim
 * (DeploymentService.releaseDue) makes each move once however many instances see it.
 */
export class DeploymentScheduler extends Service<DeploymentSchedulerDeps> {
  readonly #loop = new PollLoop(
    () => this.deps.deployments.releaseDue().catch((err: unknown) => this.deps.logger.warn({ err }, 'releasing due deployments failed')),
    () => this.deps.intervalMs ?? SCHEDULER_INTERVAL_MS,
  );

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
  }
}
