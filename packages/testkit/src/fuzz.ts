// How property suites read their run count and seed: FUZZ_RUNS (a bounded default inside
// `npm test`; `npm run fuzz` sets 10,000) and FUZZ_SEED (random when unset). The seed is printed,
// so a failure replays with FUZZ_SEED=<seed> npm run fuzz (docs/testing.md).
export function fuzzConfig(name: string, defaultRuns: number): { numRuns: number; seed: number; timeoutMs: (perRunMs: number) => number } {
  const numRuns = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : defaultRuns;
  if (!Number.isInteger(numRuns) || numRuns < 1) throw new Error(`FUZZ_RUNS must be a positive integer, got "${process.env.FUZZ_RUNS}"`);
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got "${process.env.FUZZ_SEED}"`);
  console.log(`fuzz seed ${seed} (${name}, ${numRuns} runs): replay with FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns} npm run fuzz`);
  return { numRuns, seed, timeoutMs: (perRunMs) => 60_000 + numRuns * perRunMs };
}
