export { createPlatformClient, type PlatformClient, type PlatformClientConfig, type PlatformClientDeps } from './client';
export { createAuth, jwtExpiryMs, type PlatformAuth, type AuthConfig, type AuthDeps } from './auth';
export type { ScheduleResult, ValidateResult, ScheduleOptions } from './data-import';
export type { ListProductsParams, Period } from './catalogue';
export { createTariffChecker, parseTariffCode, type TariffChecker, type TariffCodeParts } from './tariffs';
export {
  PLATFORM_ERROR_CODES,
  PlatformClientError,
  PlatformTransientError,
  PlatformFinalError,
  parseRetryAfter,
  type TransientReason,
} from './errors';
export { USER_AGENT, type FetchLike, type PlatformLogger } from './transport';
export { joinUrl } from './url';
export type { ImportStatusResponse, Product, ProductDetail, StandardUnitRate } from './pending-schemas';
