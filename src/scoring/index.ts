// What other features may use of scoring: services, queries and types. Never routes, jobs or
// commands (feature.ts holds those, for the composition layer alone).
export {
  emitScoreChanges,
  type RecordedChange,
  SCORE_LIMIT,
  type ScoredEvent,
  scoreEvents,
  scoreRows,
} from './apply.ts';
export { ActiveRuleRow, RuleHistoryRow, scoreWrites } from './applyQueries.ts';
