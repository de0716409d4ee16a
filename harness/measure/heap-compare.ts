import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';

/**
 * What a heap holds more in one V8 heap snapshot than in another, by constructor (object type and
 * name), with who retains it: the bench's `--heap-probe` snapshots of a worker at rest and with N
 * accounts in flight, divided by N, say what each account in flight costs.
 *
 *   npx tsx harness/measure/heap-compare.ts AT_REST.heapsnapshot IN_FLIGHT.heapsnapshot [--per 100] [--top 25]
 *
 * Big snapshots need a big heap: `node --max-old-space-size=8192 --import tsx harness/measure/heap-compare.ts …`.
 */

const snapshotSchema = z.object({
  snapshot: z.object({
    meta: z.object({
      node_fields: z.array(z.string()),
      node_types: z.tuple([z.array(z.string())]).rest(z.unknown()),
      edge_fields: z.array(z.string()),
      edge_types: z.tuple([z.array(z.string())]).rest(z.unknown()),
    }),
  }),
  // Tens of millions of entries: checked as arrays, not entry by entry.
  nodes: z.custom<number[]>(Array.isArray),
  edges: z.custom<number[]>(Array.isArray),
  strings: z.custom<string[]>(Array.isArray),
});
type Snapshot = z.infer<typeof snapshotSchema>;

/** The node types whose name says what they are (a constructor, a function, a native's class). */
const NAMED_TYPES = new Set(['object', 'closure', 'native', 'hidden', 'array', 'synthetic', 'object shape', 'regexp']);

export interface HeapGroups {
  /** Self size and count by group (`object Foo`, `closure bar`, `string`, `code`, …). */
  groups: Map<string, { bytes: number; count: number }>;
  totalBytes: number;
  totalCount: number;
}

interface Parsed {
  s: Snapshot;
  nodeFields: number;
  edgeFields: number;
  key: (node: number) => string;
  selfSize: (node: number) => number;
}

function parse(s: Snapshot): Parsed {
  const nf = s.snapshot.meta.node_fields;
  const [types] = s.snapshot.meta.node_types;
  const [typeAt, nameAt, sizeAt] = [nf.indexOf('type'), nf.indexOf('name'), nf.indexOf('self_size')];
  const key = (node: number) => {
    const type = types[s.nodes[node + typeAt]];
    if (!NAMED_TYPES.has(type)) return type;
    // Long names (source text of a closure, a sliced string) keep their head only.
    return `${type} ${s.strings[s.nodes[node + nameAt]].slice(0, 80)}`;
  };
  return { s, nodeFields: nf.length, edgeFields: s.snapshot.meta.edge_fields.length, key, selfSize: (node) => s.nodes[node + sizeAt] };
}

export function groupHeap(p: Parsed): HeapGroups {
  const groups = new Map<string, { bytes: number; count: number }>();
  let totalBytes = 0;
  let totalCount = 0;
  for (let n = 0; n < p.s.nodes.length; n += p.nodeFields) {
    const k = p.key(n);
    const g = groups.get(k) ?? { bytes: 0, count: 0 };
    g.bytes += p.selfSize(n);
    g.count++;
    groups.set(k, g);
    totalBytes += p.selfSize(n);
    totalCount++;
  }
  return { groups, totalBytes, totalCount };
}

/** For each group of interest: its bytes by retainer (the retainer's group and the edge's name). */
function retainers(p: Parsed, of: ReadonlySet<string>): Map<string, Map<string, number>> {
  const nf = p.s.snapshot.meta.node_fields;
  const ef = p.s.snapshot.meta.edge_fields;
  const [edgeTypes] = p.s.snapshot.meta.edge_types;
  const [edgeCountAt, eTypeAt, eNameAt, eToAt] = [nf.indexOf('edge_count'), ef.indexOf('type'), ef.indexOf('name_or_index'), ef.indexOf('to_node')];
  const out = new Map<string, Map<string, number>>();
  let e = 0;
  for (let n = 0; n < p.s.nodes.length; n += p.nodeFields) {
    const from = p.key(n);
    const edges = p.s.nodes[n + edgeCountAt];
    for (let i = 0; i < edges; i++, e += p.edgeFields) {
      const type = edgeTypes[p.s.edges[e + eTypeAt]];
      if (type === 'weak') continue;
      const to = p.s.edges[e + eToAt];
      const k = p.key(to);
      if (!of.has(k)) continue;
      const name = type === 'element' || type === 'hidden' ? `[${type}]` : p.s.strings[p.s.edges[e + eNameAt]];
      const by = out.get(k) ?? new Map<string, number>();
      const r = `${from} .${String(name).slice(0, 40)}`;
      by.set(r, (by.get(r) ?? 0) + p.selfSize(to));
      out.set(k, by);
    }
  }
  return out;
}

export const readSnapshot = (file: string) => parse(snapshotSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8'))));

export interface GroupDiff {
  group: string;
  bytes: number;
  count: number;
}

/** Groups that grew from `before` to `after`, largest growth first. */
export function diffGroups(before: HeapGroups, after: HeapGroups): GroupDiff[] {
  const out: GroupDiff[] = [];
  for (const [group, a] of after.groups) {
    const b = before.groups.get(group) ?? { bytes: 0, count: 0 };
    out.push({ group, bytes: a.bytes - b.bytes, count: a.count - b.count });
  }
  return out.sort((x, y) => y.bytes - x.bytes);
}

function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { per: { type: 'string', default: '1' }, top: { type: 'string', default: '25' }, retainers: { type: 'string', default: '3' } },
  });
  if (positionals.length !== 2) throw new Error('usage: heap-compare.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--per N] [--top K]');
  const per = Number(values.per);
  const top = Number(values.top);
  const before = groupHeap(readSnapshot(positionals[0]));
  const afterParsed = readSnapshot(positionals[1]);
  const after = groupHeap(afterParsed);
  const kb = (b: number) => `${(b / 1024 / per).toFixed(1)} kB`;
  const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;
  process.stdout.write(
    `before: ${mb(before.totalBytes)} in ${before.totalCount} objects; after: ${mb(after.totalBytes)} in ${after.totalCount}; ` +
      `grown ${mb(after.totalBytes - before.totalBytes)}, ${kb(after.totalBytes - before.totalBytes)} and ${((after.totalCount - before.totalCount) / per).toFixed(0)} objects per ${per > 1 ? `one of ${per}` : 'snapshot'}\n\n`,
  );
  const diffs = diffGroups(before, after).slice(0, top);
  const by = retainers(afterParsed, new Set(diffs.map((d) => d.group)));
  for (const d of diffs) {
    process.stdout.write(`${kb(d.bytes).padStart(10)}  ${(d.count / per).toFixed(1).padStart(8)} ×  ${d.group}\n`);
    const rs = [...(by.get(d.group) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]).slice(0, Number(values.retainers));
    for (const [r, bytes] of rs) process.stdout.write(`${''.padStart(24)}held by ${r} (${mb(bytes)} in all)\n`);
  }
}

if (require.main === module) main(process.argv.slice(2));
