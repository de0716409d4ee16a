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

type CountryCode = import('libphonenumber-js').CountryCode;
type Parse = (text: string, options: object, metadata: object) => { isValid(): boolean } | undefined;

/**
 * `isValidPhoneNumber(text, region)` of libphonenumber-js/max, minus its wrappers: the public entry
 * point copies its options twice with Babel's generic spread helper and re-checks the region on every
 * call, a third of a number's validation time. It is, line for line, `parse(text, {defaultCountry,
 * extract: false, v2: true}, metadata)` (a ParseError meaning "not a number") then `isValid()`; that
 * is what runs here, with the options built once per region. If the parser is not where this version
 * keeps it, the public function is used: same answers, only slower (the phone-patterns test fails).
 */
export function phoneValidator(region: CountryCode): (text: string) => boolean {
  const lib = phoneLibrary();
  const parse = internalParse();
  if (!parse) return (text) => lib.isValidPhoneNumber(text, region);
  const metadata = require('libphonenumber-js/metadata.max.json') as object;
  const options = Object.freeze({ defaultCountry: lib.isSupportedCountry(region) ? region : undefined, extract: false, v2: true });
  return (text) => {
    const number = parse(text, options, metadata);
    return (number !== undefined && number.isValid()) || false;
  };
}

let parser: Parse | null | undefined;
function internalParse(): Parse | null {
  if (parser !== undefined) return parser;
  parser = null;
  try {
    const file = path.join(path.dirname(require.resolve('libphonenumber-js')), 'build', 'parse.js');
    const fn = (require(file) as { default?: Parse }).default;
    if (typeof fn === 'function' && fn.length === 3 && /options\.v2/.test(String(fn))) parser = fn;
  } catch {
    // Not found: the public entry point stays.
  }
  return parser;
}

/** True when phoneValidator runs the library's parser directly (for the test). */
export function phoneParserFound(): boolean {
  return internalParse() !== null;
}

/** How many patterns are compiled (for the test). */
export function compiledPhonePatterns(): number {
  return compiled.size;
}
