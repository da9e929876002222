// The editor's static build, served by the server beside the API.
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The editor's build this package ships (`npm pack` writes it to <package>/editor via
 * scripts/bundle-editor.mjs), or undefined in a checkout where it was never built.
 */
export function bundledEditorDir(): string | undefined {
  // The installed package ships the build beside dist/ (this file is dist/app/editor.js); in a
  // checkout, the editor's own build (npm run build -w apps/editor) is served when it has been made.
  for (const rel of ['../../editor/', '../../../editor/dist/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return undefined;
}

/** The folder of the editor's build, or an error saying what is missing. */
export function editorRoot(dir: string): string {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html')))
    throw new Error(`--editor ${dir}: no index.html there (build the editor with npm run build -w apps/editor)`);
  return root;
}

/**
 * The editor's static build under /editor/ (serve --editor DIR). Its routes need no key and stay
 * out of the OpenAPI document; /editor redirects to /editor/ so the build's relative paths resolve.
 */
export async function registerEditor(app: FastifyInstance, dir: string): Promise<void> {
  const root = editorRoot(dir);
  app.get('/editor', { config: { auth: 'none' }, schema: { hide: true } as never }, async (_req, reply) => reply.redirect('/editor/'));
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), auth: 'none' } as never;
      route.schema = { ...route.schema, hide: true } as never;
    });
    await scope.register(fastifyStatic, { root, prefix: '/editor/' });
  });
}
