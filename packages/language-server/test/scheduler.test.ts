// The validation worker: work for a version the document has moved past is dropped, and a worker
// that dies is replaced without taking the server with it.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyseJob, WorkerReply } from '../src/protocol.js';
import { Scheduler } from '../src/scheduler.js';
import { buildServer, DEMO_PACK, readText } from './client.js';

const WORKER = new URL('../dist/worker.js', import.meta.url);
const demo = readText(DEMO_PACK);
let scheduler: Scheduler | undefined;

beforeAll(() => buildServer(), 120_000);
afterEach(async () => {
  await scheduler?.close();
});

function start(worker = WORKER) {
  const replies: Exclude<WorkerReply, { type: 'ready' }>[] = [];
  const failures: (AnalyseJob | undefined)[] = [];
  let wake = () => {};
  scheduler = new Scheduler(
    worker,
    {},
    {
      reply: (r) => (replies.push(r), wake()),
      failed: (_, job) => (failures.push(job), wake()),
    },
  );
  const until = (done: () => boolean) => new Promise<void>((resolve) => (wake = () => done() && resolve())).then(() => undefined);
  return { scheduler, replies, failures, until };
}

describe('the validation worker', () => {
  it('drops a version the document has moved past, and analyses the latest', async () => {
    const { scheduler, replies, until } = start();
    const slot = scheduler.openSlot();
    const finished = until(() => replies.some((r) => r.type === 'done' && r.version === 3));
    scheduler.schedule({ kind: 'pack', uri: 'file:///a.json', version: 1, text: demo, slot });
    // Versions 2 and 3 come before the worker has started on 1: 1 is dropped unread, 2 never runs.
    scheduler.touch(slot, 2);
    scheduler.schedule({ kind: 'pack', uri: 'file:///a.json', version: 3, text: demo, slot });
    await finished;
    expect(replies.filter((r) => r.type === 'done').map((r) => [r.version, (r as { dropped: boolean }).dropped])).toEqual([
      [1, true],
      [3, false],
    ]);
    expect(new Set(replies.filter((r) => r.type !== 'done').map((r) => r.version))).toEqual(new Set([3]));
  });

  it('starts a new worker when one dies, and goes on with the next job', async () => {
    // A worker that exits at once: each job's worker dies, and the next job gets a new one.
    const { scheduler, replies, failures, until } = start(new URL('data:text/javascript,process.exit(3)'));
    const [a, b] = [scheduler.openSlot(), scheduler.openSlot()];
    const failed = until(() => failures.length === 2);
    scheduler.schedule({ kind: 'pack', uri: 'file:///a.json', version: 1, text: demo, slot: a });
    scheduler.schedule({ kind: 'pack', uri: 'file:///b.json', version: 7, text: demo, slot: b });
    await failed;
    expect(failures.map((j) => [j?.uri, j?.version])).toEqual([
      ['file:///a.json', 1],
      ['file:///b.json', 7],
    ]);
    expect(replies).toEqual([]);
  });
});
