/**
 * The platform client's stable error codes (clients/platform/errors.ts throws them). They are also
 * the Temporal failure types of the activities that call the platform (domain/platform-failure.ts),
 * so the workflows name them in their retry policies and an account that ends on one is recorded
 * with the code, never with a class name. Plain constants: workflow code imports this file.
 */
export const PLATFORM_ERROR_CODES = {
  unavailable: 'platform_unavailable',
  rateLimited: 'platform_rate_limited',
  rejected: 'platform_rejected',
  authFailed: 'platform_auth_failed',
} as const;

export type TransientCode = typeof PLATFORM_ERROR_CODES.unavailable | typeof PLATFORM_ERROR_CODES.rateLimited;
export type FinalCode = typeof PLATFORM_ERROR_CODES.rejected | typeof PLATFORM_ERROR_CODES.authFailed;

/** Failure types no retry can help: the `nonRetryableErrorTypes` of every platform activity's retry policy. */
export const FINAL_PLATFORM_ERROR_CODES: FinalCode[] = [PLATFORM_ERROR_CODES.rejected, PLATFORM_ERROR_CODES.authFailed];
