import { ApiClient, type ClientOptions, type RequestOptions, type RequestSpec } from './core.js';
import { DeploymentLogsFollowing } from './follow.js';
import { Resources } from './resources/index.js';

/**
 * The Slipway API client: one namespace per resource (generated from the OpenAPI document), child
 * resources taking their parent's id first.
 *
 *   const slipway = new Slipway({ baseUrl: 'https://slipway.example.com', apiKey: process.env.SLIPWAY_API_KEY });
 *   const deployment = await slipway.deployments.create(projectId, { environment: 'production', branch: 'main' });
 */
export class Slipway extends Resources {
  readonly #api: ApiClient;
  /** `read`, `append`, and `follow` (the log live, resumed by itself after a dropped connection). */
  declare readonly deploymentLogs: DeploymentLogsFollowing;

  constructor(options: ClientOptions) {
    const api = new ApiClient(options);
    super(api);
    this.#api = api;
    // The generated namespace plus the hand-written `follow` (src/follow.ts).
    Object.defineProperty(this, 'deploymentLogs', { value: new DeploymentLogsFollowing(api), enumerable: true, writable: false, configurable: false });
  }

  get baseUrl(): string {
    return this.#api.baseUrl;
  }

  /**
   * Any request under the base URL with the client's credentials, retries, per-call options and
   * errors, for operations this SDK does not wrap yet: `slipway.request({ method: 'GET', path:
   * '/v1/projects', query: { per_page: 5 } })`. Resolves with the parsed JSON (undefined for 204).
   */
  request<T = unknown>(spec: RequestSpec, options?: RequestOptions): Promise<T> {
    return this.#api.request<T>(spec, options);
  }
}
