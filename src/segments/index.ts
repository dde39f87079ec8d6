// What other features may use of segments: services, queries and types. Never routes, jobs or
// commands (feature.ts holds those, for the composition layer alone).
export { UNIT_ISO, WINDOW_UNITS, type WindowUnit, windowOf } from './builderForm.ts';
export { listSegmentNames } from './consoleQueries.ts';
export { describeRule } from './describe.ts';
export { durationSeconds, IsoDuration } from './duration.ts';
export {
  reevaluateSegments,
  reevaluateSegmentsAndEnroll,
  reevaluateSegmentsForContacts,
  type SegmentChange,
} from './evaluate.ts';
export { segmentVersion } from './queries.ts';
export { safeText } from './ruleSchemas.ts';
export {
  compileMetadataConditions,
  compileSegmentRules,
  contactEventsOfType,
  type MetadataCondition,
  MetadataConditions,
  matchesMetadataConditions,
  type Rule,
  SegmentRules,
  scoreMoveMatters,
} from './rules.ts';
