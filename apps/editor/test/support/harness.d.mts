import type { Browser } from 'playwright-core';
export const editorRoot: string;
export const repoRoot: string;
export const CHROMIUM_ARGS: string[];
export function buildEditor(outDir?: string): Promise<string>;
export function serveStatic(
  dir: string,
  extra?: Record<string, string | { dir: string }>,
): Promise<{ url: string; close(): Promise<void> }>;
export function launchBrowser(): Promise<Browser>;
export function startEditor(): Promise<{ url: string; browser: Browser; close(): Promise<void> }>;
export function chromiumPath(): string;
export function chromiumMissing(): string | null;
