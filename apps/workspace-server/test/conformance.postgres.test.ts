import { describe } from 'vitest';
import { defineConformance } from './conformance.js';
import { TEST_DATABASE_URL } from './harness.js';

// CI always sets TEST_DATABASE_URL (.ci/run starts PostgreSQL); without it there is no server to test.
describe.skipIf(!TEST_DATABASE_URL)('conformance on PostgreSQL (needs TEST_DATABASE_URL)', () => defineConformance('postgres'));
