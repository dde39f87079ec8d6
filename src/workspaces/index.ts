// What other features may use of workspaces: services, queries and types. Never routes, jobs or
// commands (feature.ts holds those, for the composition layer alone).
export { inWorkspace } from './inWorkspace.ts';
export { findWorkspaceById, listWorkspacesOfUser } from './queries.ts';
export { requireWorkspace } from './service.ts';
