// What other features may use of tracking: how a hit is classified (nothing above it needs more).
export { MACHINE_REASONS, type MachineReason, requestReasons } from './classify.ts';
