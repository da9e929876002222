// The checks behind docs-style.test.ts, apart so their own test can feed them examples.

/** Longest prose a line may carry: about five lines of a wrapped paragraph. */
export const MAX_PROSE = 400;

// "session 12", "issue #16", "issues 5 and 6", "round 3", "sprint 4": the numbered rounds of work
// a project's history is kept in. The product is described by what it does and why instead.
const ROUND = /\b(sessions?|issues?|rounds?|sprints?|iterations?|milestones?|PR)\s+#?\d+/i;

/** `line: text` of every line that names a numbered round of work. */
export function roundsOfWork(text: string): string[] {
  return text.split('\n').flatMap((line, i) => (ROUND.test(line) ? [`${i + 1}: ${line.trim().slice(0, 160)}`] : []));
}

/**
 * `line: length` of every line whose prose runs past MAX_PROSE characters.
 * Markdown: fenced code blocks are left out (commands and output are copied verbatim, and a
 * reader scrolls them rather than reads them); a table row is measured cell by cell, since a row
 * is one line by the format's rule and only a cell is read at once.
 * Source: only comments are prose; a `//` comment is measured from its slashes, a block comment's
 * lines whole; shell: `#` comment lines. Code lines are left to the formatter.
 */
export function longLines(text: string, kind: 'markdown' | 'source' | 'shell'): string[] {
  const found: string[] = [];
  let fenced = false;
  let inBlockComment = false;
  text.split('\n').forEach((line, i) => {
    let prose: string[] = [];
    const trimmed = line.trim();
    if (kind === 'markdown') {
      if (/^(```|~~~)/.test(trimmed)) fenced = !fenced;
      else if (!fenced) prose = trimmed.startsWith('|') ? line.split(/(?<!\\)\|/) : [line];
    } else if (kind === 'shell') {
      if (trimmed.startsWith('#') && !trimmed.startsWith('#!')) prose = [line];
    } else if (inBlockComment || trimmed.startsWith('/*')) {
      prose = [line];
      inBlockComment = !line.includes('*/');
    } else {
      const slashes = line.search(/(^|\s)\/\/\s/);
      if (slashes >= 0) prose = [line.slice(slashes)];
    }
    const longest = Math.max(0, ...prose.map((p) => p.trim().length));
    if (longest > MAX_PROSE) found.push(`${i + 1}: ${longest} characters`);
  });
  return found;
}

/** `docs/<page>.md, "<section>"` references, the way comments and docs point into a page. */
export function sectionReferences(text: string): { page: string; section: string }[] {
  return [...text.matchAll(/([\w-]+\.md), "([^"\n]+)"/g)].map((m) => ({ page: m[1], section: m[2].replace(/\\'/g, "'") }));
}
