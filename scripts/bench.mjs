// `npm run bench`: runs every workspace's own `bench` script in turn (each records its section
// of docs/benchmarks.md). Pass a workspace name to run just one: npm run bench -- core
import { spawnSync } from 'node:child_process';
const only = process.argv[2];
const workspaces = ['packages/core', 'packages/cli', 'packages/language-server', 'apps/workspace-server', 'packages/installer', 'apps/editor'];
let failed = 0;
for (const ws of workspaces) {
  if (only && !ws.endsWith(only)) continue;
  const r = spawnSync('npm', ['run', 'bench', '--if-present', '-w', ws], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
