import fs from 'node:fs';

/**
 * Streams the records of a line-oriented file with their byte offsets, so a record can be read
 * again later by position (the file adapter's offset index). `quoted: true` treats newlines inside
 * double quotes as content (CSV); JSONL never has raw newlines inside a record.
 */

export interface RawRecord {
  offset: number;
  length: number;
  text: string;
}

const NL = 0x0a;
const QUOTE = 0x22;

/** One account's record larger than this is refused: a broken quote or a runaway export line must not
 * take the worker's memory with it. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export class RecordTooLargeError extends Error {
  readonly code = 'source_record_too_large';
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly limit: number,
  ) {
    super(`source_record_too_large: the record at byte ${offset} of ${file} exceeds ${limit} bytes (an unclosed quote in a CSV does this)`);
    this.name = 'RecordTooLargeError';
  }
}

export async function* readRecords(file: string, opts: { quoted: boolean; chunkSize?: number; maxRecordBytes?: number }): AsyncGenerator<RawRecord> {
  const maxRecordBytes = opts.maxRecordBytes ?? MAX_RECORD_BYTES;
  const stream = fs.createReadStream(file, { highWaterMark: opts.chunkSize ?? 1 << 20 });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let recordStart = 0; // file offset of the first pending byte
  let inQuotes = false;

  const emit = (tail: Buffer): RawRecord | undefined => {
    const buf = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    const offset = recordStart;
    recordStart += buf.length + 1;
    let end = buf.length;
    if (end > 0 && buf[end - 1] === 0x0d) end--;
    if (end === 0) return undefined; // blank line
    return { offset, length: end, text: buf.toString('utf8', 0, end) };
  };

  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    if (!opts.quoted) {
      for (let nl = chunk.indexOf(NL, start); nl >= 0; nl = chunk.indexOf(NL, start)) {
        const r = emit(chunk.subarray(start, nl));
        if (r) yield r;
        start = nl + 1;
      }
    } else {
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i];
        if (c === QUOTE) inQuotes = !inQuotes;
        else if (c === NL && !inQuotes) {
          const r = emit(chunk.subarray(start, i));
          if (r) yield r;
          start = i + 1;
        }
      }
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxRecordBytes) throw new RecordTooLargeError(file, recordStart, maxRecordBytes);
    }
  }
  if (pendingBytes > 0) {
    const r = emit(Buffer.alloc(0));
    if (r) yield r;
  }
}

/** Reads `length` bytes at `offset` as UTF-8. */
export async function readAt(handle: fs.promises.FileHandle, offset: number, length: number): Promise<string> {
  const buf = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buf, read, length - read, offset + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return buf.toString('utf8', 0, read);
}
