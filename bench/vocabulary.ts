/**
 * The words a generated deployment speaks, in the style of the hand-written demo (a B2B invoicing product team and
 * its customers): several projects, each with its own terms, customer accounts, recurring themes and the people
 * who talk about them. Lists are ordered most-common first, because the generator draws from them Zipf-like.
 */

export interface ProjectVocabulary {
  name: string;
  /** Nouns only this project uses; the first ones come up constantly, the last ones rarely. */
  terms: readonly string[];
  /** Concrete options a decision picks between. */
  options: readonly string[];
  /** Things a person is asked to produce. */
  artifacts: readonly string[];
}

export const PROJECTS: readonly ProjectVocabulary[] = [
  {
    name: 'Billing engine migration',
    terms: ['ledger', 'invoice totals', 'legacy engine', 'cutover', 'reconciliation', 'coupon handling', 'tax column', 'shadow run', 'kill switch', 'dunning'],
    options: ['a single weekend cutover', 'waves by region', 'a two-week shadow run', 'a manual rollback'],
    artifacts: ['rollback one-pager', 'cutover checklist', 'reconciliation report', 'runbook'],
  },
  {
    name: 'Mobile app launch',
    terms: ['TestFlight build', 'crash-free sessions', 'invoice editor', 'push notifications', 'offline mode', 'Android beta', 'app store review', 'small phones', 'deep links'],
    options: ['the compact layout', 'a staged rollout', 'launching iOS first', 'a feature flag'],
    artifacts: ['release notes', 'beta feedback summary', 'store listing', 'compact layout mock'],
  },
  {
    name: 'EU data residency (Frankfurt region)',
    terms: ['Frankfurt region', 'data processing agreement', 'encryption keys', 'replication lag', 'sub-processor list', 'support access', 'backups', 'failover drill'],
    options: ['a separate EU cluster', 'customer-managed keys', 'EU-only support staff', 'a phased migration'],
    artifacts: ['security questionnaire', 'architecture diagram', 'DPA draft', 'failover test plan'],
  },
  {
    name: 'Search and reporting',
    terms: ['revenue dashboard', 'saved filters', 'CSV export', 'aging report', 'slow queries', 'read replica', 'scheduled reports', 'pivot view'],
    options: ['a nightly rollup', 'the read replica', 'dropping the pivot view', 'paging the export'],
    artifacts: ['query plan', 'report spec', 'dashboard prototype', 'benchmark'],
  },
  {
    name: 'Onboarding revamp',
    terms: ['signup funnel', 'first invoice', 'customer import', 'welcome email', 'trial conversion', 'setup wizard', 'sample data', 'activation rate'],
    options: ['a guided setup wizard', 'importing from spreadsheets', 'a shorter trial', 'white-glove onboarding'],
    artifacts: ['funnel analysis', 'import mapping', 'email copy', 'onboarding checklist'],
  },
  {
    name: 'SSO and SCIM provisioning',
    terms: ['single sign-on', 'SCIM sync', 'Entra ID', 'Okta', 'group mapping', 'deprovisioning', 'SAML metadata', 'admin roles'],
    options: ['SCIM for every plan', 'SSO on the business plan', 'just-in-time provisioning', 'a setup session per customer'],
    artifacts: ['setup guide', 'role matrix', 'SCIM test tenant', 'admin FAQ'],
  },
  {
    name: 'Payments and payouts',
    terms: ['card payments', 'payout schedule', 'chargebacks', 'bank transfers', 'payment links', 'failed payments', 'currency conversion', 'fraud rules'],
    options: ['daily payouts', 'a second payment provider', 'retrying failed cards twice', 'payment links by email'],
    artifacts: ['provider comparison', 'fee model', 'chargeback playbook', 'retry policy'],
  },
  {
    name: 'Pricing and packaging',
    terms: ['seat tiers', 'annual plans', '2022 plans', 'proration', 'approvals add-on', 'usage-based pricing', 'discount policy', 'price increase'],
    options: ['grandfathering the 2022 plans', 'a ten percent cap on discounts', 'per-seat pricing', 'an annual-only add-on'],
    artifacts: ['pricing page draft', 'discount policy', 'migration email', 'margin model'],
  },
  {
    name: 'Reliability and on-call',
    terms: ['on-call rotation', 'incident review', 'p99 latency', 'error budget', 'alert fatigue', 'status page', 'database failover', 'paging policy'],
    options: ['a follow-the-sun rotation', 'freezing deploys on Fridays', 'a weekly incident review', 'raising the error budget'],
    artifacts: ['postmortem', 'alert inventory', 'on-call handbook', 'capacity plan'],
  },
];

/** Customer accounts, most-discussed first (topics of kind `account`). */
export const ACCOUNTS: readonly string[] = [
  'Halvorsen Logistics', 'Brightwater Clinics', 'Orchard & Pike', 'Cobalt Dental Group', 'Fernhill Property Group',
  'Trident Marine Supply', 'Northwind Freight', 'Keswick Architects', 'Marlow Foods', 'Tideline Energy',
  'Copperleaf Insurance', 'Ashford Schools', 'Riverbend Hotels', 'Sable & Finch', 'Quarry Lane Studios',
  'Pinecrest Veterinary', 'Lumen Robotics', 'Harbour Street Bakery', 'Vantage Rail', 'Oakmoor Legal',
];

/** Recurring themes across projects (topics of kind `theme`). */
export const THEMES: readonly string[] = [
  'Overdue payment reminders', 'Hiring', 'Technical debt', 'Quarterly planning', 'Security review', 'Accessibility',
  'Customer churn', 'Support backlog', 'Documentation', 'Cloud costs',
];

export const FIRST_NAMES: readonly string[] = [
  'Maya', 'Daniel', 'Priya', 'Tomás', 'Grace', 'Sam', 'Leah', 'Nadia', 'Marcus', 'Hannah', 'Jonah', 'Elena',
  'Ines', 'Kofi', 'Aiko', 'Rafael', 'Sofia', 'Arjun', 'Chloe', 'Mateo', 'Yusuf', 'Freya', 'Wei', 'Olga',
  'Lucas', 'Amara', 'Ben', 'Zara', 'Henrik', 'Nia',
];

export const LAST_NAMES: readonly string[] = [
  'Okafor', 'Reyes', 'Natarajan', 'Lindqvist', 'Chen', 'Whitfield', 'Brennan', 'Haddad', 'Bell', 'Kowalski',
  'Adeyemi', 'Moreau', 'Tanaka', 'Silva', 'Novak', 'Fischer', 'Mensah', 'Rossi', 'Iqbal', 'Larsen',
];

export const ROLES: readonly string[] = [
  'Product Manager', 'Engineering Manager', 'Staff Engineer', 'Software Engineer', 'Designer', 'Customer Success Manager',
  'Account Executive', 'Support Lead', 'Security Lead', 'Data Analyst',
];

/** Kinds of meeting with how many statements they usually hold. */
export const MEETING_KINDS: readonly { title: string; minTurns: number; maxTurns: number; projects: number }[] = [
  { title: 'Weekly sync', minTurns: 60, maxTurns: 140, projects: 3 },
  { title: 'Standup', minTurns: 25, maxTurns: 50, projects: 2 },
  { title: 'Design review', minTurns: 50, maxTurns: 110, projects: 1 },
  { title: 'Customer call', minTurns: 40, maxTurns: 90, projects: 1 },
  { title: 'Planning', minTurns: 70, maxTurns: 150, projects: 2 },
  { title: 'Incident review', minTurns: 40, maxTurns: 100, projects: 1 },
];

export const WEEKDAYS: readonly string[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
export const NUMBERS: readonly string[] = ['two', 'three', 'four', 'five', 'six', 'eight', 'ten', 'twelve', 'twenty', 'forty'];

/** Slots: {t} {t2} a project term, {a} an account, {o} an option, {x} an artifact, {p} a person, {d} a day, {n} a number. */
export const STATUS_LINES: readonly string[] = [
  'The {t} work is mostly done; {n} items are left and they depend on the {t2}.',
  'Quick update on the {t}: we finished the first pass last week, the second pass is blocked on the {t2}.',
  'From the customer side, {a} keeps asking about the {t}. They want a date, not a promise.',
  "I looked at the numbers for the {t} again. It's better than last month, but not where we said it would be.",
  'The {t2} is the risky part. Everything else on the {t} is on track for {d}.',
  "We had {n} support tickets about the {t} this week, most of them from {a}.",
  'I paired with {p} on the {t} yesterday, and the {t2} turned out simpler than we feared.',
  "Honestly the {t} slipped because nobody owned the {t2}. That's on us.",
  "{a} renewed, and they mentioned the {t} as the reason they stayed.",
  'The last change to the {t} cut the time in half, so the {t2} is the bottleneck now.',
  "I don't think the {t} is the problem. It's how we roll out the {t2}.",
  'Can we park the {t2} for a moment and talk about the {t}?',
];

export const FILLER_LINES: readonly string[] = [
  'Makes sense.',
  'Agreed.',
  "Okay, that's fair.",
  "Let's not overthink it.",
  'Can you say more about that?',
  'Sorry, you cut out for a second there.',
  'Right, I remember that conversation.',
  "Good, let's move on.",
  "I'm not sure I follow, can you repeat the last part?",
  "That's what I heard too.",
  'Yes.',
  "Let's take that offline.",
];

export const QUESTION_LINES: readonly string[] = [
  'Do we know whether {a} needs the {t} before {d}?',
  'Who decides on the {t2} if the {t} slips again?',
  'What happens to the {t} if the {t2} is late?',
  'Has anyone asked {a} what they actually mean by the {t}?',
  'Is the {t} covered by the current contract with {a}, or is that extra work?',
  'How many customers besides {a} are affected by the {t2}?',
  'Does the {t2} change the estimate for the {t}?',
];

export const DECISION_LINES: readonly string[] = [
  "Okay, unless someone objects we'll go with {o} for the {t}.",
  "Let's do {o}. It's the least risky way to get the {t} out.",
  "Decision: {o} for the {t}, and we revisit after {d}.",
  "We're going with {o}; the {t2} waits until after that.",
  "Fine, {o} it is. I'll tell {a} on {d}.",
];

export const ACTION_LINES: readonly string[] = [
  '{p}, can you write up the {x} for the {t} by {d}?',
  "I'll send {a} the {x} by {d}.",
  '{p}, could you own the {x}? I need it before {d}.',
  "I'll take the {x} for the {t2} and share it by {d}.",
  'Can someone draft the {x} for {a}? {p}, maybe you?',
];

export const ACKNOWLEDGE_LINES: readonly string[] = [
  "Yes, I'll have it by {d}.",
  'Sure, I can do that.',
  "On it. I'll ping you when the draft is up.",
  "Yes, I'll take it.",
];

/** How a decision, question or action item reads as a record, paraphrasing the statement it came from. */
export const DECISION_RECORDS: readonly string[] = [
  'Go with {o} for the {t}.',
  'Use {o} for the {t}; revisit after {d}.',
  '{o} for the {t}; the {t2} waits.',
];

export const QUESTION_RECORDS: readonly string[] = [
  'Does {a} need the {t} before {d}?',
  'Who decides on the {t2} if the {t} slips?',
  'How many customers besides {a} are affected by the {t2}?',
  'Is the {t} part of the current contract with {a}?',
];

export const ACTION_RECORDS: readonly string[] = [
  'Write up the {x} for the {t}.',
  'Send {a} the {x}.',
  'Share the {x} for the {t2}.',
  'Draft the {x} for {a}.',
];
