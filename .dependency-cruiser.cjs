// The import rules of the layers (docs/architecture/layers.md), checked by `npm run lint`
// (test/lint/checkImports.ts runs dependency-cruiser with this configuration).
//
//   bin/ → src/app/ (composition) → features → platform kits → ground (config.ts, log.ts, version.ts)
//
// Features may use one another only downwards in FEATURE_ORDER, and only through index.ts; kits
// one another only downwards in KIT_ORDER.

/** Features, top to bottom: each may import (the index.ts of) those after it, never those before. */
const FEATURE_ORDER = [
  'webhooks',
  'imports',
  'push',
  'forms',
  'publicEvents',
  'tracking',
  'telegram',
  'events',
  'scoring',
  'campaigns',
  'feedback',
  'messages',
  'segments',
  'contacts',
  'publicKeys',
  'apiKeys',
  'workspaces',
  'accounts',
  'channels',
  'health',
  'audit',
];
/**
 * Platform kits, top to bottom: they know no feature, and each may import only those after it.
 * feature (the Feature type: what a feature brings, naming the types of the kits below) is at the
 * top; core (the AppContext type and the error family) is at the bottom: web, worker and CLI all use it.
 */
const KIT_ORDER = [
  'feature',
  'cli',
  'console',
  'templates',
  'http',
  'jobs',
  'outbox',
  'secrets',
  'db',
  'net',
  'threads',
  'core',
];
const GROUND = '^src/((config|log|version)\\.ts$|config/)';

const any = (names) => `^src/(${names.join('|')})/`;
const FEATURE = any(FEATURE_ORDER);
/** What only the web process needs: a feature's routes, pages and console pages, its whole. */
const WEB_ONLY = '^src/[^/]+/(feature|routes|consolePages|pages)\\.ts$';

/** One rule per feature or kit: it may not import the ones listed before it in its order. */
const orderRules = (kind, order, list) =>
  order.slice(1).map((name, index) => ({
    name: `${kind}-order-${name}`,
    comment: `${name} sits below ${order.slice(0, index + 1).join(', ')} and may not import them (${list} in .dependency-cruiser.cjs).`,
    severity: 'error',
    from: { path: `^src/${name}/` },
    to: { path: any(order.slice(0, index + 1)) },
  }));

module.exports = {
  // Read by test/app/features.unit.test.ts: the composition's list of features follows FEATURE_ORDER.
  FEATURE_ORDER,
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'Import circles, type-only imports included: a type that closes a circle lives in the wrong module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kit-imports-feature-or-composition',
      comment: 'Platform kits (KIT_ORDER) know no feature: what they need is handed in.',
      severity: 'error',
      from: { path: any(KIT_ORDER) },
      to: { path: [FEATURE, '^src/app/'] },
    },
    {
      name: 'ground-imports-above',
      comment: 'config.ts, log.ts and version.ts import nothing of the service but one another.',
      severity: 'error',
      from: { path: GROUND },
      to: { path: '^src/', pathNot: GROUND },
    },
    {
      name: 'feature-imports-composition',
      comment:
        'Features hand their routes, jobs and commands to src/app/ (feature.ts); they never import it.',
      severity: 'error',
      from: { path: FEATURE },
      to: { path: '^src/app/' },
    },
    {
      name: 'feature-internals',
      comment: 'Another feature is used only through its index.ts.',
      severity: 'error',
      from: { path: FEATURE },
      to: { path: FEATURE, pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'feature-module-outside-composition',
      comment: "A feature's feature.ts (routes, jobs, commands) is for the composition layer alone.",
      severity: 'error',
      from: { pathNot: '^src/app/' },
      to: { path: '^src/[^/]+/feature\\.ts$' },
    },
    {
      name: 'background-module-outside-composition',
      comment:
        "A feature's background.ts (what every process needs of it) is for the composition layer and its own feature.ts alone.",
      severity: 'error',
      from: { pathNot: ['^src/app/', '^src/[^/]+/feature\\.ts$'] },
      to: { path: '^src/[^/]+/background\\.ts$' },
    },
    {
      name: 'background-reaches-web',
      comment:
        "A feature's background.ts is what the worker loads: it must not reach a feature's routes, pages or console pages (src/app/features.ts).",
      severity: 'error',
      from: { path: '^src/[^/]+/background\\.ts$' },
      to: { path: WEB_ONLY, reachable: true },
    },
    {
      name: 'composition-uses-feature-internals',
      comment:
        'The composition layer takes a feature through its feature.ts, background.ts or index.ts, or its commands.ts alone (src/app/featureProgram.ts: a CLI command that loads no routes or pages).',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: FEATURE, pathNot: '^src/[^/]+/(feature|background|index|commands)\\.ts$' },
    },
    {
      name: 'entry-points-only-call-composition',
      comment: 'bin/ holds entry points: each calls one function of src/app/.',
      severity: 'error',
      from: { path: '^bin/' },
      to: { path: '^src/', pathNot: '^src/app/' },
    },
    {
      name: 'src-imports-bench-or-test',
      comment: 'The service never imports its benchmarks or tests.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(bench|test)/' },
    },
    ...orderRules('feature', FEATURE_ORDER, 'FEATURE_ORDER'),
    ...orderRules('kit', KIT_ORDER, 'KIT_ORDER'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    // Type-only imports count: they tie modules together as much as value imports.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // TypeScript's own parser (5.9, handed in by test/lint/checkImports.ts).
    parser: 'tsc',
  },
};
