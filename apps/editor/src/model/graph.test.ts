import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { validatePack } from '@setup-pack/core';
import {
  blockAfterDelete,
  deleteJoining,
  reconnect,
  canReconnect,
  addConnectedNode,
  addNode,
  canConnect,
  canvasIds,
  connect,
  copyNodes,
  deleteElements,
  duplicateNodes,
  edgesOf,
  graphOf,
  moveNodes,
  nodeAt,
  nodesOf,
  pasteNodes,
  renameNode,
  updateNode,
  clipboardText,
  readClipboardText,
  CLIPBOARD_FORMAT,
} from './graph.js';
import { documentOf, updateDocument, type PackValue } from './pack.js';
import type { Obj } from './json.js';

const fixture = (p: string): PackValue => JSON.parse(readFileSync(new URL(`../../../../fixtures/${p}`, import.meta.url), 'utf8'));
const starter = () => fixture('valid/buyer-lead-starter.json');
const doc0 = () => documentOf(starter(), 0);
const ids = (doc: Obj) => nodesOf(doc).map((n) => n.id);

describe('connection rules', () => {
  it('refuses an edge into a trigger', () => {
    const r = canConnect(doc0(), { source: 'tag', handle: 'next', target: 'start' });
    expect(r).toEqual({ ok: false, reason: expect.stringMatching(/trigger/) });
  });
  it('refuses an edge that closes a cycle', () => {
    const r = canConnect(doc0(), { source: 'email', handle: 'next', target: 'tag' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/cycle/);
  });
  it('refuses a handle the source does not have, and accepts the ones it has', () => {
    expect(canConnect(doc0(), { source: 'replied', handle: 'next', target: 'email' }).ok).toBe(false);
    const { doc } = addNode(doc0(), 'action.add_note', { x: 0, y: 0 });
    expect(canConnect(doc, { source: 'replied', handle: 'true', target: 'add_note' }).ok).toBe(true);
    expect(canConnect(doc, { source: 'replied', handle: 'maybe', target: 'add_note' }).ok).toBe(false);
  });
  it('allows only declared outcomes on an AI branch', () => {
    const d = documentOf(starter(), 1);
    const { doc } = addNode(d, 'action.add_note', { x: 0, y: 0 });
    expect(canConnect(doc, { source: 'ai', handle: 'later', target: 'add_note' }).ok).toBe(true);
    expect(canConnect(doc, { source: 'ai', handle: 'next', target: 'add_note' }).ok).toBe(false);
  });
  it('refuses self-loops and duplicate edges', () => {
    expect(canConnect(doc0(), { source: 'tag', handle: 'next', target: 'tag' }).ok).toBe(false);
    expect(canConnect(doc0(), { source: 'tag', handle: 'next', target: 'sms' }).ok).toBe(false);
  });
  it('connect writes the handle only when it is not next', () => {
    const a = addNode(doc0(), 'action.add_note', { x: 0, y: 0 });
    const b = connect(a.doc, { source: 'email', handle: 'next', target: a.id });
    expect(b.error).toBeUndefined();
    expect(edgesOf(b.doc).at(-1)).toEqual({ id: b.edgeId, source: 'email', target: 'add_note' });
    const c = addNode(b.doc, 'action.notify', { x: 0, y: 0 });
    const d = connect(c.doc, { source: 'replied', handle: 'true', target: c.id });
    expect(edgesOf(d.doc).at(-1)).toMatchObject({ source: 'replied', target: 'notify', handle: 'true' });
  });
});

describe('editing', () => {
  it('adds a node with a unique id and leaves the input untouched', () => {
    const before = doc0();
    const snapshot = structuredClone(before);
    const a = addNode(before, 'action.add_tag', { x: 10.4, y: 20.6 });
    expect(a.id).toBe('add_tag');
    const b = addNode(a.doc, 'action.add_tag', { x: 0, y: 0 });
    expect(b.id).toBe('add_tag_2');
    expect(nodesOf(b.doc).at(-2)).toEqual({ id: 'add_tag', kind: 'action.add_tag', config: {}, position: { x: 10, y: 21 } });
    expect(before).toEqual(snapshot);
  });
  it('adds a connected node when a connection is dropped on the canvas', () => {
    const r = addConnectedNode(doc0(), 'action.add_note', { x: 0, y: 700 }, { source: 'email', handle: 'next' });
    expect(r.error).toBeUndefined();
    expect(edgesOf(r.doc).some((e) => e.source === 'email' && e.target === r.id)).toBe(true);
  });
  it("deleting a block of a straight chain joins its neighbours, with the edge in's output; a branch or a join is a plain delete", () => {
    const before = doc0();
    // The starter's chain: start → tag → sms → wait → replied (a branch).
    const r = deleteJoining(before, 'sms');
    expect(r.joined).toEqual(['tag', 'wait']);
    expect(nodesOf(r.doc).some((n) => n.id === 'sms')).toBe(false);
    expect(
      edgesOf(r.doc)
        .filter((e) => e.source === 'tag')
        .map((e) => e.target),
    ).toEqual(['wait']);
    // replied has two edges out (true, false): nothing to join.
    const branch = deleteJoining(before, 'replied');
    expect(branch.joined).toBeUndefined();
    expect(branch.doc).toEqual(deleteElements(before, ['replied']));
  });
  it('names the block that takes the place of deleted ones: the next left, else the last left, else none', () => {
    const before = doc0();
    const order = ids(before).map(String);
    const at = (id: string) => order.indexOf(id);
    expect(blockAfterDelete(before, deleteElements(before, ['replied']), ['replied'])).toBe(order[at('replied') + 1]);
    const last = order.at(-1)!;
    expect(blockAfterDelete(before, deleteElements(before, [last]), [last])).toBe(order.at(-2));
    // Several: the block after the first deleted one that is left.
    const two = [order[1]!, order[2]!];
    expect(blockAfterDelete(before, deleteElements(before, two), two)).toBe(order[3]);
    expect(blockAfterDelete(before, deleteElements(before, order), order)).toBeUndefined();
  });
  it('deletes nodes with their edges', () => {
    const d = deleteElements(doc0(), ['replied']);
    expect(ids(d)).not.toContain('replied');
    expect(edgesOf(d).some((e) => e.source === 'replied' || e.target === 'replied')).toBe(false);
    expect(edgesOf(d)).toHaveLength(3);
  });
  it('deletes single edges', () => {
    expect(edgesOf(deleteElements(doc0(), [], ['e1'])).map((e) => e.id)).toEqual(['e2', 'e3', 'e4', 'e5', 'e6']);
  });
  it('duplicates a selection with its inner edges under new ids', () => {
    const r = duplicateNodes(doc0(), ['replied', 'task']);
    expect(r.ids).toEqual(['replied_2', 'task_2']);
    const inner = edgesOf(r.doc).filter((e) => e.source === 'replied_2');
    expect(inner).toEqual([{ id: 'e5_2', source: 'replied_2', target: 'task_2', handle: 'true' }]);
    expect(nodesOf(r.doc).find((n) => n.id === 'task_2')?.position).toEqual({ x: -120, y: 640 });
  });
  it('pastes between automations, keeping unknown fields and config', () => {
    const pack = starter();
    const src = updateDocument(pack, 0, (d) => ({ ...d }));
    const clip = copyNodes(documentOf(src, 0), ['sms', 'wait']);
    (clip.nodes[0] as Obj).extra = { kept: true };
    const r = pasteNodes(documentOf(pack, 1), clip);
    const pasted = nodesOf(r.doc).filter((n) => r.ids.includes(n.id as string));
    expect(pasted.map((n) => n.kind)).toEqual(['action.send_sms', 'control.wait']);
    expect(pasted[0]).toMatchObject({ config: { template_id: 'tpl-welcome-sms' }, extra: { kept: true } });
    expect(edgesOf(r.doc).filter((e) => r.ids.includes(e.source as string))).toHaveLength(1);
  });
  it('moves nodes and returns the same document when nothing moved', () => {
    const d = doc0();
    expect(moveNodes(d, new Map([['tag', { x: 0, y: 120 }]]))).toBe(d);
    const m = moveNodes(d, new Map([['tag', { x: 5.2, y: 6.7 }]]));
    expect(nodesOf(m).find((n) => n.id === 'tag')?.position).toEqual({ x: 5, y: 7 });
  });
  it('reconnects an edge under the same rules, keeping its id', () => {
    const r = reconnect(doc0(), 'e6', { source: 'replied', handle: 'false', target: 'task' });
    expect(r.error).toBeUndefined();
    expect(edgesOf(r.doc).find((e) => e.id === 'e6')).toEqual({ id: 'e6', source: 'replied', target: 'task', handle: 'false' });
    expect(reconnect(doc0(), 'e2', { source: 'tag', handle: 'next', target: 'start' }).error).toMatch(/trigger/);
    expect(reconnect(doc0(), 'e4', { source: 'wait', handle: 'next', target: 'tag' }).error).toMatch(/cycle/);
    // Moving an edge onto the spot it already holds is not a duplicate of itself.
    expect(reconnect(doc0(), 'e1', { source: 'start', handle: 'next', target: 'tag' }).error).toBeUndefined();
  });
  it('renames a node and rewrites its edges', () => {
    const r = renameNode(doc0(), 'tag', 'tag_lead');
    expect(edgesOf(r.doc).filter((e) => e.source === 'tag_lead' || e.target === 'tag_lead')).toHaveLength(2);
    expect(renameNode(doc0(), 'tag', 'sms').error).toMatch(/already/);
  });
  it('an edited pack still validates without errors', () => {
    const pack = updateDocument(starter(), 0, (d) => {
      const a = addConnectedNode(d, 'action.add_note', { x: 0, y: 800 }, { source: 'email', handle: 'next' });
      return a.doc;
    });
    const errors = validatePack(pack).diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toEqual([]);
  });
});

describe('clipboard text', () => {
  const clip = {
    nodes: [
      { id: 'a', kind: 'action.notify', config: { message: 'x' } },
      { id: 'b', kind: 'control.wait' },
    ],
    edges: [{ id: 'e', source: 'a', target: 'b' }],
  };

  it('round-trips copied blocks through the system clipboard text', () => {
    const text = clipboardText(clip);
    expect(JSON.parse(text)).toMatchObject({ format: CLIPBOARD_FORMAT, version: 1 });
    expect(readClipboardText(text)).toEqual(clip);
  });

  it('takes the graph of a pasted automation document, and keeps only well-formed blocks and the edges between them', () => {
    const doc = {
      format: 'service.automation-template',
      version: 1,
      name: 'x',
      graph: { nodes: [...clip.nodes, { id: 'c' }, 'junk'], edges: [...clip.edges, { id: 'f', source: 'a', target: 'c' }] },
    };
    expect(readClipboardText(JSON.stringify(doc))).toEqual(clip);
  });

  it("refuses copied text that says what the editor would not keep (1e-400 read as 0, a property written twice), in core's words", () => {
    const blocks = (config: string) =>
      `{"format": "${CLIPBOARD_FORMAT}", "version": 1,\n "nodes": [{"id": "w", "kind": "control.wait",\n "config": ${config}}], "edges": []}`;
    expect(readClipboardText(blocks('{"duration": 1e-400, "unit": "days"}'))).toEqual({
      refused:
        'Not pasted: the copied text says what the editor cannot keep as written: line 3: nodes[0].config.duration is the number 1e-400, closer to 0 than a JSON number can hold here (a 64-bit float); it reads as 0, and would be installed and exported so. Write 0 if that is what it means; else write it as a string, which keeps every digit.',
    });
    expect(readClipboardText(blocks('{"duration": 0.1000000000000000055511151231257827, "unit": "days", "unit": "hours"}'))).toEqual({
      refused: expect.stringMatching(
        /^Not pasted: the copied text says what the editor cannot keep as written: line 3: nodes\[0\]\.config\.duration is the number 0\.1000000000000000055511151231257827, .* Also 1 other place\. Write 0\.1 if/,
      ),
    });
    expect(readClipboardText(blocks('{"unit": "days", "unit": "hours"}'))).toEqual({
      refused: expect.stringContaining(
        'line 3: The property "unit" appears more than once in this object; only the last one counts. Remove or merge the duplicate property.',
      ),
    });
    // A number beyond a float's range would be pasted as Infinity and exported as null.
    expect(readClipboardText(blocks('{"duration": 1e400, "unit": "days"}'))).toEqual({
      refused: expect.stringMatching(
        /^Not pasted: the copied text says what the editor cannot keep as written: line 3: nodes\[0\]\.config\.duration is the number 1e400, beyond what a JSON number can hold here/,
      ),
    });
    // Numbers written as JSON.stringify writes them, and what is not pasted (the document's own fields), are no reason to refuse.
    expect(readClipboardText(blocks('{"duration": 1.5e-7, "unit": "days"}'))).toMatchObject({ nodes: [{ config: { duration: 1.5e-7 } }] });
    const doc = `{"format": "service.automation-template", "version": 1, "name": "x", "name": "y", "limit": 1e-400, "graph": ${JSON.stringify(clip)}}`;
    expect(readClipboardText(doc)).toEqual(clip);
  });

  it('is not fooled by ordinary text or other JSON', () => {
    for (const text of [
      'hello',
      '',
      '[1,2]',
      '{"nodes":[{"id":"a","kind":"action.notify"}]}',
      JSON.stringify({ format: CLIPBOARD_FORMAT, nodes: [] }),
    ])
      expect(readClipboardText(text)).toBeUndefined();
  });
});

describe('canReconnect', () => {
  // start → a → b; the edge a → b is being dragged.
  const doc = {
    graph: {
      nodes: [
        { id: 'start', kind: 'trigger.contact_created' },
        { id: 'a', kind: 'action.notify' },
        { id: 'b', kind: 'action.notify' },
      ],
      edges: [
        { id: 'e0', source: 'start', target: 'a' },
        { id: 'e1', source: 'a', target: 'b' },
      ],
    },
  };
  it('judges the move without the moving edge: putting it back or reversing it is allowed', () => {
    expect(canConnect(doc, { source: 'a', handle: 'next', target: 'b' }).ok).toBe(false); // a new edge would repeat e1
    expect(canReconnect(doc, 'e1', { source: 'a', handle: 'next', target: 'b' }).ok).toBe(true);
    expect(canConnect(doc, { source: 'b', handle: 'next', target: 'a' }).ok).toBe(false); // a cycle through e1
    expect(canReconnect(doc, 'e1', { source: 'b', handle: 'next', target: 'a' }).ok).toBe(true);
  });
  it('still refuses what the rules forbid', () => {
    expect(canReconnect(doc, 'e1', { source: 'b', handle: 'next', target: 'start' })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/trigger/),
    });
    expect(canReconnect(doc, 'e0', { source: 'b', handle: 'next', target: 'a' }).ok).toBe(false); // start → a → b → a
    expect(canReconnect(doc, 'nope', { source: 'a', handle: 'next', target: 'b' }).ok).toBe(false);
  });
});

describe('entries that share an id (graph/duplicate-node-id, graph/duplicate-edge-id)', () => {
  const dupEdges = () => documentOf(fixture('invalid/graph-duplicate-edge-id.json'), 0);
  const dupNodes = () => documentOf(fixture('invalid/graph-duplicate-node-id.json'), 0);
  const edgeList = (doc: Obj) => edgesOf(doc).map((e) => `${e.id}:${e.source}->${e.target}`);
  it('gives each its own canvas id, the first keeping the id edges name', () => {
    expect(canvasIds(graphOf(dupEdges()).edges)).toEqual(['e1', 'e2', 'e2#2', 'e4', 'e5', 'e6']);
    expect(canvasIds(graphOf(dupNodes()).nodes)).toEqual(['start', 'tag', 'sms', 'wait', 'replied', 'task', 'task#6']);
    expect(canvasIds([{ id: 'a' }, { id: 'a' }, { id: 'a#1' }, {}])).toEqual(['a', 'a#1#', 'a#1', '#3']);
  });
  it('deletes, moves and reconnects one edge of two sharing an id', () => {
    expect(edgeList(deleteElements(dupEdges(), [], ['e2']))).toEqual([
      'e1:start->tag',
      'e2:sms->wait',
      'e4:wait->replied',
      'e5:replied->task',
      'e6:replied->email',
    ]);
    expect(edgeList(deleteElements(dupEdges(), [], ['e2#2']))).toEqual([
      'e1:start->tag',
      'e2:tag->sms',
      'e4:wait->replied',
      'e5:replied->task',
      'e6:replied->email',
    ]);
    expect(edgeList(reconnect(dupEdges(), 'e2#2', { source: 'sms', handle: 'next', target: 'replied' }).doc)[2]).toBe('e2:sms->replied');
  });
  it('edits, moves, renames and deletes one block of two sharing an id, never the other', () => {
    const doc = dupNodes();
    const [first, second] = nodesOf(doc).slice(5);
    const edited = updateNode(doc, 'task#6', (n) => ({ ...n, config: { template_id: 'x' } }));
    expect(nodesOf(edited)[5]).toBe(first);
    expect(nodesOf(edited)[6]!.config).toEqual({ template_id: 'x' });
    const moved = moveNodes(doc, new Map([['task#6', { x: 5, y: 6 }]]));
    expect(nodesOf(moved)[5]).toBe(first);
    expect(nodesOf(moved)[6]!.position).toEqual({ x: 5, y: 6 });
    expect(nodeAt(doc, 'task#6')).toBe(second);
    // Renaming the second leaves the edges with the first; renaming the first takes them along.
    expect(edgesOf(renameNode(doc, 'task#6', 'email').doc).filter((e) => e.target === 'task')).toHaveLength(2);
    expect(edgesOf(renameNode(doc, 'task', 'call').doc).filter((e) => e.target === 'call')).toHaveLength(2);
    expect(
      nodesOf(renameNode(doc, 'task', 'call').doc)
        .map((n) => n.id)
        .slice(5),
    ).toEqual(['call', 'task']);
    // Deleting the second keeps the first and its edges; deleting the first takes its edges.
    const noSecond = deleteElements(doc, ['task#6']);
    expect(nodesOf(noSecond).slice(5)).toEqual([first]);
    expect(edgesOf(noSecond)).toHaveLength(6);
    const noFirst = deleteElements(doc, ['task']);
    expect(nodesOf(noFirst).slice(5)).toEqual([second]);
    expect(edgesOf(noFirst).map((e) => e.target)).toEqual(['tag', 'sms', 'wait', 'replied']);
    expect(copyNodes(doc, ['task#6']).nodes).toEqual([second]);
  });
});
