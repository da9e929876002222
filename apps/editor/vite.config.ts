import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// Core is consumed from source, so the editor needs no build step of its own packages.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: {
    alias: {
      '@setup-pack/core': fileURLToPath(new URL('../../packages/core/src/index.ts', import.meta.url)),
      '@setup-pack/installer': fileURLToPath(new URL('../../packages/installer/src/index.ts', import.meta.url)),
    },
  },
  // Relative asset paths, so the build works wherever it is served (workspace-server serve --editor at /editor/).
  base: './',
  worker: { format: 'es' },
  build: { chunkSizeWarningLimit: 2000 },
});
