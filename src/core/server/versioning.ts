import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DateOnly, Timestamp } from '../../contract/index.js';
import { normalizeTimestamp } from '../store/sqlite-db.js';
import type { Store } from '../store/store.js';
import { toInvalidParams } from './invalid-params.js';
import { invalidRequest } from './problem.js';

/** Days of notice between setting a schedule and the deprecation it announces. */
export const NOTICE_DAYS = 90;
/** Days v1 keeps answering after its deprecation date. */
export const SUNSET_DAYS = 180;

const SETTING = 'v1.schedule';
const DAY_MS = 24 * 60 * 60 * 1000;

function isRealInstant(value: string): boolean {
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && normalizeTimestamp(new Date(ms).toISOString()) === value;
}

/** A timestamp, or a date meaning midnight UTC of that day. */
const Instant = z
  .union([Timestamp, DateOnly])
  .transform((value) => (value.length === 10 ? `${value}T00:00:00Z` : value))
  .refine(isRealInstant, 'must be a real UTC instant, YYYY-MM-DDThh:mm:ssZ or YYYY-MM-DD');

/** What an operator sends to schedule the end of v1. */
export const V1ScheduleInput = z.strictObject({ deprecation_at: Instant, sunset_at: Instant });
export type V1ScheduleInput = z.input<typeof V1ScheduleInput>;

/** The end of v1 as scheduled: both dates, and when the schedule was set (the day notice went out). */
export interface V1Schedule {
  deprecation_at: string;
  sunset_at: string;
  set_at: string;
}

/** The schedule in force, or null while v1 has no end. */
export async function getV1Schedule(store: Store): Promise<V1Schedule | null> {
  const stored = await store.getSetting(SETTING);
  return stored === null ? null : (JSON.parse(stored) as V1Schedule);
}

function daysBetween(from: string, to: string): number {
  return (Date.parse(to) - Date.parse(from)) / DAY_MS;
}

/**
 * Schedules (or moves) the end of v1, refusing with a 400 a schedule that breaks the contract's rule: the
 * deprecation date at least 90 days after now, the moment notice is given, and the sunset at least 180 days after
 * the deprecation date. Moving a schedule is judged from now, so any move still gives the full notice.
 */
export async function setV1Schedule(store: Store, input: unknown, now: Date = new Date()): Promise<V1Schedule> {
  const parsed = V1ScheduleInput.safeParse(input);
  if (!parsed.success) {
    throw invalidRequest(toInvalidParams(parsed.error.issues, (field) => ({ name: field, in: 'body' }), 'body'));
  }
  const setAt = normalizeTimestamp(now.toISOString());
  const { deprecation_at, sunset_at } = parsed.data;
  const refusals = [];
  if (daysBetween(setAt, deprecation_at) < NOTICE_DAYS) {
    refusals.push({ name: 'deprecation_at', in: 'body' as const, reason: `must be at least ${NOTICE_DAYS} days from now (notice)` });
  }
  if (daysBetween(deprecation_at, sunset_at) < SUNSET_DAYS) {
    refusals.push({ name: 'sunset_at', in: 'body' as const, reason: `must be at least ${SUNSET_DAYS} days after deprecation_at` });
  }
  if (refusals.length > 0) throw invalidRequest(refusals, 'The schedule breaks the 90-day notice or 180-day sunset rule.');
  const schedule: V1Schedule = { deprecation_at, sunset_at, set_at: setAt };
  await store.setSetting(SETTING, JSON.stringify(schedule));
  return schedule;
}

/** Withdraws the end of v1: responses stop carrying Deprecation and Sunset. */
export async function clearV1Schedule(store: Store): Promise<void> {
  await store.setSetting(SETTING, null);
}

/** `Deprecation: @<unix seconds>` (RFC 9745) and `Sunset: <HTTP-date>` (RFC 8594) for a schedule. */
export function versionHeaders(schedule: V1Schedule): Record<string, string> {
  return {
    deprecation: `@${Math.floor(Date.parse(schedule.deprecation_at) / 1000)}`,
    sunset: new Date(schedule.sunset_at).toUTCString(),
  };
}

/**
 * Every response carries the headers once a schedule is set. The schedule is read per response (a primary-key
 * read) so a change made by any process shows at once.
 */
export function registerVersionHeaders(app: FastifyInstance, store: Store): void {
  app.addHook('onSend', async (_request, reply) => {
    const schedule = await getV1Schedule(store);
    if (schedule) reply.headers(versionHeaders(schedule));
  });
}
