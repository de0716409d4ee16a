import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { realisticAccount } from '../../schemas/fixtures';
import { generateDataset } from './generator';

/**
 * The hostile-input battery's files, generated where a test (or harness/bench/hostile-input.ts) asks: no
 * big file is committed. Each maker writes one file into `dir` and returns its path; sizes are
 * parameters, so the test runs small and the benchmark runs the issue's own sizes.
 */

const account = (ext: string) => JSON.stringify(realisticAccount({ external_account_number: ext }));

/** `lines` copies of `line` (with its newline), streamed through gzip: memory stays one chunk. */
export async function gzipOfRepeatedLine(dir: string, name: string, line: string, lines: number): Promise<string> {
  const file = path.join(dir, name);
  const chunkLines = Math.max(1, Math.floor((1 << 20) / (line.length + 1)));
  const chunk = Buffer.from(`${line}\n`.repeat(chunkLines));
  async function* body() {
    for (let left = lines; left > 0; left -= chunkLines) yield left >= chunkLines ? chunk : Buffer.from(`${line}\n`.repeat(left));
  }
  await pipeline(Readable.from(body()), createGzip({ level: 9 }), fs.createWriteStream(file));
  return file;
}

/**
 * A legacy export (`legacy-<n>.jsonl`) of `records` copies of one generated record (without its
 * transactions, notes, bills and documents: 2.4 KB a line), each under its own account_id and
 * number, but one in 100 repeating the number before it (a conflict), streamed to disk.
 */
export async function legacyExport(dir: string, records: number): Promise<string> {
  const file = path.join(dir, `legacy-${records}.jsonl`);
  const [item] = generateDataset({ accounts: 1, seed: 7, defectRate: 0 });
  const template = { ...item.records[0], transactions: [], notes: [], bills: [], documents: [] };
  function* lines() {
    for (let i = 1; i <= records; i++) {
      const number = `LGC-${String(i % 100 === 0 ? i - 1 : i).padStart(8, '0')}`;
      yield `${JSON.stringify({ ...template, account: { ...template.account, account_id: i, account_number: number } })}\n`;
    }
  }
  await pipeline(Readable.from(lines()), fs.createWriteStream(file));
  return file;
}

export const makers = {
  /** A gzip bomb: `{}` lines expanding to `bytes`. */
  gzipBomb: (dir: string, bytes: number) => gzipOfRepeatedLine(dir, 'bomb.jsonl.gz', '{}', Math.ceil(bytes / 3)),
  /** `n` `{}` lines, gzipped (5.9 KB for 2 million). */
  manyEmptyLines: (dir: string, n: number) => gzipOfRepeatedLine(dir, `lines-${n}.jsonl.gz`, '{}', n),
  notGzip: (dir: string) => write(dir, 'not-gzip.jsonl.gz', 'this is not gzip\n'),
  fifo: (dir: string) => {
    const file = path.join(dir, 'payloads.jsonl');
    execFileSync('mkfifo', [file]);
    return file;
  },
  directory: (dir: string) => {
    const d = path.join(dir, 'a-directory.jsonl');
    fs.mkdirSync(d);
    return d;
  },
  /** A link to a character device that never ends. */
  device: (dir: string) => {
    const file = path.join(dir, 'zero.jsonl');
    fs.symlinkSync('/dev/zero', file);
    return file;
  },
  /** Line 2's account number holds a byte that is not UTF-8. */
  invalidUtf8: (dir: string) =>
    write(
      dir,
      'latin1.jsonl',
      Buffer.concat([Buffer.from(`${account('U-1')}\n{"external_account_number":"U-`), Buffer.from([0xe9, 0xff]), Buffer.from('2"}\n')]),
    ),
  /** Line 1 names two account numbers; JSON.parse would keep the second. */
  duplicateKey: (dir: string) =>
    write(dir, 'dup.jsonl', `{"external_account_number":"D-1","account_type":"DOMESTIC","external_account_number":"D-2"}\n${account('D-3')}\n`),
  /** A duplicate key deep inside line 2's customers. */
  duplicateNestedKey: (dir: string) =>
    write(dir, 'dup-nested.jsonl', `${account('N-1')}\n${account('N-2').replace('"given_name":"Alice"', '"given_name":"Alice","given_name":"Bob"')}\n`),
  nul: (dir: string) => write(dir, 'nul.jsonl', `${account('Z-1').replace('"account_type"', '"notes_x":"a\\u0000b","account_type"')}\n`),
  c1InNumber: (dir: string) => write(dir, 'c1.jsonl', `{"external_account_number":"C-1\\u0085"}\n`),
  bidiInValue: (dir: string) => write(dir, 'bidi.jsonl', `{"external_account_number":"B-1","x":"\\u202eevil"}\n`),
  escapeInNumber: (dir: string) => write(dir, 'escape.jsonl', `{"external_account_number":"E-1\\u001b[2J"}\n`),
  bom: (dir: string) => write(dir, 'bom.jsonl', `\uFEFF${account('BOM-1')}\n${account('BOM-2')}\n`),
  bomJson: (dir: string) => write(dir, 'bom.json', `\uFEFF[${account('BOMJ-1')}]`),
  jsonArrayDuplicate: (dir: string) => write(dir, 'dup.json', `[${account('J-1')},{"external_account_number":"J-2","a":1,"a":2}]`),
  /** A pretty-printed array: record 1 (line 3) holds a NUL, record 2 (line 4) a byte that is not UTF-8, record 3 (line 5) a repeated key; record 4 is sound. */
  jsonArrayHostileLines: (dir: string) =>
    write(
      dir,
      'hostile-lines.json',
      Buffer.concat([
        Buffer.from(`[\n  ${account('H-0')},\n  {"external_account_number":"H-1","x":"a\\u0000b"},\n  {"external_account_number":"H-`),
        Buffer.from([0xe9]),
        Buffer.from(`2"},\n  {"external_account_number":"H-3","customers":[{"given_name":"A","given_name":"B"}]},\n  ${account('H-4')}\n]\n`),
      ]),
    ),
  /** An array broken on line 3 (a `}` where a value is due). */
  jsonArrayBroken: (dir: string) => write(dir, 'broken.json', `[\n  ${account('K-0')},\n  }\n]`),
  /** One object (not an array) of at least `bytes`. */
  bigJsonObject: (dir: string, bytes: number) => write(dir, 'big-object.json', `{"external_account_number":"O-1","x":"${'x'.repeat(bytes)}"}`),
  longLine: (dir: string, bytes: number) => write(dir, 'long.jsonl', `{"external_account_number":"L-1","x":"${'x'.repeat(bytes)}"}\n${account('L-2')}\n`),
  deepNesting: (dir: string, depth: number) => write(dir, 'deep.jsonl', `{"external_account_number":"DEEP-1","x":${'['.repeat(depth)}${']'.repeat(depth)}}\n`),
  /** A JSON array of at least `bytes`, written a record at a time (it may be larger than any string). */
  bigJson: (dir: string, bytes: number) => {
    const file = path.join(dir, 'big.json');
    const record = Buffer.from(`${account('BIG')},`);
    const fd = fs.openSync(file, 'w');
    try {
      fs.writeSync(fd, '[');
      for (let written = 1; written < bytes; written += record.length) fs.writeSync(fd, record);
      fs.writeSync(fd, '{}]');
    } finally {
      fs.closeSync(fd);
    }
    return file;
  },
};

function write(dir: string, name: string, body: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
}
