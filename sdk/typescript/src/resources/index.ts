// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { ApiClient } from '../core.js';
import { Projects } from './projects.js';
import { Deployments } from './deployments.js';
import { DeploymentLogs } from './deploymentLogs.js';
import { Environments } from './environments.js';
import { Configurations } from './configurations.js';
import { APIKeys } from './apiKeys.js';
import { Users } from './users.js';
import { Accounts } from './accounts.js';
import { OAuthClients } from './oauthClients.js';
import { Events } from './events.js';
import { Webhooks } from './webhooks.js';
import { TrustPolicies } from './trustPolicies.js';

export { Projects, Deployments, DeploymentLogs, Environments, Configurations, APIKeys, Users, Accounts, OAuthClients, Events, Webhooks, TrustPolicies };

/**
 * The flat resource tree, one namespace per resource of the API (child resources take their
 * parent's id first).
 */
export class Resources {
  readonly projects: Projects;
  readonly deployments: Deployments;
  readonly deploymentLogs: DeploymentLogs;
  readonly environments: Environments;
  readonly configurations: Configurations;
  readonly apiKeys: APIKeys;
  readonly users: Users;
  readonly accounts: Accounts;
  readonly oauthClients: OAuthClients;
  readonly events: Events;
  readonly webhooks: Webhooks;
  readonly trustPolicies: TrustPolicies;

  constructor(api: ApiClient) {
    this.projects = new Projects(api);
    this.deployments = new Deployments(api);
    this.deploymentLogs = new DeploymentLogs(api);
    this.environments = new Environments(api);
    this.configurations = new Configurations(api);
    this.apiKeys = new APIKeys(api);
    this.users = new Users(api);
    this.accounts = new Accounts(api);
    this.oauthClients = new OAuthClients(api);
    this.events = new Events(api);
    this.webhooks = new Webhooks(api);
    this.trustPolicies = new TrustPolicies(api);
  }
}
