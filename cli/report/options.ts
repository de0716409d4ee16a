import { z } from 'zod';
import { flagOption } from '../option-schema';

/** `report`'s options (cli/commands/report.ts): the whole report's (build.ts) and its summary's (summary.ts). */
export const reportOptionsSchema = z
  .object({ out: z.string().min(1, 'a folder').optional(), json: flagOption, summary: flagOption })
  .refine((o) => !(o.summary && o.out !== undefined), { path: ['out'], message: 'cannot be used with --summary: the summary writes no files' });
export type ReportOptions = z.output<typeof reportOptionsSchema>;
