// What a feature brings to the service, as one value: each feature's feature.ts exports
// `feature: Feature`, its background.ts the part every process needs (`background:
// FeatureBackground`, spread into the whole), and the composition layer (src/app/features.ts)
// reads one ordered list of them. Every field is optional: a feature declares only what it has.
// This kit sits at the top of KIT_ORDER because the value names the types of the kits below it
// (routes, jobs, retention rules, secret stores); it knows no feature. What a new kind of contribution needs (a feature's console
// pages, say) is one more optional field here, typed by its kit, and one loop in src/app/.
import type { Command } from 'commander';
import type { Express, Router } from 'express';
import type { Config } from '../config.ts';
import type { ConsolePages } from '../console/index.ts';
import type { ApiKeyLookup, AppContext, FeatureEffects } from '../core/context.ts';
import type { CounterTable } from '../db/counters.ts';
import type { Db } from '../db/pool.ts';
import type { RetentionRule } from '../db/retention.ts';
import type { RouteDefinition } from '../http/route.ts';
import type { JobDefinition, WorkerService } from '../jobs/definition.ts';
import type { SecretStore } from '../secrets/index.ts';

/**
 * Retention that is not a batched DELETE by a rule (events drop whole monthly partitions). It
 * answers how many rows went (or, with `dryRun`, would go); null when the operator set no limit.
 */
export type Pruner = {
  table: string;
  rule: string;
  prune: (db: Db, config: Config, dryRun: boolean) => Promise<number | null>;
};

/** Undoes what a feature set up for a context (its queue registration, its pooled connections). */
export type Release = () => void | Promise<void>;

/**
 * What a feature brings to every process, the worker's above all: its jobs and long-running
 * loops, its retention, what it does for features below it, and what it sets up in a context. A
 * feature's background.ts exports it, and src/app/features.ts lists them in order: the worker loads
 * these and not the features' routes, pages and console sections. Its modules must not reach the
 * feature's routes or pages (the lint's `background-reaches-web`).
 */
export type FeatureBackground = {
  /** The feature's folder under src/, as FEATURE_ORDER (.dependency-cruiser.cjs) spells it. */
  name: string;
  /** The worker's queues, each with its handler (and schedule). */
  // biome-ignore lint/suspicious/noExplicitAny: each job types its own payload
  jobs?: (config: Config) => readonly JobDefinition<any>[];
  /** Long-running loops the worker starts beside its jobs (the webhook dispatcher). */
  workerServices?: readonly WorkerService[];
  /** Which rows of its growing tables may go (`switchboard prune` and RETENTION_CRON). */
  retention?: readonly RetentionRule[];
  pruners?: readonly Pruner[];
  /** Its counter tables with a row per key and database backend, folded by the worker (src/db/counters.ts). */
  counters?: readonly CounterTable[];
  /** Its tables of sealed secrets (`switchboard secrets rotate-key`). */
  secretStores?: readonly SecretStore[];
  /**
   * What it does for features below it, which may not import it (src/core/context.ts,
   * FeatureEffects): each key is provided by exactly one feature, and every context carries them.
   */
  effects?: Partial<FeatureEffects>;
  /** How authentication finds an API key (the http kit's ApiKeyLookup); one feature provides it. */
  apiKeyLookup?: ApiKeyLookup;
  /** Process-wide settings it reads outside any request or job, taken from the configuration once. */
  configure?: (config: Config) => void;
  /** What SQL migrations cannot do, run right after them (sealing, partitions ahead). */
  afterMigrate?: (db: Db, config: Config) => Promise<unknown>;
  /** What it sets up when a context is made (web, worker, CLI); returns how to undo it on close. */
  attach?: (context: AppContext) => Release;
};

/** The whole feature: its background (spread in) and what the web process and the CLI add. */
export type Feature = FeatureBackground & {
  /** HTTP operations, under /api and elsewhere; described in the OpenAPI document. */
  routes?: readonly RouteDefinition[];
  /** Pages for people and other non-API paths (HTML forms, scripts), mounted on the web app. */
  pages?: (app: Express, context: AppContext) => void;
  /** Its sections of the console under /app/{workspaceId}/ (src/app/console.ts mounts them). */
  console?: (context: AppContext) => ConsolePages;
  /** Console pages outside any workspace (/app/new, /app/account), on the /app router. */
  consoleRoot?: (router: Router, context: AppContext) => void;
  /** What the web process runs beside its routes for as long as it serves; returns how to stop it. */
  webServices?: readonly ((context: AppContext) => () => Promise<void>)[];
  /** Its `switchboard` command groups. */
  commands?: (program: Command, effects: FeatureEffects) => void;
};
