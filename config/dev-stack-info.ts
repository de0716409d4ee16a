// Apart from stack/stack.ts so the CLI reads a running stack's stack.json (cli/context.ts) without
// loading what starts one (the AWS SDK, yaml, the Temporal server tooling).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** What tools and tests need to reach a running stack; written to `<DATA_DIR>/stack.json`. No secrets. */
export const stackInfoSchema = z.object({
  /** `dev` (or absent): the CLI's dev server (SQLite); `server`: the full Temporal server on the stack's Postgres. */
  temporalEngine: z.enum(['dev', 'server']).optional(),
  temporalUiUrl: z.string(),
  temporalAddress: z.string(),
  temporalNamespace: z.string(),
  databaseUrl: z.string(),
  s3Endpoint: z.string(),
  sqsEndpoint: z.string(),
  eventsQueueUrl: z.string(),
  platformBucket: z.string(),
  sandboxUrl: z.string(),
  eventsUrl: z.string(),
  codecUrl: z.string(),
  /** Each process's metrics (Prometheus text) by name: `worker-1`, …, `events`, `codec`. */
  metrics: z.record(z.string(), z.string()).default({}),
  dataDir: z.string(),
  workerPids: z.array(z.number()),
  startedAt: z.string(),
});
export type StackInfo = z.infer<typeof stackInfoSchema>;

export function readStackInfo(dataDir: string): StackInfo | undefined {
  const file = path.join(dataDir, 'stack.json');
  if (!fs.existsSync(file)) return undefined;
  return stackInfoSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
}
