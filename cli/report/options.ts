import { z } from 'zod';
import { optionsSchema } from '../option-schema';
import { REPORT_OPTIONS } from '../options/report';

/** `report`'s options (cli/options/report.ts): the whole report's (build.ts) and its summary's (summary.ts). */
export const reportOptionsSchema = optionsSchema(REPORT_OPTIONS).refine((o) => !(o.summary && o.out !== undefined), {
  path: ['out'],
  message: 'cannot be used with --summary: the summary writes no files',
});
export type ReportOptions = z.output<typeof reportOptionsSchema>;
