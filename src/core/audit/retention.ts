import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toInvalidParams } from '../server/invalid-params.js';
import { invalidRequest } from '../server/problem.js';
import type { AuditKind, AuditRetention, Store } from '../store/store.js';

const SETTING = 'audit.retention';
/** The contract's defaults: reads 90 days, actions 7 years. */
export const DEFAULT_RETENTION: AuditRetention = { readsDays: 90, actionsDays: 7 * 365 + 2 };
/** How often the retention job runs besides at start. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

const Days = z.number().int().min(1).max(36_500);

/** What an operator sends to change retention; a field left out keeps its value. */
export const AuditRetentionInput = z
  .strictObject({ reads_days: Days.optional(), actions_days: Days.optional() })
  .refine((input) => input.reads_days !== undefined || input.actions_days !== undefined, 'name reads_days or actions_days');
export type AuditRetentionInput = z.infer<typeof AuditRetentionInput>;

/** Retention as the admin surface shows it. */
export interface AuditRetentionView {
  reads_days: number;
  actions_days: number;
}

/** Days each kind of audit entry is kept: the stored setting, else the defaults. */
export async function getAuditRetention(store: Store): Promise<AuditRetention> {
  const stored = await store.getSetting(SETTING);
  return { ...DEFAULT_RETENTION, ...(stored === null ? {} : (JSON.parse(stored) as Partial<AuditRetention>)) };
}

/** The snake_case shape the admin routes and the CLI show. */
export function retentionView(retention: AuditRetention): AuditRetentionView {
  return { reads_days: retention.readsDays, actions_days: retention.actionsDays };
}

/**
 * Changes how long reads and actions are kept (1 to 36,500 days each; 400 otherwise) and applies it at once:
 * entries now outside the new retention are pruned before this resolves.
 */
export async function setAuditRetention(store: Store, input: unknown, now: Date = new Date()): Promise<AuditRetention> {
  const parsed = AuditRetentionInput.safeParse(input);
  if (!parsed.success) {
    throw invalidRequest(toInvalidParams(parsed.error.issues, (field) => ({ name: field, in: 'body' }), 'body'));
  }
  const current = await getAuditRetention(store);
  const retention: AuditRetention = {
    readsDays: parsed.data.reads_days ?? current.readsDays,
    actionsDays: parsed.data.actions_days ?? current.actionsDays,
  };
  await store.setSetting(SETTING, JSON.stringify(retention));
  await runAuditRetention(store, now);
  return retention;
}

/** One run of the retention job: prunes each chain to its kind's retention at `now`. */
export async function runAuditRetention(store: Store, now: Date = new Date()): Promise<Record<AuditKind, number>> {
  return store.pruneAudit(now, await getAuditRetention(store));
}

/**
 * Runs the retention job when the app is ready and then every `intervalMs`, on a timer that never keeps the
 * process alive; stops when the app closes. A failed run is logged and retried at the next tick.
 */
export function scheduleAuditRetention(app: FastifyInstance, store: Store, intervalMs = RETENTION_INTERVAL_MS): void {
  let timer: NodeJS.Timeout | undefined;
  const run = () =>
    runAuditRetention(store).catch((error: unknown) => app.log.error({ err: error }, 'audit retention run failed'));
  app.addHook('onReady', async () => {
    await run();
    timer = setInterval(run, intervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
