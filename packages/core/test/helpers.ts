import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../../../fixtures/', import.meta.url));
export const readFixture = (rel: string) => readFileSync(FIXTURES + rel, 'utf8');
export const loadFixture = (rel: string) => JSON.parse(readFixture(rel));
export const listFixtures = (dir: string) =>
  readdirSync(FIXTURES + dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
