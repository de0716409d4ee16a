import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Prng } from './prng';
import type { RuntimeState } from './state';
import { sleep } from './loop';

const SERVER_ERRORS = [500, 502, 503] as const;

/**
 * The request-side fault knobs, applied to data-import routes only (never /admin, the catalogue or
 * the token endpoint): latency (mean ± uniform jitter), dropped connections, 429 with
 * Retry-After, 5xx. Returns true when the request was answered (or killed) here.
 */
export async function injectRequestFaults(
  req: FastifyRequest,
  reply: FastifyReply,
  state: RuntimeState,
  prng: Prng,
  onThrottled: (retryAfterSeconds: number) => Promise<void> = async () => {},
): Promise<boolean> {
  const f = state.faults;
  const jitter = f.latencyJitterMs ? (prng.next() * 2 - 1) * f.latencyJitterMs : 0;
  const delay = Math.max(0, f.latencyMs + jitter);
  if (delay > 0) await sleep(delay);
  if (prng.chance(f.dropConnectionRate)) {
    reply.hijack();
    req.raw.socket.destroy();
    return true;
  }
  if (prng.chance(f.error429Rate)) {
    await onThrottled(f.retryAfterSeconds);
    await sendThrottled(reply, f.retryAfterSeconds);
    return true;
  }
  if (prng.chance(f.error5xxRate)) {
    await sendServerError(reply, prng.pick(SERVER_ERRORS));
    return true;
  }
  return false;
}

export function sendThrottled(reply: FastifyReply, retryAfterSeconds: number) {
  return reply
    .code(429)
    .header('Retry-After', String(retryAfterSeconds))
    .send({ detail: `Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`, code: 'throttled' });
}

export function sendServerError(reply: FastifyReply, status: number) {
  return reply.code(status).send({ detail: 'A server error occurred.', code: 'server_error' });
}

/**
 * "Accepted, response lost": the import exists, but the client sees a dropped connection or a 502
 * (half each). Returns true when the answer was swallowed.
 */
export async function loseResponse(req: FastifyRequest, reply: FastifyReply, state: RuntimeState, prng: Prng): Promise<boolean> {
  if (!prng.chance(state.faults.responseLostRate)) return false;
  if (prng.next() < 0.5) {
    reply.hijack();
    req.raw.socket.destroy();
  } else {
    await sendServerError(reply, 502);
  }
  return true;
}
