// The entry is one bundle; only dynamic imports (ECharts GL for the 3-D
// load-imbalance view) become chunks of their own, loaded when first used.
// The server embeds every file of the build; relative asset paths keep the
// page working under any host and port.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const EVAL = "new Function('width', 'height', 'dpr', 'return ' + exprRes[1])";
const evaluator = fileURLToPath(new URL('./src/compositor_expressions.js', import.meta.url));

/** claygl's compositor evaluates size expressions with new Function, which the CSP forbids. */
function compositorWithoutEval() {
  return {
    name: 'orrery-compositor-without-eval',
    transform(code, id) {
      if (!id.replace(/\\/g, '/').endsWith('claygl/src/createCompositor.js')) return null;
      if (!code.includes(EVAL)) throw new Error('claygl changed: createCompositor.js no longer evaluates as expected');
      return `import { compositorExpression } from ${JSON.stringify(evaluator)};\n`
        + code.replace(EVAL, 'compositorExpression(exprRes[1])');
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [compositorWithoutEval()],
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    reportCompressedSize: false,
  },
});
