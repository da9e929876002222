// The plan's summary as `setup-pack plan`, `install` and the editor's plan panel print it: every
// count with its thousands separators (core's count and plural), one word for one thing.
import { describe, expect, it } from 'vitest';
import type { PlanResult, PlanStep, PlanSummary, StepAction } from '@setup-pack/core';
import { bindingKeyProblem, formatPlanText, noPaint, parseBinding, summaryLine } from './render.js';

const steps = (n: number, action: StepAction, write: boolean): PlanStep[] =>
  Array.from(
    { length: n },
    (_, i) =>
      ({
        itemId: `resource:r${i}`,
        kind: 'resource',
        key: `r${i}`,
        name: `r${i}`,
        collection: 'tags',
        action,
        write,
        phase: 1,
        reason: '',
        rewrites: [],
        dependsOn: [],
      }) as PlanStep,
  );

function planOf(summary: Partial<PlanSummary>, planSteps: PlanStep[] = []): PlanResult {
  const s: PlanSummary = { create: 0, update: 0, remove: 0, conflict: 0, orphan: 0, unchanged: 0, adopt: 0, ...summary };
  const writes = planSteps.filter((x) => x.write).length + s.create + s.update;
  return {
    ok: true,
    errors: [],
    warnings: [],
    packId: 'p',
    packName: 'P',
    fromVersion: '1.0.0',
    toVersion: '1.1.0',
    versionChange: 'upgrade',
    steps: planSteps,
    bindings: [],
    summary: s,
    hasChanges: writes > 0,
    writes,
  } as PlanResult;
}

describe('plan summary', () => {
  it('writes every count with its thousands separators', () => {
    const plan = planOf({ create: 1234, update: 1, remove: 1500, conflict: 2, orphan: 1001, unchanged: 11_999, adopt: 1 }, [
      ...steps(1500, 'remove', true),
      ...steps(1, 'conflict', true),
      ...steps(1, 'conflict', false),
    ]);
    expect(summaryLine(plan)).toBe(
      'Plan: 1,234 to create, 1 to update, 1,500 to remove, 2 conflicts (1 overwritten), 1,001 orphaned kept, 12,000 unchanged.',
    );
  });

  it('says one item and one conflict in the singular', () => {
    expect(summaryLine(planOf({ unchanged: 1 }))).toBe('No changes. 1 item up to date.');
    expect(summaryLine(planOf({ unchanged: 2400, adopt: 100, conflict: 1200 }))).toBe(
      'No changes. 2,500 items up to date, 1,200 edited in the workspace kept.',
    );
    expect(summaryLine(planOf({ create: 1, conflict: 1 }, steps(1, 'conflict', false)))).toBe(
      'Plan: 1 to create, 0 to update, 0 to remove, 1 conflict (kept), 0 unchanged.',
    );
  });

  it('counts the problems of a plan that failed', () => {
    const failed = (n: number) =>
      ({
        ...planOf({}),
        ok: false,
        errors: Array.from({ length: n }, (_, i) => ({ code: 'plan/unresolved-reference' as const, message: `problem ${i}` })),
      }) as PlanResult;
    expect(formatPlanText(failed(1))).toContain('The plan failed (1 problem):');
    expect(formatPlanText(failed(1001))).toContain('The plan failed (1,001 problems):');
  });

  it("lists an unresolved reference's workspace objects as what is in the workspace, an ambiguous one's as candidates", () => {
    const failed = {
      ...planOf({}),
      ok: false,
      errors: [
        {
          code: 'plan/unresolved-reference',
          message: 'user "Avery" is not in the pack',
          candidates: [{ id: 'mem_1', name: 'Alice' }, { id: 'mem_2' }],
        },
        { code: 'plan/ambiguous-reference', message: 'tag "x" matches 2', candidates: [{ id: 'tag_1', name: 'x' }] },
      ],
    } as unknown as PlanResult;
    const lines = formatPlanText(failed).split('\n');
    expect(lines).toContain('      in the workspace: mem_1 "Alice"');
    expect(lines).toContain('      in the workspace: mem_2');
    expect(lines).toContain('      candidate tag_1 "x"');
  });
});

describe('plan warnings', () => {
  const warned = (n: number) =>
    ({
      ...planOf({ create: 1 }, steps(1, 'create', true)),
      warnings: Array.from({ length: n }, (_, i) => ({
        code: 'plan/prune-kept',
        item: { itemId: `resource:r${i}`, kind: 'resource', key: `r${i}`, name: `r${i}` },
        message: `resource r${i} is gone from the release and --prune keeps it: \u001b[31mbecause`,
      })),
    }) as PlanResult;

  it('prints each once as a warning: line after the items and before the summary, which counts them; escaped', () => {
    const lines = formatPlanText(warned(2)).split('\n');
    const first = lines.indexOf('warning: resource r0 is gone from the release and --prune keeps it: \\u001b[31mbecause [plan/prune-kept]');
    expect(first).toBeGreaterThan(lines.findIndex((l) => l.startsWith('  + resource r0')));
    expect(lines[first + 1]).toBe(
      'warning: resource r1 is gone from the release and --prune keeps it: \\u001b[31mbecause [plan/prune-kept]',
    );
    expect(lines.slice(first + 2)).toEqual(['', 'Plan: 1 to create, 0 to update, 0 to remove, 0 unchanged. 2 warnings.', '']);
    expect(summaryLine(warned(1))).toBe('Plan: 1 to create, 0 to update, 0 to remove, 0 unchanged. 1 warning.');
    expect(summaryLine({ ...warned(1), hasChanges: false, summary: { ...warned(1).summary, create: 0, unchanged: 3 } })).toBe(
      'No changes. 3 items up to date. 1 warning.',
    );
  });

  it('prints nothing of them when there are none', () => {
    expect(formatPlanText(warned(0))).not.toContain('warning');
  });
});

describe('plan text from a hostile pack or workspace', () => {
  it('escapes control characters and bidirectional overrides in names, keys, ids and messages', () => {
    const step = { ...steps(1, 'create', true)[0]!, key: 'k\n::error::x', name: '\u001b[2Jname\u202e' } as PlanStep;
    const plan = {
      ...planOf({ create: 1 }, [step]),
      packName: 'Pack\u0007',
      bindings: [{ type: 'tag', id: 'tag\r1', name: 'n\u2066', source: 'workspace', target: { workspaceId: 'ws\u001b' } }],
    } as unknown as PlanResult;
    const text = formatPlanText(plan, noPaint);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('Pack\\u0007');
    expect(text).toContain('+ resource k\\n::error::x "\\u001b[2Jname\\u202e"');
    expect(text).toContain('tag tag\\r1 "n\\u2066" → ws\\u001b');
    const failed = {
      ...planOf({}),
      ok: false,
      errors: [
        { code: 'plan/ambiguous-resource', message: 'Resource x ("a\u001b[0m") matches 2', candidates: [{ id: 'i\n', name: 'c\u202e' }] },
      ],
    } as unknown as PlanResult;
    const out = formatPlanText(failed);
    expect(out).toContain('("a\\u001b[0m")');
    expect(out).toContain('candidate i\\n "c\\u202e"');
  });
});

describe('bindings', () => {
  it("take the format's reference types only, and say which type is wrong", () => {
    expect(parseBinding('user:usr_8841=mem_123')).toEqual(['user:usr_8841', 'mem_123']);
    expect(parseBinding('deal_stage:a:b=stg_1')).toEqual(['deal_stage:a:b', 'stg_1']);
    expect(() => parseBinding('usr:x=y')).toThrow(
      /^--bind: 'usr' in 'usr:x=y' is not a reference type; did you mean 'user'\? \(tag, .*lead_source\)$/,
    );
    expect(() => parseBinding('garbage')).toThrow(/--bind expects type:id=workspaceId/);
    expect(bindingKeyProblem('user:usr_8841')).toBeUndefined();
    expect(bindingKeyProblem('nonsense')).toBe("'nonsense' is not type:id (e.g. user:usr_8841)");
    expect(bindingKeyProblem('user:')).toBe("'user:' is not type:id (e.g. user:usr_8841)");
    expect(bindingKeyProblem('bogus:x')).toMatch(/^'bogus' in 'bogus:x' is not a reference type/);
  });
});
