// Core benchmark: planning the pack at every limit against workspaces of growing size. Each plan
// matches the pack's items and references against the workspace's objects by name, so the work per
// item must not grow with the workspace: a plan against 40,000 objects in each collection it reads
// should cost about what one against an empty workspace does, plus reading those objects once.
// The pack here also names 2,000 tags by reference (20 per automation), none of them in the pack.
import { plan, requiredCollections } from '../dist/index.js';
import { makeLimitPack } from './limit-pack.mjs';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';

const pack = makeLimitPack();
pack.automations.forEach((a, i) => {
  for (let k = 0; k < 20; k++) a.document.references.push({ type: 'tag', id: `named-${i}-${k}`, name: `Pack tag ${i}-${k}` });
});
const collections = requiredCollections(pack, null);
/** A workspace with `n` objects in each collection the plan reads; every tenth tag has a name the pack's references ask for. */
function workspace(n) {
  const snapshot = { collections: {} };
  for (const c of collections) {
    snapshot.collections[c] =
      c === 'brand'
        ? []
        : Array.from({ length: n }, (_, i) => ({
            id: `${c}_${i}`,
            name:
              c === 'tags' && i % 10 === 0 && i / 10 < 2000 ? `Pack tag ${Math.floor(i / 200)}-${(i / 10) % 20}` : `Workspace ${c} ${i}`,
          }));
  }
  return snapshot;
}
const sizes = [0, 10000, 40000];
const snapshots = sizes.map(workspace);
const runs = Number(process.env.BENCH_RUNS ?? 9);
const cpu = sizes.map(() => []);
for (const s of snapshots) plan(pack, null, s, {}); // warm up
for (let r = 0; r < runs; r++) {
  snapshots.forEach((s, i) => {
    globalThis.gc?.();
    const c = process.cpuUsage();
    const result = plan(pack, null, s, {});
    const d = process.cpuUsage(c);
    if (result.errors.length) throw new Error(`plan errors: ${JSON.stringify(result.errors.slice(0, 2))}`);
    cpu[i].push((d.user + d.system) / 1000);
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = cpu.map(median);
const rows = sizes.map((n, i) => `| ${n.toLocaleString('en-US')} | ${m[i].toFixed(0)} | ${(m[i] / m[0]).toFixed(2)}× |`).join('\n');
const md = `Machine: ${machineLine()}

Collections the plan reads: ${collections.length - 1}. Median CPU time of ${runs} interleaved runs.

| Objects per collection | Median CPU ms | × the empty workspace |
|---:|---:|---:|
${rows}`;
console.log(md);
writeSection('core-plan', md);
