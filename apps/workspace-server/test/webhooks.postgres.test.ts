import { describe } from 'vitest';
import { TEST_DATABASE_URL } from './harness.js';
import { defineWebhookSuite } from './webhooks.js';

describe.skipIf(!TEST_DATABASE_URL)('webhooks on PostgreSQL (needs TEST_DATABASE_URL)', () => defineWebhookSuite('postgres'));
