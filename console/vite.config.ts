import { defineConfig } from 'vite';

/** The console is served by billing-service at /console (see billing-service/src/console/static.ts). */
export default defineConfig({
  base: '/console/',
  build: {
    outDir: 'dist',
    target: 'es2022',
    sourcemap: true,
    // No inline module-preload polyfill: the page's CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
  },
});
