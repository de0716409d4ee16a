// How fast this host runs one thread of the kind of work CI's steps spend their CPU on (JSON,
// regular expressions, hashing): the best of seven timings of a fixed workload, in milliseconds.
// .ci/run scales its step budgets by it (HOST_SPEED_REF_MS there), so that a step over budget means the step grew, not that
// the machine is slower than the one the budgets were measured on.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';

const doc = JSON.stringify(
  Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `account-${i}`, phone: `+44 7700 900${String(i).padStart(3, '0')}`, tags: ['a', 'b', 'c'] })),
);

function work() {
  const hash = createHash('sha256');
  for (let round = 0; round < 100; round++) {
    const rows = JSON.parse(doc);
    for (const row of rows) if (/^\+44 7700 9\d+$/.test(row.phone)) row.upper = row.name.toUpperCase();
    hash.update(JSON.stringify(rows));
  }
  return hash.digest('hex');
}

work(); // warm the JIT
let best = Infinity;
for (let i = 0; i < 7; i++) {
  const t0 = performance.now();
  work();
  best = Math.min(best, performance.now() - t0);
}
process.stdout.write(`${Math.round(best)}\n`);
