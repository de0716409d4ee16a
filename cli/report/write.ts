import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pool } from '../../clients/db';
import { CSV_HEADER, reportCsvRows, type ReportData } from './data';
import { csvLine } from './csv';
import { renderReportHtml } from './html';

export interface WrittenReport {
  dir: string;
  csv: string;
  html: string;
}

/** CRLF lines, as toCsv writes them, from rows read page by page; about 64 KB a chunk (one a line costs a stream write each). */
async function* csvLines(rows: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  let chunk = `${csvLine(CSV_HEADER)}\r\n`;
  for await (const row of rows) {
    chunk += `${csvLine(row)}\r\n`;
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/**
 * The report folder: 0700, and each file 0600, created afresh (O_EXCL: a link planted at its name
 * is refused, and an older file's wider mode is not inherited). The files quote account numbers
 * and, masked, errors about personal fields: for the operator alone.
 */
export function reportFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

export function freshFile(file: string): void {
  fs.rmSync(file, { force: true });
}

/**
 * failed-accounts.csv streamed from the ledger (every row, never all in memory: the file stream's
 * backpressure paces the reads).
 */
export async function writeReportCsv(pool: Pool, runId: string, dir: string): Promise<string> {
  reportFolder(dir);
  const csv = path.join(dir, 'failed-accounts.csv');
  freshFile(csv);
  await pipeline(Readable.from(csvLines(reportCsvRows(pool, runId))), fs.createWriteStream(csv, { flags: 'wx', mode: 0o600 }));
  return csv;
}

/** report.html from the loaded summary. */
export function writeReportHtml(data: ReportData, dir: string): string {
  reportFolder(dir);
  const html = path.join(dir, 'report.html');
  freshFile(html);
  fs.writeFileSync(html, renderReportHtml(data), { flag: 'wx', mode: 0o600 });
  return html;
}
