import { ApiClient, type ClientOptions, type RequestOptions, type RequestSpec } from './core.js';
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

  constructor(options: ClientOptions) {
    const api = new ApiClient(options);
    super(api);
    this.#api = api;
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
