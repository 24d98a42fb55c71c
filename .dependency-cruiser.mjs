/**
 * The import rules of src/ (`npm run lint` checks them): no cycle between files or between folders, type-only
 * imports included; the kind-agnostic rooms stand in layers, base → kube → managed → runtime (and base → cloud),
 * none reaching up into a later one, the kinds, the composition root, the commands or the operator; the kind contract is
 * reached through its public face, src/managed/index.ts; and only the reconciler reaches the status draft.
 */
const KIND_AGNOSTIC = '^src/(base|kube|managed|runtime|cloud)/';
/** The kinds, the commands and the wiring: what the kind-agnostic rooms are given, never what they import. */
const ABOVE =
  '^src/(kinds|cloud-access|composition|operator|plan|export|install|command-line|emulator)/|^src/cli\\.ts$';

export default {
  forbidden: [
    {
      name: 'no-file-cycles',
      comment: 'A cycle between files, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'A cycle between folders: two layers that each need the other are one layer, or misplaced code.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'only-the-executor-writes-status',
      comment:
        "The status draft is the executor's alone to write (the reconciler starts each one): the other steps of a reconcile return what status gets (a StatusChange, an effect), so they never reach the draft.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/managed/(reconciler|executor|status-draft)\\.ts$' },
      to: { path: '^src/managed/status-draft\\.ts$' },
    },
    {
      name: 'no-upward-imports',
      comment:
        'base, kube, managed, runtime and cloud know nothing of the kinds, the commands or the operator; they are given what they need.',
      severity: 'error',
      from: { path: KIND_AGNOSTIC },
      to: { path: ABOVE },
    },
    {
      name: 'base-is-the-floor',
      comment: 'src/base is the vocabulary every room shares: it imports no other room.',
      severity: 'error',
      from: { path: '^src/base/' },
      to: { path: '^src/', pathNot: '^src/(base/|clock\\.ts$)' },
    },
    {
      name: 'kube-stands-on-base',
      comment: 'src/kube talks to the kube-apiserver with the shared vocabulary alone.',
      severity: 'error',
      from: { path: '^src/kube/' },
      to: { path: '^src/', pathNot: '^src/(base|kube)/|^src/clock\\.ts$' },
    },
    {
      name: 'managed-stands-on-kube',
      comment:
        'The managed reconciler is run by the engine (src/runtime), never the other way round, and knows no cloud.',
      severity: 'error',
      from: { path: '^src/managed/' },
      to: { path: '^src/', pathNot: '^src/(base|kube|managed)/|^src/clock\\.ts$' },
    },
    {
      name: 'runtime-stands-on-managed',
      comment:
        "The engine runs reconcilers with what the rooms beneath give it; the cloud is the kinds' business.",
      severity: 'error',
      from: { path: '^src/runtime/' },
      to: { path: '^src/', pathNot: '^src/(base|kube|managed|runtime)/|^src/clock\\.ts$' },
    },
    {
      name: 'cloud-stands-on-base',
      comment: 'The cloud clients share the vocabulary in src/base, nothing of the Kubernetes side.',
      severity: 'error',
      from: { path: '^src/cloud/' },
      to: { path: '^src/', pathNot: '^src/(base|cloud)/|^src/clock\\.ts$' },
    },
    {
      name: 'cloud-access-below-the-commands',
      comment:
        'src/cloud-access turns credentials into clients for every command: it knows no command, no wiring and no kind.',
      severity: 'error',
      from: { path: '^src/cloud-access/' },
      to: { path: '^src/(operator|plan|export|kinds|install|command-line|emulator)/|^src/cli\\.ts$' },
    },
    {
      name: 'command-line-below-the-commands',
      comment:
        "src/command-line is what the commands share (flag parsing, sluice run's flag definitions, the running operator's settings): it knows no command's wiring and no kind.",
      severity: 'error',
      from: { path: '^src/command-line/' },
      to: { path: '^src/(operator|plan|export|kinds|install|uninstall|emulator)/|^src/cli\\.ts$' },
    },
    {
      name: 'composition-below-the-commands',
      comment:
        'src/composition builds the operator and its reconcilers, live or dry, for every command that runs one: it knows no command.',
      severity: 'error',
      from: { path: '^src/composition/' },
      to: { path: '^src/(operator|plan|export|install|uninstall|emulator)/|^src/cli\\.ts$' },
    },
    {
      name: 'commands-not-through-the-operator',
      comment:
        "sluice plan and sluice export share the operator's reconciler, cloud access and flag definitions through the rooms beneath (src/composition, src/cloud-access, src/command-line), never the process that runs it.",
      severity: 'error',
      from: { path: '^src/(plan|export)/' },
      to: { path: '^src/operator/' },
    },
    {
      name: 'shared-below-kinds',
      comment:
        'What the kinds share (src/kinds/shared: schema helpers, the CRD writer, SluiceKind, cloud-call helpers) serves every kind and names none of them.',
      severity: 'error',
      from: { path: '^src/kinds/shared/' },
      to: { path: '^src/kinds/', pathNot: '^src/kinds/shared/' },
    },
    {
      name: 'kinds-stand-alone',
      comment:
        "A kind uses another's schema (a reference names the kind it points at) or pure mapping, never its controller.",
      severity: 'error',
      from: { path: '^src/kinds/([^/]+)/' },
      to: { path: '^src/kinds/[^/]+/controller\\.ts$', pathNot: '^src/kinds/$1/' },
    },
    {
      name: 'controllers-load-on-demand',
      comment:
        "A kind's controller and export step are loaded by its descriptor (kind.ts) when they run, never imported: what reads the registry (npm run generate) loads no cloud client.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/kinds/[^/]+/kind\\.ts$' },
      to: { path: '^src/kinds/[^/]+/(controller|export)\\.ts$' },
    },
    {
      name: 'kind-contract-through-its-index',
      comment:
        "Outside src/managed and the engine that runs it (src/runtime), the kind contract is used through src/managed/index.ts: what it does not export is the reconciler's own business.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(managed|runtime)/' },
      to: { path: '^src/managed/', pathNot: '^src/managed/index\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(?!src/)' },
  },
};
