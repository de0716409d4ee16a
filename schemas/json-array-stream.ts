import type { Readable } from 'node:stream';
import Tokenizer from '@streamparser/json/tokenizer.js';
import TokenParser from '@streamparser/json/tokenparser.js';
import TokenType from '@streamparser/json/utils/types/tokenType.js';
import { InputFileError } from './input-file';

/**
 * The records of a `.json` array, streamed: a JSON document is no longer read whole (550 MB ended in
 * `Invalid string length`, with no code). `@streamparser/json` tokenizes the bytes and checks the
 * document's structure as they come; each element of the top-level array is handed on as its own
 * bytes, with its index and the line it starts on, so that it is decoded (strict UTF-8), parsed and
 * checked for duplicate keys and control characters exactly as one line of a JSONL file is. Memory
 * is one element (at most `maxRecordBytes`) and one chunk, whatever the number of records.
 */

export type JsonArrayRecord = { index: number; line: number; bytes: Buffer } | { index: number; line: number; syntaxError: string };

/** One record (an account, or a `{payload, task_params}` request) larger than this stops the file. */
export const MAX_JSON_RECORD_BYTES = 16 * 1024 * 1024;

const NL = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * The tokenizer sees every byte over 0x7F as `x`: JSON's structure is all ASCII, so element
 * boundaries and offsets are unchanged, and a byte that is not UTF-8 fails its own record (strict
 * decoding below, `invalid_utf8`) instead of stopping the file in the tokenizer.
 */
function asciiOnly(chunk: Buffer): Buffer {
  let i = 0;
  while (i < chunk.length && chunk[i] < 0x80) i++;
  if (i === chunk.length) return chunk;
  const copy = Buffer.from(chunk);
  for (; i < copy.length; i++) if (copy[i] >= 0x80) copy[i] = 0x78;
  return copy;
}

function countNewlines(buf: Buffer, from = 0, to = buf.length): number {
  let n = 0;
  for (let i = buf.indexOf(NL, from); i >= 0 && i < to; i = buf.indexOf(NL, i + 1)) n++;
  return n;
}

/**
 * Reads a document whose first token is `[` (the caller has looked) element by element. A syntax
 * error ends the stream with one `syntaxError` record naming where (its message never quotes the
 * data: the parser's own does).
 */
export async function* readJsonArrayRecords(input: Readable, opts: { maxRecordBytes?: number; name?: string } = {}): AsyncGenerator<JsonArrayRecord> {
  const max = opts.maxRecordBytes ?? MAX_JSON_RECORD_BYTES;
  const tokenizer = new Tokenizer();
  // Stryker disable next-line ObjectLiteral,ArrayDeclaration,BooleanLiteral: memory only (the parser keeps one element, not the document); the structure it checks is the same
  const parser = new TokenParser({ paths: ['$.*'], keepStack: false });
  parser.onValue = () => undefined; // structure only: each element is parsed from its own bytes below
  let failure: string | undefined;
  parser.onError = (e) => (failure ??= e.message);
  tokenizer.onError = (e) => (failure ??= e.message);

  // Bytes since the current element's start (after the `[` or `,` before it), with the stream offset and line count where they begin.
  let held: Buffer[] = [];
  let heldStart = 0;
  let newlinesBefore = 0;
  let streamed = 0; // bytes given to the tokenizer (after a BOM)
  let depth = 0;
  let index = 0;
  let ready: JsonArrayRecord[] = [];
  let atStart = true;

  const take = (upTo: number): Buffer => {
    // The held bytes in [heldStart, upTo), then drops them and the delimiter at upTo.
    // Stryker disable next-line ConditionalExpression: equivalent (a copy of the same bytes)
    const all = held.length === 1 ? held[0] : Buffer.concat(held);
    const part = all.subarray(0, upTo - heldStart);
    newlinesBefore += countNewlines(all, 0, upTo - heldStart + 1);
    held = [all.subarray(upTo - heldStart + 1)];
    heldStart = upTo + 1;
    return part;
  };

  const lineOf = (bytes: Buffer, before: number) => {
    let i = 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent (bytes[length] is undefined, not a space)
    while (i < bytes.length && isSpace(bytes[i])) i++;
    return { line: before + 1 + countNewlines(bytes, 0, i), from: i };
  };

  let tooLarge: string | undefined;
  const tooLargeError = (where: string) =>
    new InputFileError(
      'json_record_too_large',
      `${opts.name ? `${opts.name} ` : ''}${where} is over the ${max}-byte limit of one record (one account a record; JSONL streams any number)`,
    );

  tokenizer.onToken = (t) => {
    if (failure || tooLarge) return;
    parser.write(t);
    if (t.token === TokenType.LEFT_BRACE || t.token === TokenType.LEFT_BRACKET) {
      depth++;
      if (depth === 1) take(t.offset); // the array's `[`: elements start after it
      return;
    }
    const closesArray = t.token === TokenType.RIGHT_BRACKET && depth === 1;
    if (t.token === TokenType.RIGHT_BRACE || t.token === TokenType.RIGHT_BRACKET) depth--;
    if (depth === 1 ? t.token === TokenType.COMMA : closesArray) {
      const before = newlinesBefore;
      const bytes = take(t.offset);
      const { line, from } = lineOf(bytes, before);
      let end = bytes.length;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent (below `from` the record is empty either way, and skipped)
      while (end > from && isSpace(bytes[end - 1])) end--;
      if (end - from > max) tooLarge ??= `record ${index} (line ${line})`;
      // Empty only in `[]` (the parser refuses `[1,]` and `[,1]`).
      else if (end > from) ready.push({ index: index++, line, bytes: bytes.subarray(from, end) });
    }
  };

  let head = Buffer.alloc(0);
  for await (const piece of input as AsyncIterable<Buffer>) {
    let chunk = piece;
    if (atStart) {
      // A BOM is not part of the document; it may come split over the first chunks.
      head = Buffer.concat([head, piece]);
      if (head.length < BOM.length && BOM.subarray(0, head.length).equals(head)) continue;
      atStart = false;
      chunk = head.subarray(0, BOM.length).equals(BOM) ? head.subarray(BOM.length) : head;
    }
    held.push(chunk);
    streamed += chunk.length;
    tokenizer.write(asciiOnly(chunk));
    yield* ready;
    ready = [];
    if (tooLarge) throw tooLargeError(tooLarge);
    if (failure) {
      yield { index, line: newlinesBefore + 1, syntaxError: `not valid JSON from line ${newlinesBefore + 1}` };
      return;
    }
    // A record still open past the limit (one endless string, say) is not held to its end.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: equivalent (a shortcut: the check inside decides)
    if (streamed - heldStart > max) {
      // The whitespace around it is not the record's.
      const all = Buffer.concat(held);
      const open = lineOf(all, newlinesBefore);
      let end = all.length;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent (as for a whole record above)
      while (end > open.from && isSpace(all[end - 1])) end--;
      if (end - open.from > max) throw tooLargeError(`record ${index} (from line ${open.line})`);
    }
  }
  if (atStart && head.length > 0) {
    // A document shorter than a BOM: whatever it is, it is no array.
    yield { index, line: 1, syntaxError: 'not valid JSON from line 1' };
    return;
  }
  if (!parser.isEnded) {
    const { line } = lineOf(Buffer.concat(held), newlinesBefore);
    yield { index, line, syntaxError: `not valid JSON: the document ends before its array closes (line ${line})` };
  }
}
