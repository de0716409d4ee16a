import fs from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { decodeUtf8 } from './hostile-json';
import { fileFormat } from '../domain/source-spec';

/**
 * The lines of a payload file (`.jsonl`, or `.jsonl.gz` decompressed as it streams), numbered from 1
 * as an editor shows them, with their byte offsets in the uncompressed text. Blank lines are
 * counted, not yielded. A line longer than `maxLineBytes` is never held: its bytes are dropped as
 * they come and it is yielded as `tooLarge`, so one runaway line fails its own account only. A line
 * that is not valid UTF-8 is yielded as `invalidUtf8` (never decoded with replacement characters);
 * a byte order mark at the start of the file is not part of the first line.
 */

export type PayloadFileLine =
  | { line: number; offset: number; length: number; text: string }
  | { line: number; offset: number; length: number; tooLarge: true }
  | { line: number; offset: number; length: number; invalidUtf8: true };

/** One account's payload larger than this is refused (the spec's example is about 20 KB). */
export const MAX_PAYLOAD_LINE_BYTES = 16 * 1024 * 1024;

const NL = 0x0a;

export const isGzip = (file: string) => fileFormat(file)?.gzip === true;

export function openPayloadFile(file: string): Readable {
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  return isGzip(file) ? raw.pipe(createGunzip()) : raw;
}

export async function* readPayloadLines(input: Readable, opts: { maxLineBytes?: number } = {}): AsyncGenerator<PayloadFileLine> {
  const max = opts.maxLineBytes ?? MAX_PAYLOAD_LINE_BYTES;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let dropping = false; // the current line is over the limit: its bytes are counted, not kept
  let start = 0; // offset of the current line
  let line = 1;

  const finish = (tail: Buffer): PayloadFileLine | undefined => {
    const length = pendingBytes + tail.length;
    const at = { line, offset: start };
    line += 1;
    start += length + 1;
    if (dropping || length > max) {
      dropping = false;
      pending = [];
      pendingBytes = 0;
      return { ...at, length, tooLarge: true };
    }
    // Stryker disable next-line ConditionalExpression: equivalent (a copy of the same bytes; the branch saves it)
    let buf = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    if (at.line === 1 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      buf = buf.subarray(3);
      at.offset += 3;
    }
    let end = buf.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent (buf[-1] is undefined, never CR)
    if (end > 0 && buf[end - 1] === 0x0d) end--;
    const text = decodeUtf8(buf.subarray(0, end));
    if (text === undefined) return { ...at, length: end, invalidUtf8: true };
    if (text.trim() === '') return undefined;
    return { ...at, length: end, text };
  };

  for await (const chunk of input as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(NL, from); nl >= 0; nl = chunk.indexOf(NL, from)) {
      const r = finish(chunk.subarray(from, nl));
      if (r) yield r;
      from = nl + 1;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent (an empty rest adds nothing)
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      pendingBytes += rest.length;
      // Memory only (a line over the limit is not held while it streams): the lines yielded are the same
      // either way, which is why harness/bench/hostile-input.ts measures it.
      // Stryker disable all
      if (!dropping) {
        if (pendingBytes > max) {
          dropping = true;
          pending = [];
        } else pending.push(rest);
      }
      // Stryker restore all
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent (an empty last line yields nothing)
  if (pendingBytes > 0 || dropping) {
    const r = finish(Buffer.alloc(0));
    if (r) yield r;
  }
}
