// What other features may use of telegram: the texts its bot answers with. It sits above events
// (it ingests `telegram.message_received`), so only the composition layer is above it.
export { REPLIES as TELEGRAM_REPLIES } from './process.ts';
