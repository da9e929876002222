import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { packItemsByReferenceType } from '@setup-pack/core';
import { buildEdges, buildNodes, sameEdgeInputs, sameItems, sameReferenceItems, stableRefIndex } from './flow.js';
import { indexFindings } from '../model/findings.js';
import { documentOf, updateDocument, type PackValue } from '../model/pack.js';
import { updateNode, withGraph, edgesOf } from '../model/graph.js';

const pack = (): PackValue =>
  JSON.parse(readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8'));

describe('canvas model', () => {
  it('gives blocks their catalog label, group, summary and handles by kind', () => {
    const p = pack();
    const nodes = buildNodes(documentOf(p, 0), 0, undefined, undefined, undefined, packItemsByReferenceType(p));
    const byId = new Map(nodes.map((n) => [n.id, n.data]));
    expect(byId.get('start')).toMatchObject({
      label: 'Contact created',
      group: 'trigger',
      isTrigger: true,
      handles: ['next'],
      summary: [
        'Lead source: ',
        { text: 'Zillow', ref: 'lead_source', id: 'src-zillow', item: { kind: 'resources', index: 2, name: 'Zillow' } },
      ],
    });
    expect(byId.get('replied')).toMatchObject({ group: 'control', handles: ['true', 'false'], summary: ['If ', 'last reply at is set'] });
    expect(byId.get('sms')?.summary).toEqual([
      'Template: ',
      {
        text: 'Welcome text',
        ref: 'email_template',
        id: 'tpl-welcome-sms',
        item: { kind: 'messageTemplates', index: 0, name: 'Welcome text' },
      },
    ]);
    // An id the pack does not carry is said as the automation's references name it, else as itself.
    expect(byId.get('task')?.summary).toContainEqual({ text: 'Jordan Lee', ref: 'user', id: 'usr_8841' });
    const ai = new Map(buildNodes(documentOf(pack(), 1), 1).map((n) => [n.id, n.data])).get('ai');
    expect(ai?.handles).toEqual(['ready', 'later']);
  });
  it('keeps the reference index object while no key or name changes, so blocks are not rebuilt', () => {
    const p = pack();
    const a = packItemsByReferenceType(p);
    expect(stableRefIndex(a, packItemsByReferenceType(JSON.parse(JSON.stringify(p))))).toBe(a);
    const renamed = JSON.parse(JSON.stringify(p)) as PackValue & { resources: { name: string }[] };
    renamed.resources[0]!.name = 'Buyer';
    const b = packItemsByReferenceType(renamed);
    expect(stableRefIndex(a, b)).toBe(b);
  });
  it('says when two pack states resolve references alike without rebuilding the index: only items, keys and names count', () => {
    const p = pack();
    const typed = updateDocument(p, 0, (d) => updateNode(d, 'tag', (n) => ({ ...n, config: { tag_id: 'tag-typed' } })));
    expect(sameReferenceItems(p, typed)).toBe(true);
    expect(
      sameReferenceItems(
        p,
        updateDocument(p, 0, (d) => ({ ...d, name: 'Renamed automation' })),
      ),
    ).toBe(false);
    const rekeyed = {
      ...p,
      automations: (p.automations as Record<string, unknown>[]).map((a, i) => (i === 1 ? { ...a, key: 'other' } : a)),
    };
    expect(sameReferenceItems(p, rekeyed)).toBe(false);
    const resources = { ...p, resources: [...(p.resources as unknown[])] };
    expect(sameReferenceItems(p, resources)).toBe(false);
    expect(sameReferenceItems(p, { ...p, automations: (p.automations as unknown[]).slice(1) })).toBe(false);
    // Whenever it says "alike", core's index agrees.
    expect(stableRefIndex(packItemsByReferenceType(p), packItemsByReferenceType(typed))).toEqual(packItemsByReferenceType(p));
  });
  it('says when edges would be drawn alike: the same edge list, and the same ids and output handles block by block', () => {
    const doc = documentOf(pack(), 0);
    const typed = updateNode(doc, 'tag', (n) => ({ ...n, config: { tag_id: 'tag-typed' } }));
    expect(sameEdgeInputs(doc, typed)).toBe(true);
    expect(buildEdges(typed, 0)).toEqual(buildEdges(doc, 0));
    // A branch block whose outcomes change its handles, a renamed block, or another edge list: drawn again.
    const ai = documentOf(pack(), 1);
    const aiNode = (ai.graph as { nodes: { id: string; kind: string }[] }).nodes.find((n) => n.kind === 'control.ai_branch')!;
    const outcomes = updateNode(ai, aiNode.id, (n) => ({
      ...n,
      config: { ...(n.config as Record<string, unknown>), outcomes: ['ready', 'later', 'never'] },
    }));
    expect(sameEdgeInputs(ai, outcomes)).toBe(false);
    expect(
      sameEdgeInputs(
        doc,
        updateNode(doc, 'tag', (n) => ({ ...n, id: 'tag2' })),
      ),
    ).toBe(false);
    expect(sameEdgeInputs(doc, withGraph(doc, undefined, edgesOf(doc).slice(1)))).toBe(false);
  });
  it('labels edges by handle, except next', () => {
    const edges = buildEdges(documentOf(pack(), 0), 0);
    expect(edges.find((e) => e.id === 'e5')).toMatchObject({ sourceHandle: 'true', label: 'true' });
    expect(edges.find((e) => e.id === 'e1')?.label).toBeUndefined();
  });
  it('draws an edge from a handle the block lacks from its first output, dashed and labelled as no such output', () => {
    const doc = documentOf(pack(), 0);
    const bad = withGraph(
      doc,
      undefined,
      edgesOf(doc).map((e) => (e.id === 'e5' ? { ...e, handle: 'maybe' } : e)),
    );
    const edge = buildEdges(bad, 0).find((e) => e.id === 'e5');
    expect(edge).toMatchObject({ sourceHandle: 'true', label: 'maybe: not an output of this block' });
    expect(edge?.className?.split(' ')).toContain('edge-stray');
    // React Flow's name for the handle, without ours: the edge leaves through next, which an if
    // block does not have, so it must not look like the true branch it is drawn from.
    const renamed = withGraph(
      doc,
      undefined,
      edgesOf(doc).map((e) => (e.id === 'e5' ? { ...withoutHandle(e), sourceHandle: 'true' } : e)),
    );
    expect(buildEdges(renamed, 0).find((e) => e.id === 'e5')).toMatchObject({
      sourceHandle: 'true',
      label: 'next: not an output of this block',
    });
    // Edges from outputs their blocks have are neither.
    for (const e of buildEdges(doc, 0)) {
      expect(e.className ?? '').not.toContain('edge-stray');
      expect(String(e.label ?? '')).not.toContain('not an output');
    }
  });
  it('puts finding counts on blocks and places blocks without a position', () => {
    const p = updateDocument(pack(), 0, (d) => updateNode(d, 'tag', ({ position: _p, ...n }) => n));
    const findings = indexFindings(p, [
      { code: 'x', severity: 'warning', message: '', pointer: '/automations/0/document/graph/nodes/1/config' },
    ]);
    const tag = buildNodes(documentOf(p, 0), 0, findings).find((n) => n.id === 'tag')!;
    expect(tag.data.warnings).toBe(1);
    expect(tag.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });
  });
  it('keeps the previous array when a rebuild yields the same objects (no store update for nothing)', () => {
    const a = { id: 'a' };
    const b = { id: 'b' };
    const prev = [a, b];
    expect(sameItems(prev, [a, b])).toBe(prev);
    const reordered = [b, a];
    expect(sameItems(prev, reordered)).toBe(reordered);
    const changed = [a, { id: 'b' }];
    expect(sameItems(prev, changed)).toBe(changed);
    const shorter = [a];
    expect(sameItems(prev, shorter)).toBe(shorter);
  });
});

function withoutHandle(e: Record<string, unknown>): Record<string, unknown> {
  const { handle: _h, ...rest } = e;
  return rest;
}
