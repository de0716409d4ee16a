import { type ValidationError, validationError } from './errors';

/**
 * The deepest object the contract nests is about ten levels down (a meter's reading history);
 * `metadata[].value` is free JSON. Anything deeper than this is refused before any recursive code
 * (zod, the rules, JSON.stringify) sees it: a line nested thousands of levels deep would otherwise
 * overflow the stack.
 */
export const MAX_NESTING_DEPTH = 64;

export const NESTING_TOO_DEEP = 'nesting_too_deep';

/** The dot path of the first value nested deeper than `max` (objects and arrays), or undefined. Iterative. */
export function tooDeepAt(value: unknown, max = MAX_NESTING_DEPTH): string | undefined {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= max) return path;
    for (const [k, child] of Object.entries(v)) {
      if (typeof child === 'object' && child !== null) stack.push({ v: child, depth: depth + 1, path: path === '' ? k : `${path}.${k}` });
    }
  }
  return undefined;
}

export function nestingError(value: unknown, max = MAX_NESTING_DEPTH): ValidationError | undefined {
  const at = tooDeepAt(value, max);
  if (at === undefined) return undefined;
  // The path itself is as deep as the payload: only its first levels are named.
  const shown = at.split('.').slice(0, 8).join('.');
  return validationError(NESTING_TOO_DEEP, shown, `Nested more than ${max} levels deep (at ${shown}…); the contract nests far less.`);
}
