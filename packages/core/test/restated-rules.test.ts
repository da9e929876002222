// The format's rules are stated in schemas/ and in core; every other package takes them from
// there (core's MESSAGE_CHANNELS, maxLengthOf, publishedSchemas, hasLoneSurrogate...). A regular
// expression or a limit equal to one of the schemas', written out again in another package's
// source, is a second statement of a rule that drifts when the schema changes: this test names it.
// The workspace API's own limits (a webhook URL's, a note's) are named constants of the server
// (routes/schemas.ts TEXT_LIMITS and beside their routes), whatever their value.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '../../..');
const LIMIT_KEYWORDS = ['maxLength', 'minLength', 'maximum', 'minimum', 'maxItems', 'minItems', 'exclusiveMaximum', 'exclusiveMinimum'];

/** Every pattern and every limit (keyword: value, past the trivial 0 and 1) the published schemas state. */
function schemaRules(): { patterns: Set<string>; limits: Set<string> } {
  const patterns = new Set<string>();
  const limits = new Set<string>();
  const walk = (v: unknown): void => {
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'pattern' && typeof x === 'string') patterns.add(x);
      else if (LIMIT_KEYWORDS.includes(k) && typeof x === 'number' && x > 1) limits.add(`${k}: ${x}`);
      walk(x);
    }
  };
  for (const f of readdirSync(join(root, 'schemas')).filter((f) => f.endsWith('.schema.json')))
    walk(JSON.parse(readFileSync(join(root, 'schemas', f), 'utf8')));
  return { patterns, limits };
}

/** Where `source` restates one of `rules`: a pattern as written in a string or a regular expression literal, or a limit keyword with the same value. */
function restatements(source: string, rules: ReturnType<typeof schemaRules>): string[] {
  const found: string[] = [];
  for (const p of rules.patterns) {
    const forms = [p, JSON.stringify(p).slice(1, -1), `/${p.replace(/\//g, '\\/')}/`];
    if (forms.some((form) => source.includes(form))) found.push(`pattern ${p}`);
  }
  for (const m of source.matchAll(/\b([a-zA-Z]+)\s*:\s*(\d+)\b/g)) if (rules.limits.has(`${m[1]}: ${m[2]}`)) found.push(m[0]);
  return found;
}

/** The source of every package but core (and of the repository's scripts), as git tracks it. */
function otherSources(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--', 'packages', 'apps', 'scripts'], { cwd: root, encoding: 'utf8' }).split('\0');
  return listed.filter(
    (f) =>
      /\.(ts|tsx|mts|mjs|js)$/.test(f) && !f.startsWith('packages/core/') && !/(^|\/)(test|bench)\//.test(f) && !/\.test\.tsx?$/.test(f),
  );
}

describe('the format rules outside core', () => {
  const rules = schemaRules();

  it('reads the rules it looks for from the schemas', () => {
    expect([...rules.patterns]).toContain('^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$');
    expect([...rules.limits]).toEqual(expect.arrayContaining(['maxLength: 200', 'maximum: 10000', 'maxLength: 20000']));
    // What a restatement looks like, in each form it is caught in.
    expect(restatements("name: { type: 'string', minLength: 1, maxLength: 200 }", rules)).toEqual(['maxLength: 200']);
    expect(restatements("const hex = new RegExp('^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$');", rules)).toHaveLength(1);
    expect(restatements('const subject = /^[^\\r\\n]*$/;', rules)).toEqual(['pattern ^[^\\r\\n]*$']);
    expect(restatements("url: { type: 'string', maxLength: TEXT_LIMITS.url }", rules)).toEqual([]);
  });

  it('are never restated in another package: each takes them from core or schemas/', () => {
    const files = otherSources();
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) => restatements(readFileSync(join(root, f), 'utf8'), rules).map((r) => `${f}: ${r}`));
    expect(found).toEqual([]);
  });
});

describe("the workspace API's collection paths outside core", () => {
  it("are core's COLLECTION_PATH and LIST_PATH, never written out again in the installer, the server, the CLI or the editor", async () => {
    const { COLLECTION_PATH, LIST_PATH } = await import('../src/index.js');
    const paths = [...Object.values(COLLECTION_PATH), ...Object.values(LIST_PATH)];
    expect(paths).toContain('/v1/tags');
    // A path as a string of its own, or a path with more after it (`'/v1/tags/:id'`).
    const literal = new RegExp(`['"\`](${paths.map((p) => p.replace(/[/-]/g, '\\$&')).join('|')})(/[^'"\`]*)?['"\`]`, 'g');
    expect("app.get('/v1/tags/:id', …)".match(literal)).toHaveLength(1);
    const found = otherSources().flatMap((f) => [...readFileSync(join(root, f), 'utf8').matchAll(literal)].map((m) => `${f}: ${m[0]}`));
    expect(found).toEqual([]);
  });
});
