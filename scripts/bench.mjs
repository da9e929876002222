// `npm run bench`: runs every workspace's own `bench` script in turn, then the packages' sizes; each
// hands its figures to scripts/bench-report.mjs, which writes docs/benchmarks.md whole. Pass a part
// to run just that one and keep the other sections' figures: npm run bench -- core (or cli,
// language-server, workspace-server, installer, editor, packages).
import { spawnSync } from 'node:child_process';
const only = process.argv[2];
const parts = [
  ...['packages/core', 'packages/cli', 'packages/language-server', 'apps/workspace-server', 'packages/installer', 'apps/editor'].map(
    (ws) => ({ name: ws.split('/')[1], command: ['npm', 'run', 'bench', '--if-present', '-w', ws] }),
  ),
  { name: 'packages', command: [process.execPath, 'scripts/bench-packages.mjs'] },
];
if (only && !parts.some((p) => p.name === only)) {
  process.stderr.write(`npm run bench: no part named ${only}; the parts are ${parts.map((p) => p.name).join(', ')}\n`);
  process.exit(2);
}
let failed = 0;
for (const {
  name,
  command: [cmd, ...args],
} of parts) {
  if (only && name !== only) continue;
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
