// The Scheduling API's SDK: a client typed by the API's OpenAPI document (openapi-fetch over libs/api-types) and what
// generation cannot know: credentials, retries, Idempotency-Keys, paging, typed errors, webhook signatures, OAuth.
export { createClient, IDEMPOTENT_POSTS, type ClientOptions, type SchedulingClient, type paths } from './client.js';
export {
  ApiError,
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
  unwrap,
  type ErrorCode,
  type ErrorDetail,
  type FetchResult,
  type SdkErrorCode,
} from './errors.js';
export { paginate, type ItemOf, type PagedPath, type PageOf, type PaginateOptions } from './paginate.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookEvent } from './webhooks.js';
export * as oauth from './oauth.js';
export type { AuthorizationRequest, AuthorizationUrlOptions, ExchangeCodeOptions, RefreshOptions, TokenSet } from './oauth.js';
