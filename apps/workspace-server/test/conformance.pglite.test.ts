import { describe } from 'vitest';
import { defineConformance } from './conformance.js';

describe('conformance on PGlite', () => defineConformance('pglite'));
