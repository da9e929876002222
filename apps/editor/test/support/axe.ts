// axe-core in the page, for the accessibility audit of each view: the rules of WCAG 2.x A and AA
// and axe's best practices, run on the whole document as it is on screen.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  /** Where, as axe's selectors, with its summary of what fails there. */
  nodes: { target: string; summary: string }[];
}

/** Runs axe on the page as it is now: its violations, and how many rules held. */
export async function audit(page: Page): Promise<{ violations: Violation[]; passed: number }> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            o: object,
          ) => Promise<{
            passes: unknown[];
            violations: { id: string; impact: Violation['impact']; help: string; nodes: { target: string[]; failureSummary?: string }[] }[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    const violations = r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300) })),
    }));
    return { violations, passed: r.passes.length };
  });
}

/** The violations as lines a reader of the test output can act on. */
export function describeViolations(view: string, violations: readonly Violation[]): string[] {
  return violations.map(
    (v) =>
      `${view}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes
        .slice(0, 3)
        .map((n) => n.target)
        .join(', ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}: ${v.nodes[0]?.summary ?? ''}`,
  );
}

/** One line per audit: how many rules held and how many violations of each impact. */
export function auditLine(view: string, { violations, passed }: { violations: readonly Violation[]; passed: number }): string {
  const of = (impact: Violation['impact']) => violations.filter((v) => v.impact === impact).length;
  return `axe, ${view}: ${passed} rules hold; violations: ${of('critical')} critical, ${of('serious')} serious, ${of('moderate')} moderate, ${of('minor')} minor`;
}

/** The violations that block: critical and serious. */
export const blocking = (violations: readonly Violation[]) => violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
