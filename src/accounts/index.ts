// What other features may use of accounts: services, queries and types. Never routes, jobs or
// commands (feature.ts holds those, for the composition layer alone).

export { createResetLink } from './passwordReset.ts';
export { findUserByEmail, findUserById } from './queries.ts';
export { Email, RegisterBody } from './schemas.ts';
export { normaliseEmail, registerUser } from './service.ts';
export { publicBase, SYSTEM_MAIL_QUEUE, sendSystemMail, systemMailEnabled } from './systemMail.ts';
