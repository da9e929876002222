// docs/rules.md and docs/catalog.md are generated from the code; they must be up to date.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderBehaviourMarkdown, renderCatalogMarkdown, renderRulesMarkdown, ruleExamples, RULE_METADATA } from '@setup-pack/core';
import { FIXTURES, listFixtures, readFixture } from './helpers.js';

const docs = (name: string) => readFileSync(`${FIXTURES}../docs/${name}`, 'utf8');

describe('generated docs', () => {
  it('docs/rules.md has one entry per code, with its failing example (run `npm run docs` if this fails)', () => {
    const examples = ruleExamples(listFixtures('invalid').map((file) => ({ file, text: readFixture(`invalid/${file}`) })));
    const text = renderRulesMarkdown(examples);
    for (const m of RULE_METADATA) expect(text).toContain(`## ${m.code}`);
    expect(docs('rules.md')).toBe(text);
  });

  it('docs/behaviour.md matches the effects model (run `npm run docs` if this fails)', () => {
    expect(docs('behaviour.md')).toBe(renderBehaviourMarkdown());
  });

  it('docs/catalog.md matches the catalog (run `npm run docs` if this fails)', () => {
    expect(docs('catalog.md')).toBe(renderCatalogMarkdown());
  });
});
