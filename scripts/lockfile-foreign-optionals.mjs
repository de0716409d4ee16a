// The registry this project installs from serves only linux-x64 builds of native packages, so
// `npm install` leaves the other platforms' optional packages out of package-lock.json and a later
// `npm ci` refuses the lockfile. This adds a version-only entry for each such optional package:
// npm ci then skips them as optional, as it would on any registry. Run after `npm install`.
import { execSync } from 'node:child_process';
import fs from 'node:fs';

let out;
try {
  out = execSync('npm ci --dry-run --no-audit --no-fund', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
} catch (e) {
  out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
}
const missing = [...out.matchAll(/Missing: (.+?)@\S* from lock file/g)].map((m) => m[1]);
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
let added = 0;
for (const name of missing) {
  const wanted = Object.values(lock.packages).find((p) => p.optionalDependencies?.[name])?.optionalDependencies[name];
  const key = `node_modules/${name}`;
  if (wanted && !lock.packages[key]) {
    lock.packages[key] = { version: wanted, optional: true };
    added++;
  }
}
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log(`lockfile: added ${added} foreign optional package entries`);
