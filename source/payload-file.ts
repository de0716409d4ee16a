import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PAYLOAD_CODES, type PayloadRead, type PayloadSource } from './adapter-contract';
import { isGzip, MAX_PAYLOAD_LINE_BYTES, openPayloadFile, readPayloadLines, type PayloadFileLine } from '../schemas/json-lines';
import { readAt } from './record-reader';
import { HOSTILE_JSON_CODES, hostileJsonProblem } from '../schemas/hostile-json';
import { assertRegularFile, InputFileError } from '../schemas/input-file';
import { DiskLineIndex, type IndexedLine } from './line-index';

/**
 * A team's own payloads, one EnergyAccount per line (`.jsonl`, or `.jsonl.gz`: decompressed once
 * into a private temporary folder, since a gzip stream cannot be read at an offset; the copy is
 * removed on `close()` or at process exit). Payloads are read by byte offset from an index built on
 * first use (account number → lines, on disk: source/line-index.ts), never by loading
 * the file. What a line cannot give (JSON, an object, a number, a sane size) fails that line's
 * account only; two lines with one number fail that number, naming both lines.
 */

type Entry = IndexedLine;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The index key of a line that names no account of its own. */
export const lineKey = (line: number) => `#line-${line}`;

/** Reads one line's account number and what is wrong with it, without keeping the payload. */
export function indexLine(l: PayloadFileLine, maxLineBytes = MAX_PAYLOAD_LINE_BYTES): { key: string; entry: Entry } {
  const at = { line: l.line, offset: l.offset, length: l.length };
  if ('tooLarge' in l) {
    return {
      key: lineKey(l.line),
      entry: {
        ...at,
        problem: { code: PAYLOAD_CODES.tooLarge, detail: `line ${l.line} is ${l.length} bytes, over the ${maxLineBytes}-byte limit of one payload` },
      },
    };
  }
  if ('invalidUtf8' in l) {
    return { key: lineKey(l.line), entry: { ...at, problem: { code: HOSTILE_JSON_CODES.invalidUtf8, detail: `line ${l.line} is not valid UTF-8` } } };
  }
  let value: unknown;
  try {
    value = JSON.parse(l.text);
  } catch (e) {
    // The parser's message quotes the line, which may hold personal data: only the position is kept.
    const position = /position (\d+)/.exec(String((e as Error).message))?.[1];
    const where = position === undefined ? '' : ` (at character ${position})`;
    return { key: lineKey(l.line), entry: { ...at, problem: { code: PAYLOAD_CODES.invalidJson, detail: `line ${l.line} is not JSON${where}` } } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      key: lineKey(l.line),
      entry: { ...at, problem: { code: PAYLOAD_CODES.notAnObject, detail: `line ${l.line} is JSON but not an object (one EnergyAccount a line)` } },
    };
  }
  // A key given twice or a control character: the line names no account (its number may be the very field at fault).
  const hostile = hostileJsonProblem(l.text, value);
  if (hostile) {
    const field = hostile.attr === '' ? '' : ` at ${hostile.attr}`;
    return { key: lineKey(l.line), entry: { ...at, problem: { code: hostile.code, attr: hostile.attr, detail: `line ${l.line}${field}: ${hostile.detail}` } } };
  }
  const ext = (value as { external_account_number?: unknown }).external_account_number;
  // Stryker disable next-line ConditionalExpression: equivalent (a number, object or undefined has no surrogate when the regex reads it as text)
  if (typeof ext === 'string' && LONE_SURROGATE.test(ext)) {
    // `"\ud800"` is valid JSON but no Unicode text: the index (UTF-8) could not give the number back.
    return {
      key: lineKey(l.line),
      entry: {
        ...at,
        problem: {
          code: HOSTILE_JSON_CODES.invalidUtf8,
          attr: 'external_account_number',
          detail: `line ${l.line} at external_account_number: a lone surrogate escape, not Unicode text`,
        },
      },
    };
  }
  // Without a number of its own the line is still validated (and fails `required` there).
  return { key: typeof ext === 'string' && ext.trim() !== '' ? ext : lineKey(l.line), entry: at };
}

/** Several lines (or rows) holding one number: the account fails, naming where they are. */
export function duplicateRead(count: number, where: string): PayloadRead {
  return {
    ok: false,
    code: PAYLOAD_CODES.duplicate,
    attr: 'external_account_number',
    detail: `${count} payloads hold this external account number (${where}); one payload per account`,
  };
}

/** Temporary folders holding decompressed copies still open in this process (removed on close or exit). */
const liveCopies = new Set<string>();
let exitHookInstalled = false;
function removeLiveCopiesOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A process that ends without closing its sources (a crash of the command, a worker stopped hard)
  // still leaves no decompressed payloads behind: they hold personal data.
  process.once('exit', () => {
    for (const dir of liveCopies) fs.rmSync(dir, { recursive: true, force: true });
  });
}

const COPY_PREFIX = 'kraken-migrate-payloads-';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, another user's
  }
};

/**
 * Copies left by a process that died without its exit hook (killed by a signal, SIGKILL, a crash
 * of the runtime): each folder names its process (`kraken-migrate-payloads-<pid>-…`); those whose
 * process is gone are removed. Folders of other users are left alone (rm fails on them anyway).
 */
async function sweepOrphanedCopies(): Promise<void> {
  const tmp = os.tmpdir();
  const names = await fs.promises.readdir(tmp).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^kraken-migrate-payloads-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    const dir = path.join(tmp, name);
    const stat = await fs.promises.stat(dir).catch(() => undefined);
    if (stat?.isDirectory() && stat.uid === process.getuid?.()) await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * A private temporary folder of this process (0700, `kraken-migrate-payloads-<pid>-…`): the
 * decompressed copy of a `.jsonl.gz` and the line index (a legacy export's too: file-adapter.ts)
 * live there, removed by `close()`, at exit, or by the next process's sweep when this one was killed.
 */
export async function workFolder(): Promise<string> {
  removeLiveCopiesOnExit();
  await sweepOrphanedCopies();
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), `${COPY_PREFIX}${process.pid}-`));
  liveCopies.add(dir);
  return dir;
}

/** A `.jsonl.gz` decompressed into `dir`, stopped at `limit` bytes. */
async function decompressed(file: string, dir: string, limit: number): Promise<string> {
  const plain = path.join(dir, `${path.basename(file).replace(/\.gz$/i, '')}`);
  let written = 0;
  // Counted as it streams: a gzip bomb stops at the limit, with that much on disk at most.
  const capped = new Transform({
    transform(chunk: Buffer, _enc, done) {
      written += chunk.length;
      if (written > limit) {
        done(
          new InputFileError(
            'decompressed_too_large',
            `${path.basename(file)} expands past ${limit} bytes (the limit for its ${fs.statSync(file).size} compressed bytes)`,
          ),
        );
      } else done(null, chunk);
    },
  });
  try {
    await pipeline(openPayloadFile(file), capped, fs.createWriteStream(plain, { mode: 0o600 }));
  } catch (e) {
    await removeCopy(dir);
    if (e instanceof InputFileError) throw e;
    // zlib's own messages ("incorrect header check", "unexpected end of file") name no file.
    throw new InputFileError('invalid_gzip', `${path.basename(file)} is not a complete gzip file (${(e as Error).message})`);
  }
  return plain;
}

/**
 * The most a `.jsonl.gz` expands to on disk: 100 times its compressed size (JSON payloads compress
 * 5-30:1; a bomb of `{}` lines 1000:1), at least 64 MiB, at most 64 GiB (or `max`).
 */
export const MAX_DECOMPRESSED_BYTES = 64 * 1024 ** 3;
export const MAX_COMPRESSION_RATIO = 100;
export function decompressedLimit(compressedBytes: number, max = MAX_DECOMPRESSED_BYTES): number {
  return Math.min(max, Math.max(64 * 1024 ** 2, compressedBytes * MAX_COMPRESSION_RATIO));
}

/** Lines a payload file may have (one account a line): far above a migration's, far below what the index could hold. */
export const MAX_PAYLOAD_LINES = 20_000_000;

export async function removeCopy(dir: string): Promise<void> {
  await fs.promises.rm(dir, { recursive: true, force: true });
  liveCopies.delete(dir);
}

export class PayloadFileSource implements PayloadSource {
  private index?: Promise<{ lines: DiskLineIndex; plain: string }>;
  /** This source's private temporary folder: its line index, and its decompressed copy (a `.jsonl.gz`). */
  private workDir?: string;
  private handle?: Promise<fs.promises.FileHandle>;

  constructor(
    private readonly file: string,
    private readonly opts: { maxLineBytes?: number; maxDecompressedBytes?: number; maxLines?: number } = {},
  ) {}

  private getIndex() {
    this.index ??= (async () => {
      const { size } = await assertRegularFile(this.file);
      const dir = await workFolder();
      this.workDir = dir;
      const plain = isGzip(this.file) ? await decompressed(this.file, dir, decompressedLimit(size, this.opts.maxDecompressedBytes)) : this.file;
      // On disk, not in a Map: memory does not grow with the file's lines (source/line-index.ts).
      const lines = new DiskLineIndex(path.join(dir, 'index.sqlite'));
      try {
        const maxLines = this.opts.maxLines ?? MAX_PAYLOAD_LINES;
        for await (const l of readPayloadLines(openPayloadFile(plain), { maxLineBytes: this.opts.maxLineBytes })) {
          if (l.line > maxLines) throw new InputFileError('too_many_lines', `${path.basename(this.file)} has more than ${maxLines} lines (one account a line)`);
          const { key, entry } = indexLine(l, this.opts.maxLineBytes);
          lines.add(key, entry);
        }
        lines.finish();
      } catch (e) {
        lines.close();
        throw e;
      }
      return { lines, plain };
    })();
    return this.index;
  }

  async listAccountNumbers(opts: { after?: string; limit: number }): Promise<string[]> {
    return (await this.getIndex()).lines.page(opts.after, opts.limit);
  }

  async getPayload(externalAccountNumber: string): Promise<PayloadRead | undefined> {
    const { lines, plain } = await this.getIndex();
    const entries = lines.get(externalAccountNumber);
    if (entries.length === 0) return undefined;
    const name = path.basename(this.file);
    if (entries.length > 1) return duplicateRead(entries.length, `${name} lines ${entries.map((x) => x.line).join(', ')}`);
    const [e] = entries;
    if (e.problem) return { ok: false, code: e.problem.code, ...(e.problem.attr ? { attr: e.problem.attr } : {}), detail: `${name}: ${e.problem.detail}` };
    this.handle ??= fs.promises.open(plain, 'r');
    const text = await readAt(await this.handle, e.offset, e.length);
    return { ok: true, payload: JSON.parse(text) as unknown, where: `${name}:${e.line}` };
  }

  /** Closes the file and the index and removes the private folder; the source may be used again after. */
  async close(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    if (h) await (await h).close();
    const index = this.index;
    this.index = undefined;
    (await index?.catch(() => undefined))?.lines.close();
    const dir = this.workDir;
    this.workDir = undefined;
    if (dir) await removeCopy(dir);
  }
}
