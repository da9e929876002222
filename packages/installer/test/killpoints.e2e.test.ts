// A real `setup-pack install` process SIGKILLed at many points of its run — before its kth write
// reaches the workspace, or after the workspace made it and before the answer came back — for k
// across the run: its lock, checkpoints, item writes (the brand's PUT among them), the final
// ledger write. Run again, the workspace must equal an uninterrupted install: no duplicates, a
// complete ledger owning what it created, nothing left to plan, and an export equal to the pack.
//
// Each kill point is a test of its own, with the test timeout to itself: a killed process and the
// run after it take seconds on a loaded machine (a process start and a plan), and one test for a
// whole sweep of 18 had a budget the sum could pass (it timed out once at a load average of 15).
// The points come from a clean run made while the file is collected (top-level await).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalize, roundTripForm, type LedgerItem, type Pack } from '@setup-pack/core';
import { exportWorkspace, install, listLedgers, planInstall, type WorkspaceClient } from '../src/index.js';
import { cli, clientFor, duplicateNames, loadPack, proxyTo, startServer } from './harness.js';

const BIN = fileURLToPath(new URL('../../cli/bin/setup-pack.js', import.meta.url));
const listing = loadPack('valid/listing-marketing.json');
const v100 = loadPack('releases/buyer-lead-1.0.0.json');
const v110 = loadPack('releases/buyer-lead-1.1.0.json');
const DIR = mkdtempSync(join(tmpdir(), 'sp-killpoints-'));
const fileOf = (pack: Pack) => {
  const f = join(DIR, `${pack.packId}-${pack.version}.json`);
  writeFileSync(f, JSON.stringify(pack));
  return f;
};

const started = await startServer();
afterAll(() => started.close());
const server = () => started;

/** The writes (method and path) a clean run of `args` makes, in order. */
async function writesOf(args: string[], key: string): Promise<string[]> {
  const seen: string[] = [];
  const proxy = await proxyTo(server().base, (req) => (req.method !== 'GET' && seen.push(`${req.method} ${req.url}`), false));
  try {
    const r = await cli(args, { WORKSPACE_URL: proxy.base, WORKSPACE_API_KEY: key });
    expect(r.code).toBe(0);
  } finally {
    await proxy.close();
  }
  return seen;
}

/**
 * `setup-pack <args>` as a process, SIGKILLed at its kth write: `before` it reaches the
 * workspace, or `after` the workspace made it (its answer never comes back).
 */
async function killedAt(args: string[], key: string, k: number, when: 'before' | 'after') {
  let child: ReturnType<typeof spawn> | undefined;
  let writes = 0;
  let exited: Promise<unknown> = Promise.resolve();
  const proxy = await proxyTo(server().base, async (req, res, body) => {
    if (req.method === 'GET' || ++writes !== k) return false;
    if (when === 'after') {
      const headers: Record<string, string> = {};
      for (const h of ['authorization', 'content-type']) if (req.headers[h]) headers[h] = String(req.headers[h]);
      const up = await fetch(`${server().base}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
      await up.text();
    }
    child?.kill('SIGKILL');
    await exited;
    res.destroy();
    return true;
  });
  try {
    child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, WORKSPACE_URL: proxy.base, WORKSPACE_API_KEY: key, NO_COLOR: '1' },
      stdio: 'ignore',
    });
    exited = new Promise((r) => child!.on('exit', (_code, sig) => r(sig)));
    expect(await exited).toBe('SIGKILL');
    expect(writes).toBeGreaterThanOrEqual(k);
  } finally {
    await proxy.close();
  }
}

/** Which items a ledger holds, and whether it owns each (made it) or adopted it. */
const ownership = (items: Record<string, LedgerItem>) => Object.fromEntries(Object.entries(items).map(([id, i]) => [id, i.owned]));

/**
 * What an uninterrupted run gives: one of each, a complete ledger holding and owning what the
 * clean run's (`clean`) does, nothing to plan, an export equal to the pack.
 */
async function expectAsUninterrupted(c: WorkspaceClient, pack: Pack, prune: boolean, clean: Record<string, boolean>) {
  expect(await duplicateNames(c)).toEqual([]);
  const [record, ...others] = await listLedgers(c);
  expect(others).toEqual([]);
  expect(record.lock).toBeNull();
  expect(record.ledger).toMatchObject({ state: 'installed', version: pack.version, targetVersion: null });
  expect(ownership(record.ledger!.items)).toEqual(clean);
  expect((await planInstall(c, pack, { prune })).plan.hasChanges).toBe(false);
  const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: '2026-11-22T12:00:00Z' });
  const { exportedAt: _at, ...exported } = r.pack;
  expect(canonicalize(exported)).toEqual(roundTripForm(pack));
}

/**
 * The kill points of `args`: the writes (method and path) of a clean run after `setup`, the points
 * `pick` chooses among them, and the ledger's ownership after that clean run.
 */
async function killPoints(args: string[], setup: (c: WorkspaceClient) => Promise<void>, pick: (writes: string[]) => number[]) {
  const probe = await server().workspace();
  await setup(clientFor(server(), probe.key));
  const writes = await writesOf(args, probe.key);
  const clean = ownership((await listLedgers(clientFor(server(), probe.key)))[0].ledger!.items);
  const points = [...new Set(pick(writes))].filter((k) => k >= 1 && k <= writes.length).sort((a, b) => a - b);
  return { writes, clean, points };
}

/**
 * A test per point and moment (before the write reaches the workspace, after it made it): kills
 * `args` there, runs it again (after the dead run's lock expires), and checks the result.
 */
function sweep(
  pack: Pack,
  args: string[],
  prune: boolean,
  setup: (c: WorkspaceClient) => Promise<void>,
  sw: Awaited<ReturnType<typeof killPoints>>,
) {
  it(`sweeps more than 3 of the run's ${sw.writes.length} writes`, () => {
    expect(sw.points.length).toBeGreaterThan(3);
  });
  for (const k of sw.points) {
    for (const when of ['before', 'after'] as const) {
      // The write as a test name: the probe workspace's object ids (`pip_…`) as `{id}`, so names stay the same from run to run.
      it(`killed ${when} write ${k} of ${sw.writes.length} (${sw.writes[k - 1].replace(/\/[a-z]+_[0-9a-f]+(?=\/|$)/g, '/{id}')})`, async () => {
        const ws = await server().workspace();
        const c = clientFor(server(), ws.key);
        await setup(c);
        await killedAt([...args, '--lock-ttl', '5'], ws.key, k, when);
        server().clock.advance(6_000); // the dead run's lock expires
        const again = await cli(args, { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key });
        expect(again.stderr).toBe('');
        expect(again.code).toBe(0);
        await expectAsUninterrupted(c, pack, prune, sw.clean);
      });
    }
  }
}

/** Points across a run: every checkpoint and lock write, the brand's, the first, middle and last item writes. */
const across = (writes: string[]) => {
  const items = writes.flatMap((w, i) => (w.includes('/v1/install-ledgers/') ? [] : [i + 1]));
  const ledger = writes.flatMap((w, i) => (w.includes('/v1/install-ledgers/') ? [i + 1] : []));
  return [
    ...ledger,
    ...writes.flatMap((w, i) => (w === 'PUT /v1/brand' ? [i + 1] : [])),
    items[0],
    items[1],
    items[Math.floor(items.length / 2)],
    items.at(-1)!,
  ];
};

const installArgs = ['install', fileOf(listing)];
const none = async () => {};
const installPoints = await killPoints(installArgs, none, across);

describe('an install killed at its kth write, for k across the run, then run again, equals an uninterrupted install (listing pack: resources, pipeline, media, templates, brand, lists, automations)', () => {
  sweep(listing, installArgs, false, none, installPoints);
});

const upgradeArgs = ['install', fileOf(v110), '--prune'];
const from100 = async (c: WorkspaceClient) => void (await install(c, v100));
// Its item writes (the ledger's own were swept above): the first, the middle, the last, and the final ledger write.
const itemsAndEnd = (writes: string[]) => [
  ...across(writes).filter((k) => !writes[k - 1].includes('/v1/install-ledgers/')),
  writes.findLastIndex((w) => w.startsWith('PUT /v1/install-ledgers/')) + 1,
];
const upgradePoints = await killPoints(upgradeArgs, from100, itemsAndEnd);

describe('an upgrade with --prune killed at its kth write, then run again, equals an uninterrupted upgrade (creates, updates, removals)', () => {
  sweep(v110, upgradeArgs, true, from100, upgradePoints);
});
