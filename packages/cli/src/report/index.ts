// Picks and runs a reporter for --format. Every reporter yields chunks (see stream.ts).
import type { Colors } from '../lib/color.js';
import type { FileReport, ReportOptions } from './model.js';

export const FORMATS = ['pretty', 'json', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** --format, else github on GitHub Actions, else pretty. */
export function chooseFormat(flag: unknown, env: NodeJS.ProcessEnv): Format {
  if (typeof flag === 'string') return flag as Format;
  return env.GITHUB_ACTIONS === 'true' ? 'github' : 'pretty';
}

export async function render(
  format: Format,
  reports: readonly (FileReport & { value?: unknown })[],
  options: ReportOptions,
  colors: Colors,
): Promise<Iterable<string>> {
  switch (format) {
    case 'json':
      return (await import('./json.js')).jsonReportChunks(reports, options);
    case 'sarif':
      return (await import('./sarif.js')).sarifChunks(reports, options);
    case 'github':
      return (await import('./github.js')).githubChunks(reports, options);
    default:
      return (await import('./pretty.js')).prettyChunks(reports, options, colors);
  }
}
