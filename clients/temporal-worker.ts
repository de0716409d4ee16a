import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { temporalConnectionOptions } from './temporal';

// Apart from clients/temporal.ts: @temporalio/worker (with rxjs, ~300 modules) is loaded only by
// the processes that run workers, not by every CLI command that talks to Temporal as a client.
export async function connectWorker(cfg: Config): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(cfg) as NativeConnectionOptions);
}
