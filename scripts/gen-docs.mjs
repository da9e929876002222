// `npm run docs`: regenerates docs/rules.md and docs/catalog.md from core (after a build).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderRulesMarkdown, renderCatalogMarkdown, ruleExamples } from '../packages/core/dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'fixtures/invalid');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
writeFileSync(join(root, 'docs/rules.md'), renderRulesMarkdown(ruleExamples(files)));
writeFileSync(join(root, 'docs/catalog.md'), renderCatalogMarkdown());
