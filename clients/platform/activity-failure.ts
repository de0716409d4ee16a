import { platformFailure } from '../../domain/platform-failure';
import { PlatformClientError } from './errors';

/**
 * A platform client error as the Temporal failure an activity throws (the mapping itself is
 * domain/platform-failure.ts: type = the stable code). Anything else is returned unchanged.
 */
export function toActivityFailure(e: unknown): unknown {
  return e instanceof PlatformClientError ? platformFailure(e) : e;
}
