/**
 * What JSON.parse lets through but a payload must not carry: a key given twice in one object
 * (JSON.parse keeps the last silently, so two readers of one file can disagree on an account's
 * number), and control characters in a string or key: NUL (Postgres refuses it in text, after the
 * account was scheduled), the other C0 and C1 controls (they reach an operator's terminal) and the
 * bidirectional overrides (they make a value read differently from what it is). TAB, LF and CR are
 * allowed in values (free text such as a note's body carries them), never in keys.
 */

export const HOSTILE_JSON_CODES = {
  duplicateKey: 'duplicate_json_key',
  controlCharacter: 'control_character',
  invalidUtf8: 'invalid_utf8',
} as const;

export interface HostileJsonProblem {
  code: string;
  /** Dot path of the field (`customers.0.given_name`); '' for the top level. */
  attr: string;
  detail: string;
}

// C0 but TAB/LF/CR, DEL and C1, the bidi embeddings/overrides/isolates and marks.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_IN_VALUE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_IN_KEY = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const codePoint = (s: string, re: RegExp) => {
  const c = re.exec(s)![0];
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
};

/** A path as a linked list: a deep document (5,000 levels) costs one node a level, not a copy of the path per level. */
interface PathNode {
  parent?: PathNode;
  step: string;
}
function pathOf(node: PathNode | undefined): string {
  const steps: string[] = [];
  for (let n = node; n; n = n.parent) steps.push(n.step);
  return steps.reverse().join('.');
}

const problemAt = (node: PathNode | undefined, where: string, text: string, re: RegExp): HostileJsonProblem => ({
  code: HOSTILE_JSON_CODES.controlCharacter,
  attr: pathOf(node),
  detail: `a control character (${codePoint(text, re)}) in ${where}`,
});

/** The first control character in a parsed value's strings or keys (named by code point, never quoted). Iterative: no stack limit on depth. */
export function controlCharacterIn(value: unknown): HostileJsonProblem | undefined {
  const todo: Array<{ value: unknown; at?: PathNode }> = [{ value }];
  for (let item = todo.pop(); item; item = todo.pop()) {
    const v = item.value;
    if (typeof v === 'string') {
      if (CONTROL_IN_VALUE.test(v)) return problemAt(item.at, 'the value', v, CONTROL_IN_VALUE);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    // Pushed in reverse so that the first field in document order is reported first.
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i];
      if (!Array.isArray(v) && CONTROL_IN_KEY.test(k)) return problemAt(item.at, 'a key', k, CONTROL_IN_KEY);
      todo.push({ value: x, at: { parent: item.at, step: k } });
    }
  }
  return undefined;
}

/**
 * The first key given twice in one object of `text` (which JSON.parse has accepted), with the
 * object's path. A single pass over the text; keys are compared as JSON.parse decodes them.
 */
export function duplicateKeyIn(text: string): HostileJsonProblem | undefined {
  // One frame per open container: its keys (objects) or next index (arrays), and where it is.
  const stack: Array<{ keys?: Set<string>; index: number; at?: PathNode; key?: string }> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) {
          return {
            code: HOSTILE_JSON_CODES.duplicateKey,
            attr: pathOf({ parent: top.at, step: key }),
            detail: `the key "${key.slice(0, 64)}" is given twice in one object`,
          };
        }
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
      continue;
    }
    if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const parent = stack[stack.length - 1];
      const at = parent ? { parent: parent.at, step: parent.keys ? (parent.key ?? '') : String(parent.index) } : undefined;
      stack.push(ch === 0x7b ? { keys: new Set(), index: 0, at } : { index: 0, at });
      expectKey = ch === 0x7b;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (ch === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index += 1;
    }
  }
  return undefined;
}

/** A parsed JSON text's problems beyond JSON's own: a duplicate key first, then a control character. */
export function hostileJsonProblem(text: string, value: unknown): HostileJsonProblem | undefined {
  return duplicateKeyIn(text) ?? controlCharacterIn(value);
}

// ignoreBOM: a U+FEFF inside the text stays (TextDecoder drops a leading one silently, and the bytes then no longer read back as the text).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text, or undefined when they are not valid UTF-8 (Buffer#toString would replace them silently). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
