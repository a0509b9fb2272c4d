export { Slipway } from './client.js';
export { API_VERSION, VERSION, parseRetryAfter, type ClientOptions, type RequestOptions, type AuthorizedRequest, type RequestSpec, type TokenProvider } from './core.js';
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  ErrorCode,
  NotFoundError,
  OAuthError,
  PermissionDeniedError,
  RateLimitError,
  RequestAbortedError,
  ServerError,
  SlipwayError,
  TimeoutError,
  ValidationError,
  type ErrorDetail,
} from './errors.js';
export { OAuthSession, SlipwayOAuth, type AuthorizationRequest, type OAuthOptions, type OAuthSessionOptions, type TokenSet } from './oauth.js';
export { DeploymentLogsFollowing, type FollowOptions, type LogEvent, type LogLine } from './follow.js';
export { paginate } from './pagination.js';
export { JWT_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT, exchangeCiToken, readCiToken, type CiTokenExchange, type CiTokenExchangeOptions, type CiTokenSource } from './ciToken.js';
export type { APIKeys, Configurations, Deployments, Events, OAuthClients, Projects, Users, Webhooks } from './resources/index.js';
export type * from './types.js';
export { WebhookSignatureError, constructWebhookEvent, verifyWebhookSignature, type VerifyWebhookOptions } from './webhooks.js';
