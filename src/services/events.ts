import type { PageRequest, PageResult } from '../domain/page.ts';
import type { Principal } from '../domain/principal.ts';
import type { EventDoc, EventFilter } from '../repositories/events.ts';
import type { Repositories } from '../repositories/index.ts';
import { Service } from './service.ts';
import { authorize, confinement } from '../domain/policy.ts';
export type { EventDoc } from '../repositories/events.ts';

/**
 * The audit log as callers read it (/v1/events, the dashboard's Events page, a project's Activity tab, a
 * deployment's history). Entries are appended by the services themselves through the injected
 * EventLog (src/services/eventLog.ts), never through this class.
 */
export class EventService extends Service<Pick<Repositories, 'events'>> {
  /**
   * The principal's account's log, newest first, optionally by type, project and deployment. A project
   * filter only narrows it: another account's project, or one that does not exist, has no events here.
   * An API key sees its own project's events only.
   */
  async list(principal: Principal, filter: EventFilter, page: PageRequest): Promise<PageResult<EventDoc>> {
    // The account's log, or for a principal confined to one project (an API key), that project's events.
    const { projectId } = confinement(principal);
    authorize(principal, projectId ? 'list_project' : 'list', 'event');
    const scoped = projectId ? { ...filter, project_id: projectId } : filter;
    const result = await this.deps.events.page(principal.accountId, scoped, page);
    return filter.project_id !== undefined && filter.project_id !== scoped.project_id ? { items: [], total: 0 } : result;
  }
}
