import fs from 'node:fs';
import path from 'node:path';
import { CSV_HEADER, csvRows, type ReportData } from './data';
import { toCsv } from './csv';
import { renderReportHtml } from './html';

export interface WrittenReport {
  dir: string;
  csv: string;
  html: string;
}

export function writeReport(data: ReportData, dir: string): WrittenReport {
  fs.mkdirSync(dir, { recursive: true });
  const csv = path.join(dir, 'failed-accounts.csv');
  const html = path.join(dir, 'report.html');
  fs.writeFileSync(csv, toCsv(CSV_HEADER, csvRows(data)));
  fs.writeFileSync(html, renderReportHtml(data));
  return { dir, csv, html };
}
