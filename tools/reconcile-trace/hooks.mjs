// Module hooks (node:module register) that load sluice's own sources with a trace call wherever control
// reaches a line of the file: each function's entry (marked: a step on the way down), and each return to it
// from a call, an await or a yield. The reconciler's `reconcile` method runs its body through `globalThis.__sluiceTraceReconcile` when
// that is set, so the tracer can tell one reconcile's work (its async context) from everything else. The
// sources are transpiled by the TypeScript compiler here, so no other loader sees them; files outside `src/`,
// and the excluded rooms, load as usual and are not traced.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const RECONCILER = 'managed/reconciler.ts';
let sourceRoot = '';
let excluded = [];

/** `data`: the file URL of `src/` and the folders under it (`emulator/`) that are not traced. */
export function initialize(data) {
  sourceRoot = data.sourceRoot;
  excluded = data.excluded;
}

export async function load(url, context, nextLoad) {
  const relative = url.startsWith(sourceRoot) ? url.slice(sourceRoot.length) : undefined;
  if (!relative || !relative.endsWith('.ts') || excluded.some((folder) => relative.startsWith(folder))) {
    return nextLoad(url, context);
  }
  const path = fileURLToPath(url);
  const { outputText } = ts.transpileModule(await readFile(path, 'utf8'), {
    fileName: path,
    compilerOptions: {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.ESNext,
      verbatimModuleSyntax: true,
      allowImportingTsExtensions: true,
    },
    transformers: { before: [relative === RECONCILER ? (c) => (f) => traced(c)(rooted(c)(f)) : traced] },
  });
  // Function declarations: hoisted, so any code of the module may call them whatever its order.
  const prologue =
    `function __traceHere(entered, fn) { globalThis.__sluiceTrace?.(${JSON.stringify(`src/${relative}`)}, entered === true, fn); }` +
    ` function __traceBack(value) { __traceHere(false); return value; }\n`;
  return { format: 'module', source: prologue + outputText, shortCircuit: true };
}

/**
 * A call inside an optional chain (`a?.b()`, `a?.b().c`): wrapping it would cut the chain's short-circuit.
 * Any other call's value may be wrapped where it is used (`__traceBack(a()).b`), so its return is recorded.
 */
function inOptionalChain(node) {
  return (node.flags & ts.NodeFlags.OptionalChain) !== 0;
}

/** A function's name as the sequence prints it: `get status`, `constructor`, or where an arrow was assigned. */
function functionName(fn) {
  const named = (node) => (node?.name && ts.isIdentifier(node.name) ? node.name.text : undefined);
  if (ts.isConstructorDeclaration(fn)) return 'constructor';
  const own = named(fn);
  const prefix = ts.isGetAccessor(fn) ? 'get ' : ts.isSetAccessor(fn) ? 'set ' : '';
  if (own) return prefix + own;
  const holder = fn.parent;
  return (
    named(holder) ??
    (holder && ts.isCallExpression(holder)
      ? `(argument of ${holder.expression.getText?.() ?? 'a call'})`
      : '(anonymous)')
  );
}

function traced(context) {
  const f = context.factory;
  // A function's entry is a step on the way down (`__traceHere(true)`); coming back to the file is not.
  const here = (fn) =>
    f.createCallExpression(f.createIdentifier('__traceHere'), undefined, [
      f.createTrue(),
      f.createStringLiteral(functionName(fn)),
    ]);
  const back = (expression) =>
    f.createCallExpression(f.createIdentifier('__traceBack'), undefined, [expression]);
  const visit = (node) => {
    const parent = node.parent;
    const functionBody = parent && ts.isFunctionLike(parent) && parent.body === node;
    const wrapCall =
      (ts.isCallExpression(node) || ts.isNewExpression(node)) &&
      !inOptionalChain(node) &&
      node.expression.kind !== ts.SyntaxKind.SuperKeyword;
    const visited = ts.visitEachChild(node, visit, context);
    if (functionBody && ts.isBlock(visited)) {
      return f.updateBlock(visited, [f.createExpressionStatement(here(parent)), ...visited.statements]);
    }
    // An arrow's expression body: its entry, then the body, itself recorded as a return when it is a call.
    if (functionBody) {
      const body = wrapCall || ts.isAwaitExpression(node) ? back(visited) : visited;
      return f.createParenthesizedExpression(f.createComma(here(parent), body));
    }
    if (ts.isAwaitExpression(node) || ts.isYieldExpression(node)) return back(visited);
    if (wrapCall) return back(visited);
    return visited;
  };
  return (file) => ts.visitNode(file, visit);
}

/**
 * The reconciler's `reconcile`, a method or a field holding a function, run through the tracer's root when it
 * is set: `reconcile = X` → `reconcile = ((run) => (...args) => root?.(() => run(...args)) ?? run(...args))(X)`.
 */
function rooted(context) {
  const f = context.factory;
  const id = (name) => f.createIdentifier(name);
  const arrow = (parameters, body) =>
    f.createArrowFunction(undefined, undefined, parameters, undefined, undefined, body);
  const spread = () => [
    f.createParameterDeclaration(undefined, f.createToken(ts.SyntaxKind.DotDotDotToken), 'args'),
  ];
  const callRun = () => f.createCallExpression(id('run'), undefined, [f.createSpreadElement(id('args'))]);
  const throughRoot = (fn) => {
    const root = f.createPropertyAccessChain(id('globalThis'), undefined, '__sluiceTraceReconcile');
    const rootCall = f.createCallChain(root, f.createToken(ts.SyntaxKind.QuestionDotToken), undefined, [
      arrow([], callRun()),
    ]);
    const wrapper = arrow(
      [f.createParameterDeclaration(undefined, undefined, 'run')],
      arrow(spread(), f.createBinaryExpression(rootCall, ts.SyntaxKind.QuestionQuestionToken, callRun())),
    );
    return f.createCallExpression(f.createParenthesizedExpression(wrapper), undefined, [fn]);
  };
  const named = (node) => node.name && ts.isIdentifier(node.name) && node.name.text === 'reconcile';
  const visit = (node) => {
    if (ts.isPropertyDeclaration(node) && named(node) && node.initializer) {
      return f.updatePropertyDeclaration(
        node,
        node.modifiers,
        node.name,
        node.questionToken ?? node.exclamationToken,
        node.type,
        throughRoot(node.initializer),
      );
    }
    if (ts.isMethodDeclaration(node) && named(node) && node.body) {
      const run = f.createArrowFunction(
        node.modifiers?.filter((m) => m.kind === ts.SyntaxKind.AsyncKeyword),
        undefined,
        node.parameters,
        undefined,
        undefined,
        node.body,
      );
      const body = f.createBlock(
        [
          f.createReturnStatement(
            f.createCallExpression(
              throughRoot(run),
              undefined,
              node.parameters.map((p) => id(p.name.text)),
            ),
          ),
        ],
        true,
      );
      return f.updateMethodDeclaration(
        node,
        node.modifiers,
        node.asteriskToken,
        node.name,
        node.questionToken,
        node.typeParameters,
        node.parameters,
        node.type,
        body,
      );
    }
    return ts.visitEachChild(node, visit, context);
  };
  return (file) => ts.visitNode(file, visit);
}
