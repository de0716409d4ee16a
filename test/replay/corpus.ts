import fs from 'node:fs';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/**
 * The replay corpus: histories written by the last released workflow code, kept in the repository so
 * that `npm test` replays them with today's code (test/unit/replay/corpus.test.ts) and a change
 * that would break a workflow already running fails CI. Recorded by `npm run replay:record`
 * (test/replay/record.corpus.ts). Payloads are stored decrypted: the data is synthetic, and the
 * corpus must not depend on one stack's throwaway codec key.
 */
export const CORPUS_DIR = path.join(__dirname, 'histories');

export interface CorpusEntry {
  /** What the history shows: a completed run, an account parked on a paused supplier, … */
  scenario: string;
  workflowType: string;
  workflowId: string;
  /** The code that wrote it: package version and commit. */
  recordedBy: string;
  history: temporal.api.history.v1.IHistory;
}

export function writeEntry(file: string, entry: CorpusEntry): void {
  const { history, ...meta } = entry;
  // The history in its wire form (base64): exact, and independent of the SDK's JSON mapping.
  const wire = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('base64');
  fs.mkdirSync(CORPUS_DIR, { recursive: true });
  fs.writeFileSync(path.join(CORPUS_DIR, file), `${JSON.stringify({ ...meta, events: history.events?.length ?? 0, history: wire }, null, 1)}\n`);
}

export function readCorpus(): Array<CorpusEntry & { file: string }> {
  if (!fs.existsSync(CORPUS_DIR)) return [];
  return fs
    .readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, file), 'utf8'));
      return { ...raw, file, history: temporal.api.history.v1.History.decode(Buffer.from(raw.history, 'base64')) };
    });
}

const ENCRYPTED = 'binary/encrypted';

/** Every encrypted payload anywhere in the history, decrypted by `decode` (the stack's codec). */
export async function decryptHistory(history: temporal.api.history.v1.IHistory, decode: (p: Payload[]) => Promise<Payload[]>): Promise<void> {
  const visit = async (node: unknown): Promise<void> => {
    if (!node || typeof node !== 'object' || node instanceof Uint8Array) return;
    const o = node as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (isEncrypted(v)) o[k] = (await decode([v]))[0];
      else await visit(v);
    }
  };
  await visit(history);
}

function isEncrypted(v: unknown): v is Payload {
  if (!v || typeof v !== 'object') return false;
  const enc = (v as Payload).metadata?.encoding;
  return enc instanceof Uint8Array && Buffer.from(enc).toString() === ENCRYPTED;
}
