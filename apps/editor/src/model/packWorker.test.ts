// The worker side of the plan preview and the Simulate panel: it keeps the pack it was patched to
// and the last input it was given, and answers every message under its sequence number.
import { afterEach, describe, expect, it } from 'vitest';
import { servePackWork } from './packWorker.js';
import { diffForWorker } from './patch.js';
import type { PackValue } from './pack.js';

const scope = globalThis as unknown as { self?: { postMessage: (m: unknown) => void; onmessage?: (e: { data: unknown }) => void } };
afterEach(() => delete scope.self);

describe('servePackWork', () => {
  it('answers each edit from the patched pack and the input it kept, under the sequence number sent', () => {
    const posted: unknown[] = [];
    scope.self = { postMessage: (m) => posted.push(m) };
    servePackWork<string, string>((pack, input) => `${pack.name}: ${(pack.automations ?? []).length} automations, ${input}`);
    const one = { name: 'One', automations: [] } as unknown as PackValue;
    const two = { ...one, name: 'Two', automations: [{ key: 'a' }] } as unknown as PackValue;
    scope.self.onmessage!({ data: { seq: 1, patch: diffForWorker(undefined, one) } }); // no input yet: nothing to answer
    scope.self.onmessage!({ data: { seq: 2, input: 'prune off' } });
    scope.self.onmessage!({ data: { seq: 3, patch: diffForWorker(one, two) } });
    scope.self.onmessage!({ data: { seq: 4, input: 'prune on' } });
    expect(posted).toEqual([
      { seq: 2, answer: 'One: 0 automations, prune off' },
      { seq: 3, answer: 'Two: 1 automations, prune off' },
      { seq: 4, answer: 'Two: 1 automations, prune on' },
    ]);
  });
});
