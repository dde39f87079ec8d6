// What other features may use of imports (none do yet): the import itself, for code that is not
// the CLI. Commands are in feature.ts, for the composition layer alone.
export { type ImportOptions, importFile } from './importFile.ts';
