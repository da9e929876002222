import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { validatePack, type Diagnostic } from '@setup-pack/core';
import { fieldOf, findingsOnForm, indexFindings } from './findings.js';
import { parsePackText } from './fileText.js';
import { applyPatch, diffForWorker } from './patch.js';
import { groupRows } from './findingRows.js';
import type { PackValue, Target } from './pack.js';

/** What a form shows, from an index built as the page builds it. */
const formFindings = (p: PackValue, diagnostics: readonly Diagnostic[], target: Target, block?: { id: string; kind: string }) =>
  findingsOnForm(indexFindings(p, diagnostics), target, block);

const pack = (): PackValue =>
  JSON.parse(readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8'));
const finding = (pointer: string): Diagnostic => ({ code: 'x', severity: 'error', message: pointer, pointer }) as Diagnostic;

describe('findings on form fields', () => {
  const fields = ['id', 'config/tag_id', 'config/~other', 'stages', 'stages/0', 'stages/0/key', 'document/settings/send_window_days'];
  it('gives a finding to the longest field its path starts with, else the first field under it', () => {
    expect(fieldOf(['stages', '0', 'key'], fields)).toBe('stages/0/key');
    expect(fieldOf(['stages', '0', 'nope'], fields)).toBe('stages/0');
    expect(fieldOf(['document', 'settings', 'send_window_days', '3'], fields)).toBe('document/settings/send_window_days');
    expect(fieldOf(['config'], fields)).toBe('config/tag_id');
    expect(fieldOf(['kind'], fields)).toBeUndefined();
    // Under the finding's own path, not under an ancestor's: the graph's blocks are not the settings.
    expect(fieldOf(['document', 'graph', 'nodes'], fields)).toBeUndefined();
    expect(fieldOf(['document', 'settings'], fields)).toBe('document/settings/send_window_days');
    expect(fieldOf([], fields)).toBeUndefined();
  });

  it("takes the selected block's findings for its form, the item's otherwise, and files unknown config keys under the raw JSON field", () => {
    const p = pack();
    const diagnostics = [
      finding('/automations/0/document/graph/nodes/1/config/tag_id'),
      finding('/automations/0/document/graph/nodes/1/config/colour'),
      finding('/automations/0/document/graph/nodes/2/config/template_id'),
      finding('/automations/0/document/settings/send_window_end'),
      finding('/automations/0/document/graph/edges/0'),
      finding('/pipelines/0/stages/1/key'),
    ];
    const tag = formFindings(p, diagnostics, { kind: 'automations', index: 0 }, { id: 'tag', kind: 'action.add_tag' });
    expect(tag.map((f) => f.path.join('/'))).toEqual(['config/tag_id', 'config/~other/colour']);
    const automation = formFindings(p, diagnostics, { kind: 'automations', index: 0 });
    expect(automation.map((f) => f.path.join('/'))).toEqual(['document/settings/send_window_end']);
    expect(formFindings(p, diagnostics, { kind: 'pipelines', index: 0 }).map((f) => f.path.join('/'))).toEqual(['stages/1/key']);
    expect(formFindings(p, diagnostics, { kind: 'pack' })).toEqual([]);
  });

  it("puts a finding about an absent field on that field's input, not on the first field of its object", () => {
    const p = pack() as PackValue & Record<string, any>;
    delete p.name;
    delete p.version;
    // create_task's required title is its first field; send_email's template_id too: take a
    // block whose required field is not first (create_deal: pipeline_id, then stage_id*).
    const nodes = p.automations[0].document.graph.nodes;
    nodes.push({ id: 'deal', kind: 'action.create_deal', position: { x: 0, y: 0 }, config: { pipeline_id: 'buyers' } });
    p.automations[0].document.graph.edges.push({ id: 'e-deal', source: 'tag', target: 'deal' });
    const diagnostics = validatePack(p).diagnostics;
    const onPack = formFindings(p, diagnostics, { kind: 'pack' });
    const packFields = ['name', 'version', 'schemaVersion', 'description', 'author', 'packId', 'brand'];
    expect(
      onPack
        .filter((f) => f.diagnostic.code === 'schema/required')
        .map((f) => fieldOf(f.path, packFields))
        .sort(),
    ).toEqual(['name', 'version']);
    const deal = formFindings(p, diagnostics, { kind: 'automations', index: 0 }, { id: 'deal', kind: 'action.create_deal' });
    const required = deal.filter((f) => f.diagnostic.code === 'catalog/config-field');
    expect(required.map((f) => f.diagnostic.missing)).toEqual(['stage_id']);
    expect(
      required.map((f) => fieldOf(f.path, ['id', 'config/pipeline_id', 'config/stage_id', 'config/name', 'config/value', 'config/~other'])),
    ).toEqual(['config/stage_id']);
  });

  it("places core's own findings: a duplicate stage key on that stage's key", () => {
    const p = pack() as PackValue & { pipelines: { stages: { key: string }[] }[] };
    p.pipelines[0]!.stages[1]!.key = p.pipelines[0]!.stages[0]!.key;
    const shown = formFindings(p, validatePack(p).diagnostics, { kind: 'pipelines', index: 0 });
    expect(shown.map((f) => [f.diagnostic.code, fieldOf(f.path, ['key', 'name', 'stages', 'stages/1', 'stages/1/key'])])).toContainEqual([
      'pipeline/duplicate-stage-key',
      'stages/1/key',
    ]);
  });

  it('shows a number JSON cannot hold (1e400, read as Infinity: installed, it would be null) on its field, like any other finding', () => {
    const text = readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8').replace(
      '"due_in_days": 1',
      '"due_in_days": 1e400',
    );
    const { value: p } = parsePackText(text);
    // As the page hands the pack to the validation worker, and the worker validates it.
    const diagnostics = validatePack(applyPatch(undefined, diffForWorker(undefined, p!))).diagnostics;
    expect(diagnostics.map((d) => `${d.severity} ${d.code} ${d.pointer}`)).toEqual([
      'error json/number-range /automations/0/document/graph/nodes/5/config/due_in_days',
    ]);
    expect(diagnostics[0].message).toBe(
      'automations[0].document.graph.nodes[5].config.due_in_days is Infinity, beyond what a JSON number can hold (a 64-bit float); it would be installed as null.',
    );
    const task = formFindings(p!, diagnostics, { kind: 'automations', index: 0 }, { id: 'task', kind: 'action.create_task' });
    expect(
      task.map((f) => [
        f.diagnostic.code,
        fieldOf(f.path, ['id', 'config/title', 'config/due_in_days', 'config/assignee_id', 'config/~other']),
      ]),
    ).toEqual([['json/number-range', 'config/due_in_days']]);
    expect(groupRows(diagnostics).map((g) => [g.severity, g.code])).toEqual([['error', 'json/number-range']]);
  });
});
