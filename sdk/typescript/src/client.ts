import { ApiClient, type ClientOptions, type RequestOptions, type RequestSpec } from './core.js';
import { Events } from './resources/events.js';
import { OAuthClients } from './resources/oauthClients.js';
import { Projects } from './resources/projects.js';
import { Users } from './resources/users.js';
import { Webhooks } from './resources/webhooks.js';

/**
 * The Slipway API client.
 *
 *   const slipway = new Slipway({ baseUrl: 'https://slipway.example.com', apiKey: process.env.SLIPWAY_API_KEY });
 *   const deployment = await slipway.projects.deployments.create(projectId, { environment: 'production', branch: 'main' });
 */
export class Slipway {
  readonly projects: Projects;
  readonly users: Users;
  readonly oauthClients: OAuthClients;
  readonly events: Events;
  readonly webhooks: Webhooks;
  readonly #api: ApiClient;

  constructor(options: ClientOptions) {
    this.#api = new ApiClient(options);
    this.projects = new Projects(this.#api);
    this.users = new Users(this.#api);
    this.oauthClients = new OAuthClients(this.#api);
    this.events = new Events(this.#api);
    this.webhooks = new Webhooks(this.#api);
  }

  get baseUrl(): string {
    return this.#api.baseUrl;
  }

  /** Any /v1 request with the client's credentials, retries and errors (for operations newer than this SDK). */
  request<T = unknown>(spec: RequestSpec, options?: RequestOptions): Promise<T> {
    return this.#api.request<T>(spec, options);
  }
}
