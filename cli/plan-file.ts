import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { planFileSchema, planProblems, type PlanFile } from '../domain/plan-file';
import { usageError } from './errors';

/**
 * Reads and checks a plan file: YAML, then the schema (domain/plan-file.ts), then the files it names
 * (resolved against the plan's folder, as written paths are). Any problem is a usage error (exit 2)
 * naming the field and the rule, one line each.
 */
export function loadPlanFile(file: string, cwd = process.cwd()): PlanFile {
  const abs = path.resolve(cwd, file);
  if (!fs.existsSync(abs)) throw usageError('plan_not_found', `${file}: no such file`);
  const doc = YAML.parseDocument(fs.readFileSync(abs, 'utf8'), { prettyErrors: true });
  if (doc.errors.length > 0) throw usageError('invalid_plan', `${file} is not valid YAML:\n  ${doc.errors.map((e) => e.message.split('\n')[0]).join('\n  ')}`);
  const parsed = planFileSchema.safeParse(doc.toJS());
  if (!parsed.success) throw usageError('invalid_plan', `${file}:\n  ${planProblems(parsed.error).join('\n  ')}`);
  const plan = resolvePaths(parsed.data, path.dirname(abs));
  const missing = missingFiles(plan);
  if (missing.length > 0) throw usageError('invalid_plan', `${file}:\n  ${missing.join('\n  ')}`);
  return plan;
}

/** Paths in the file are relative to the file; `postgres` and s3:// stay as they are. */
function resolvePaths(plan: PlanFile, dir: string): PlanFile {
  const local = (p: string | undefined) => (p === undefined || p === 'postgres' || p.startsWith('s3://') ? p : path.resolve(dir, p));
  return {
    ...plan,
    waves: plan.waves.map((w) => ({ ...w, payloads: local(w.payloads), source: local(w.source), accounts: local(w.accounts), documents: local(w.documents) })),
  };
}

function missingFiles(plan: PlanFile): string[] {
  const out: string[] = [];
  plan.waves.forEach((w, i) => {
    for (const k of ['payloads', 'source', 'accounts'] as const) {
      const p = w[k];
      if (p !== undefined && p !== 'postgres' && !fs.statSync(p, { throwIfNoEntry: false })?.isFile()) out.push(`waves[${i}].${k}: no such file ${p}`);
    }
    if (w.documents !== undefined && !w.documents.startsWith('s3://') && !fs.statSync(w.documents, { throwIfNoEntry: false })?.isDirectory())
      out.push(`waves[${i}].documents: no such folder ${w.documents}`);
  });
  return out;
}
