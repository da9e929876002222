// `npm run docs`: regenerates docs/rules.md, docs/catalog.md and docs/behaviour.md from core (after a build).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderRulesMarkdown, renderCatalogMarkdown, renderBehaviourMarkdown, ruleExamples } from '../packages/core/dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'fixtures/invalid');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
writeFileSync(join(root, 'docs/rules.md'), renderRulesMarkdown(ruleExamples(files)));
writeFileSync(join(root, 'docs/catalog.md'), renderCatalogMarkdown());
writeFileSync(join(root, 'docs/behaviour.md'), renderBehaviourMarkdown());
