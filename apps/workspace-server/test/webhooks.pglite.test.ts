import { describe } from 'vitest';
import { defineWebhookSuite } from './webhooks.js';

describe('webhooks on PGlite', () => defineWebhookSuite('pglite'));
