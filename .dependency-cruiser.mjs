/**
 * The import rules of src/ (`npm run lint` checks them): no cycle between files or between folders, type-only
 * imports included, and the kind-agnostic layers (runtime, cloud) never reach up into the kinds (src/kinds and
 * their shared pieces in api and controllers) or the operator's wiring.
 */
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
      name: 'no-upward-imports',
      comment: 'runtime and cloud know nothing of the kinds or the operator; they are given what they need.',
      severity: 'error',
      from: { path: '^src/(runtime|cloud)/' },
      to: { path: '^src/(api|controllers|kinds|operator)/' },
    },
    {
      name: 'shared-below-kinds',
      comment: 'What the kinds share (api, controllers) serves every kind and names none of them.',
      severity: 'error',
      from: { path: '^src/(api|controllers)/' },
      to: { path: '^src/kinds/' },
    },
    {
      name: 'kinds-stand-alone',
      comment:
        "A kind uses another's schema (a reference names the kind it points at) or pure mapping, never its controller.",
      severity: 'error',
      from: { path: '^src/kinds/([^/]+)/' },
      to: { path: '^src/kinds/[^/]+/controller\\.ts$', pathNot: '^src/kinds/$1/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(?!src/)' },
  },
};
