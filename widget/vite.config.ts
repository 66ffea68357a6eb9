import { defineConfig } from 'vite';

/** One ES module with Lit inside: merchants add a single script tag. */
export default defineConfig({
  build: {
    lib: { entry: 'src/renew-checkout.ts', formats: ['es'], fileName: () => 'renew-checkout.js' },
    outDir: 'dist',
    target: 'es2022',
    sourcemap: true,
    // Library mode leaves ES output unminified by default; shoppers download this, so minify it.
    minify: true,
    // No `// <module path>` comment before each module: they cost bytes and would grow with a longer path.
    rolldownOptions: { experimental: { attachDebugInfo: 'none' } },
  },
});
