// The first hour: the demo workspace `serve --seed demo` makes holds what the demo packs name, so
// their first plan and install go through, with the installer and with `setup-pack plan`.
import { describe, expect, it } from 'vitest';
import { seedDemo } from '@setup-pack/workspace-server';
import { install, planInstall, readLedger } from '../src/index.js';
import { cli, clientFor, loadPack, useServer } from './harness.js';

const server = useServer();

describe('the demo workspace and the demo packs', () => {
  it('plans and installs both valid demo packs with no binding given', async () => {
    const { secret: key } = (await seedDemo(server().store.db, server().clock, `demo-${Date.now().toString(36)}`)).key;
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: key };
    const plan = await cli(['plan', 'valid/buyer-lead-starter.json'], env);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/user usr_8841 "Jordan Lee" → mem_\w+/);
    const c = clientFor(server(), key);
    for (const rel of ['valid/buyer-lead-starter.json', 'valid/listing-marketing.json']) {
      const pack = loadPack(rel);
      expect((await planInstall(c, pack)).plan.errors).toEqual([]);
      await install(c, pack);
      expect((await readLedger(c, pack.packId))!.ledger.state).toBe('installed');
    }
  });
});
