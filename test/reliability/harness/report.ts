import { KNOWN_FINDINGS } from './known-findings.js';

type Part = Record<string, any>;

/** The merged results of one run, as last-run.json holds them. */
export interface RunResults {
  mode: string;
  started_at: string;
  finished_at: string;
  commit: string;
  node: string;
  suites: Record<string, Part>;
}

const n = (value: unknown) => (typeof value === 'number' ? value.toLocaleString('en-US') : '—');
const ms = (value: unknown) => (typeof value === 'number' ? `${Math.round(value)} ms` : '—');
const mib = (value: unknown) => (typeof value === 'number' ? `${Math.round(value)} MiB` : '—');

function fuzzRow(fuzz: Part | undefined): string {
  if (!fuzz) return '| Fuzzing | not run | |';
  const findings = Object.values(fuzz.known_findings_seen ?? {}).reduce((a: number, b) => a + Number(b), 0);
  const skipped = (fuzz.admin_routes_not_fuzzed ?? []).join(', ');
  return `| Fuzzing (fast-check, real HTTP) | ${n(fuzz.cases)} generated requests: ${n(fuzz.rest_cases)} over every memory REST route, ${n(fuzz.admin_cases)} over the admin routes (all but ${skipped || 'none'}, which reach beyond the machine), ${n(fuzz.mcp_cases)} MCP messages (every tool, both resources, malformed envelopes); ${n(fuzz.actions_applied)} were accepted actions | no 5xx, every refusal a consistent problem document with its request id and exactly one audit entry, no refused request changed a table; ${n(findings)} answers showed a known finding (below) |`;
}

function crashRow(crash: Part | undefined): string {
  if (!crash) return '| Crash recovery | not run | |';
  const problems = Array.isArray(crash.problems) ? crash.problems.length : 0;
  return `| Crash recovery (\`memory serve\`, SIGKILL) | ${n(crash.kills_survived)} kills at random moments under ${n(crash.writers)} concurrent writers; ${n(crash.acknowledged_writes)} acknowledged writes, ${n(crash.cut_off_requests)} requests cut off | ${problems === 0 ? 'every acknowledged write there with its content, nothing half-applied' : `${problems} problems`}; \`integrity_check\` ok and the audit chain verified after every kill; applied changes without an audit entry: ${n(crash.applied_without_audit_entry)} |`;
}

function soakRow(soak: Part | undefined): string {
  if (!soak) return '| Soak | not run | |';
  const latency = soak.latency_ms ?? {};
  const rss = soak.rss_mib ?? {};
  return `| Soak (\`memory serve\`) | ${n(soak.seconds / 60)} min at ${n(soak.target_rate)} requests/s of reads, searches, actions, MCP calls and bad input: ${n(soak.requests_served)} requests | ${n(soak.unexpected_answers)} unexpected answers; p99 ${ms(latency.first_third?.p99)} in the first third, ${ms(latency.last_third?.p99)} in the last; resident memory ${mib(rss.afterWarmupMib)} after warm-up, ${mib(rss.endMib)} at the end |`;
}

function isolationRow(isolation: Part | undefined): string {
  if (!isolation) return '| Isolation at scale | not run | |';
  return `| Isolation at scale | ${n(isolation.tenants)} tenants × 4 deployments (plus the demo's), same meetings everywhere, ${n(isolation.principals)} principals with every grant level; ${n(isolation.requests)} calls on REST and MCP with every foreign id kind | ${n(isolation.leaks_found)} leaks, ${n(isolation.wrong_statuses)} wrong statuses |`;
}

/** The README's reliability section, generated from a run's results. */
export function renderReliabilitySection(results: RunResults): string {
  const { fuzz, 'crash-recovery': crash, soak, isolation } = results.suites;
  const seen = { ...(fuzz?.known_findings_seen ?? {}) } as Record<string, number>;
  if (crash && crash.applied_without_audit_entry > 0) seen['action-committed-before-its-audit-entry'] = crash.applied_without_audit_entry;
  const findings = KNOWN_FINDINGS.map((finding) => `- \`${finding.id}\` (seen in the last run: ${n(seen[finding.id] ?? 0)}): ${finding.description}`);
  return [
    '## Reliability',
    '',
    '`npm test` runs a short version of four reliability suites (a few hundred fuzz cases, three crashes, a half-minute',
    'soak, a sample of the isolation matrix); `npm run test:reliability` runs the long one and writes',
    '`test/reliability/results/last-run.json`, from which this section is generated. Every suite talks real HTTP to a',
    'real core; crash and soak run the built `memory serve` as a child process.',
    '',
    `Last long run: ${results.finished_at.slice(0, 10)}, commit \`${results.commit}\`, Node ${results.node}.`,
    '',
    '| suite | what ran | result |',
    '|---|---|---|',
    fuzzRow(fuzz),
    crashRow(crash),
    soakRow(soak),
    isolationRow(isolation),
    '',
    '**Durability.** SQLite runs in WAL mode with `synchronous=NORMAL`: a commit is in the WAL (the OS page cache) before',
    "the answer goes out, and a process crash cannot take it back; only a power cut or kernel crash can lose the last",
    'commits, because the WAL is not fsynced per commit. The crash suite checks the first claim empirically. Audit entries',
    'of actions are committed with `synchronous=FULL`, which syncs the WAL up to and including the action itself, so an',
    'acknowledged action should survive a power cut too (not something these suites can simulate), at the cost of one',
    'fsync per action; reads stay unsynced.',
    '',
    '**Known findings** (reported, not yet fixed; the suites count them instead of failing and enforce the property',
    'again once an entry is removed from `test/reliability/harness/known-findings.ts`):',
    ...(findings.length ? findings : ['- none']),
    '',
    'Sizes come from the environment: `RELIABILITY=long`, `RELIABILITY_REST_CASES`, `RELIABILITY_ADMIN_CASES`, `RELIABILITY_MCP_CASES`,',
    '`RELIABILITY_KILLS`, `RELIABILITY_WRITERS`, `RELIABILITY_SOAK_MINUTES` (or `_SECONDS`), `RELIABILITY_SOAK_RATE`;',
    '`RELIABILITY_SEED` replays a fuzz run (the seed is printed in the suite name and stored in the results).',
    '',
  ].join('\n');
}
