// ECharts GL's post-processing graph (claygl's compositor) sizes its buffers
// with expressions such as "expr(width * dpr / 4)" or "expr([width / 2, height / 2])",
// which claygl turns into code with `new Function`. The viewer's
// Content-Security-Policy forbids evaluating strings, so vite.config.js
// routes them here: the same expressions (products and quotients of numbers
// and width, height, dpr, alone or as a pair) evaluated without eval.

const TOKEN = /\s*(\d+(?:\.\d+)?|width|height|dpr|[*/,[\]])/y;

function tokens(text) {
  const list = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) {
      if (/^\s*$/.test(text.slice(at))) break;
      throw new Error(`unsupported compositor expression: ${text}`);
    }
    list.push(match[1]);
  }
  return list;
}

/** (width, height, dpr) => the value of one product, from tokens[from..to). */
function product(list) {
  if (list.length === 0 || list.length % 2 === 0) throw new Error(`bad compositor product: ${list.join(' ')}`);
  const factor = (t) => {
    if (t === 'width') return (s) => s.width;
    if (t === 'height') return (s) => s.height;
    if (t === 'dpr') return (s) => s.dpr;
    if (/^\d/.test(t)) return () => Number(t);
    throw new Error(`bad compositor factor: ${t}`);
  };
  const first = factor(list[0]);
  const steps = [];
  for (let i = 1; i < list.length; i += 2) {
    if (list[i] !== '*' && list[i] !== '/') throw new Error(`bad compositor operator: ${list[i]}`);
    steps.push([list[i], factor(list[i + 1])]);
  }
  return (s) => steps.reduce((v, [op, f]) => (op === '*' ? v * f(s) : v / f(s)), first(s));
}

/** The function claygl expects for "expr(<text>)": (width, height, dpr) => number or [number, number]. */
export function compositorExpression(text) {
  const list = tokens(text);
  if (list[0] === '[') {
    const comma = list.indexOf(',');
    if (list[list.length - 1] !== ']' || comma < 0) throw new Error(`bad compositor pair: ${text}`);
    const a = product(list.slice(1, comma));
    const b = product(list.slice(comma + 1, -1));
    return (width, height, dpr) => [a({ width, height, dpr }), b({ width, height, dpr })];
  }
  const p = product(list);
  return (width, height, dpr) => p({ width, height, dpr });
}
