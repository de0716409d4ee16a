export { createPlatformClient, type PlatformClient, type PlatformClientConfig, type PlatformClientDeps } from './client';
export {
  basicAuthHeader,
  createAuth,
  jwtExpiryMs,
  primaryTokenInput,
  TOKEN_INPUTS,
  type PlatformAuth,
  type AuthConfig,
  type AuthDeps,
  type TokenInputName,
} from './auth';
export type { ScheduleResult, ValidateResult, ScheduleOptions } from './data-import';
export { productDetailSchema, type ListProductsParams, type Period, type ProductDetail } from './catalogue';
export { candidateProducts, createTariffPreflight, type NotPreCheckedReason, type TariffPreflight, type TariffToCheck, type TariffVerdict } from './tariffs';
export { PLATFORM_ERROR_CODES, PlatformClientError, PlatformTransientError, PlatformFinalError, parseRetryAfter, type TransientReason } from './errors';
export { USER_AGENT, type FetchLike, type PlatformLogger } from './transport';
export { joinUrl } from './url';
export type { ImportStatusResponse } from '../../schemas/import-status';
export type { Product, StandardUnitRate } from '../../schemas/catalogue';
export { toActivityFailure } from './activity-failure';
export { explainFailedValidation, firstFieldAttr } from './explain';
export { CHECK_STEPS, checkPayload, runPlatformCheck, type CheckResult, type CheckStep } from './check';
