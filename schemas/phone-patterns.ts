import path from 'node:path';

/**
 * libphonenumber-js (1.13.x, the newest) compiles `new RegExp('^(?:' + pattern + ')$')` every time it
 * matches a metadata pattern (`build/helpers/matchesEntirely.js`), several times per number: that was
 * most of a payload's validation time. The patterns come from its metadata, a fixed and finite set, so
 * the compiled expressions are kept here, one per pattern text; what matches is unchanged. The library
 * calls the helper through its CommonJS exports object at call time, so replacing `default` there is
 * enough. If a future version moves or changes the helper, nothing is replaced: validation stays
 * correct, only slower, and test/unit/schemas/phone-patterns.test.ts fails to say so.
 */
type Max = typeof import('libphonenumber-js/max');
type MatchesEntirely = (text: string | undefined, pattern: string) => boolean;

const compiled = new Map<string, RegExp>();

function matchesEntirelyCached(text: string | undefined, pattern: string): boolean {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = new RegExp('^(?:' + pattern + ')$');
    compiled.set(pattern, re);
  }
  return re.test(text || '');
}

let installed: boolean | undefined;
let helper: { module: { default?: MatchesEntirely }; original: MatchesEntirely } | undefined;

/**
 * The library's CommonJS build (its helper can be replaced; an ES module's exports cannot), with the
 * cache installed: every caller validates through this one copy, whatever the loader.
 */
export function phoneLibrary(): Max {
  installPhonePatternCache();
  return require('libphonenumber-js/max') as Max;
}

/** Installs the cache once per process; true when the library's helper was found and replaced. */
export function installPhonePatternCache(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  try {
    // The helper is not in the package's export map: reached by its file, next to the CommonJS entry.
    const file = path.join(path.dirname(require.resolve('libphonenumber-js')), 'build', 'helpers', 'matchesEntirely.js');
    const mod = require(file) as { default?: MatchesEntirely };
    const original = mod.default;
    if (typeof original === 'function' && original.length === 2 && /new RegExp\('\^\(\?:' \+ regularExpressionText \+ '\)\$'\)/.test(String(original))) {
      mod.default = matchesEntirelyCached;
      helper = { module: mod, original };
      installed = true;
    }
  } catch {
    // Not found: the library's own helper stays.
  }
  return installed;
}

/** Runs `fn` with the library's own helper (the differential test compares both). */
export function withLibraryPhonePatterns<T>(fn: () => T): T {
  if (!helper) return fn();
  helper.module.default = helper.original;
  try {
    return fn();
  } finally {
    helper.module.default = matchesEntirelyCached;
  }
}

/** How many patterns are compiled (for the test). */
export function compiledPhonePatterns(): number {
  return compiled.size;
}
