import path from 'node:path';
import { isExecutable } from '../../harness/stack/temporal-cli';

export { isExecutable };

/** The first of `names` found as an executable file in a PATH directory, or undefined. */
export function onPath(names: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const n of names) {
      const file = path.join(dir, n);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}
