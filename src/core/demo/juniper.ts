import type { DemoDeploymentContent, DemoMeeting, DemoPerson, DemoTopic } from './demo-model.js';

type JuniperPerson = 'nadia' | 'marcus' | 'elena' | 'jonah' | 'hannah' | 'ravi';
type JuniperTopic = 'cobalt' | 'fernhill' | 'trident' | 'renewals' | 'onboarding' | 'exports' | 'imports';
type JuniperMeeting = DemoMeeting<JuniperPerson, JuniperTopic>;

const PEOPLE: Record<JuniperPerson, DemoPerson> = {
  nadia: {
    displayName: 'Nadia Haddad',
    idpId: 'd303f0ec-37c5-469b-9836-7d8ef5b70c3f',
    role: 'VP Customer Success',
  },
  marcus: { displayName: 'Marcus Bell', idpId: '779aa9b4-58ba-4c7b-88a3-9c91cd1d1f2a', role: 'Account Executive' },
  elena: {
    displayName: 'Elena Petrova',
    idpId: 'c153606f-7481-4df1-a6ed-20347e87a687',
    role: 'Customer Success Manager',
  },
  jonah: { displayName: 'Jonah Adeyemi', idpId: 'f54e028f-ab63-46d4-9aac-cae74912ebaa', role: 'Solutions Engineer' },
  hannah: {
    displayName: 'Hannah Kowalski',
    idpId: 'f2534700-1886-41a1-963d-5aec6e7d5795',
    role: 'Revenue Operations',
  },
  ravi: { displayName: 'Ravi Menon', idpId: '0426ae2b-6a05-495b-868d-c775cc826ce8', role: 'Support Lead' },
};

const TOPICS: Record<JuniperTopic, DemoTopic<JuniperPerson>> = {
  cobalt: { name: 'Cobalt Health Partners', kind: 'account', raisedBy: 'elena', cues: ['cobalt'] },
  fernhill: { name: 'Fernhill Property Group', kind: 'account', raisedBy: 'marcus', cues: ['fernhill'] },
  trident: { name: 'Trident Marine Supply', kind: 'account', raisedBy: 'elena', cues: ['trident'] },
  renewals: { name: 'Q4 renewals', kind: 'theme', raisedBy: 'nadia', cues: ['renewal', 'renew'] },
  onboarding: {
    name: 'Onboarding and time to first invoice',
    kind: 'theme',
    raisedBy: 'nadia',
    cues: ['onboarding', 'first invoice'],
  },
  exports: { name: 'Month-end exports', kind: 'theme', raisedBy: 'elena', cues: ['export'] },
  imports: { name: 'Data import templates', kind: 'project', raisedBy: 'elena', cues: ['import'] },
};

const RENEWALS_0903: JuniperMeeting = {
  externalId: 'juniper-2026-09-03-renewals',
  title: 'Q4 renewal pipeline review',
  startedAt: '2026-09-03T17:00:00Z',
  endedAt: '2026-09-03T17:20:00Z',
  organizer: 'nadia',
  participants: ['nadia', 'marcus', 'elena', 'hannah', 'jonah', 'ravi'],
  topics: ['renewals', 'cobalt', 'exports', 'fernhill', 'trident', 'onboarding', 'imports'],
  turns: [
    ['nadia', "Let's walk the Q4 renewal list from the top. Hannah, what's the total?"],
    [
      'hannah',
      'Forty-seven renewals between October and December, worth about one point nine million in annual recurring revenue. Eleven are flagged amber or red.',
    ],
    ['nadia', 'Start with the reds.'],
    [
      'elena',
      'Cobalt Health Partners is the big one. Renewal on October thirty-first, two hundred and ten seats. Usage is down by a third since July.',
    ],
    ['marcus', 'Their executive sponsor, the CFO, left in August. The new finance director has never logged in.'],
    [
      'nadia',
      'Do we know why usage fell? Is it just the sponsor leaving, or is the product letting them down?',
      { ref: 'cobalt-why' },
    ],
    [
      'elena',
      'Their tickets are mostly about exports. The month-end export of all their invoices takes over an hour, and sometimes it times out.',
      { ref: 'cobalt-why' },
    ],
    ['ravi', 'I can confirm that. Cobalt opened nine tickets about export timeouts in August alone.'],
    [
      'nadia',
      'So we have a product problem and a relationship problem. Elena, I want a meeting with their new finance director within the next two weeks.',
      { ref: 'exec-meeting' },
    ],
    ['elena', "I'll ask through their controller. She still likes us.", { ref: 'exec-meeting' }],
    ['marcus', 'Should we put a discount on the table up front, to keep them?'],
    [
      'nadia',
      "Not before we've heard them out. Cutting the price before we understand the problem just teaches them to ask for it.",
      { ref: 'no-early-discount' },
    ],
    [
      'hannah',
      'For the record, the policy caps discounts a CSM can approve at ten percent. Anything above that needs my sign-off and yours.',
    ],
    [
      'nadia',
      'Fine. No price conversations with Cobalt until after that meeting.',
      { ref: 'no-early-discount' },
    ],
    ['marcus', "Fernhill Property Group next. That one's green, and it's actually an expansion.", { pause: 240 }],
    [
      'marcus',
      "They're opening two regional offices and want forty more seats at renewal in November. They also asked about the approval workflows add-on.",
    ],
    [
      'jonah',
      "The approvals add-on needs single sign-on set up properly for their approvers. They're still on passwords.",
    ],
    [
      'nadia',
      "Then we don't sell the add-on until SSO is in place, or their first month will be miserable.",
      { ref: 'sso-first' },
    ],
    [
      'marcus',
      "Agreed. I'll pitch the seats now and the add-on once SSO is live.",
      { ref: 'sso-first' },
    ],
    ['jonah', "I'll run an SSO setup session with their IT admin.", { ref: 'sso-session' }],
    ['nadia', 'Trident Marine Supply?', { pause: 120 }],
    [
      'elena',
      'Amber. They signed in June and still haven\'t sent a single invoice from our product. Onboarding is stuck on importing customer records from their old accounting package.',
    ],
    [
      'jonah',
      "Their export file uses semicolons and a date format our importer doesn't accept. I can write a mapping for them.",
      { ref: 'trident-map' },
    ],
    [
      'nadia',
      'Do it. But I also want to know how many other customers are stuck the same way. Is this a Trident problem or an onboarding problem?',
      { ref: 'stuck-question' },
    ],
    [
      'hannah',
      'I can pull the time from signature to first invoice for every customer we signed this year.',
      { ref: 'ttfi-report' },
    ],
    ['nadia', "Please. We'll go through it in the onboarding retro."],
  ],
  decisions: [
    {
      key: 'juniper.no-early-discount-cobalt',
      by: 'nadia',
      text: 'No discount offers to Cobalt Health Partners until after the executive meeting with their new finance director.',
      support: ['no-early-discount'],
    },
    {
      key: 'juniper.fernhill-sso-before-addon',
      by: 'nadia',
      text: "Sell Fernhill's 40 additional seats now; pitch the approval workflows add-on only once their SSO is live.",
      support: ['sso-first'],
    },
  ],
  openQuestions: [
    {
      key: 'juniper.cobalt-usage-drop',
      by: 'nadia',
      text: "Is Cobalt's usage drop caused by losing their executive sponsor or by problems with the product?",
      support: ['cobalt-why'],
      resolvedBy: { meeting: 'juniper-2026-09-17-cobalt', support: ['why-conclusion'] },
    },
    {
      key: 'juniper.onboarding-imports-widespread',
      by: 'nadia',
      text: 'Is stalled onboarding specific to Trident, or do many new customers get stuck importing their data?',
      support: ['stuck-question'],
      resolvedBy: { meeting: 'juniper-2026-10-01-onboarding', support: ['import-answer'] },
    },
  ],
  actionItems: [
    {
      key: 'juniper.cobalt-exec-meeting',
      by: 'nadia',
      text: "Set up an executive meeting with Cobalt's new finance director within two weeks.",
      support: ['exec-meeting'],
      assignee: 'elena',
      due: '2026-09-17',
      doneBy: { meeting: 'juniper-2026-09-17-cobalt', support: ['exec-held'] },
    },
    {
      key: 'juniper.fernhill-sso-session',
      by: 'jonah',
      text: "Run a single sign-on setup session with Fernhill's IT admin.",
      support: ['sso-session'],
      assignee: 'jonah',
      due: '2026-09-25',
      doneBy: { meeting: 'juniper-2026-10-15-renewals', support: ['sso-done'] },
    },
    {
      key: 'juniper.trident-import-mapping',
      by: 'jonah',
      text: "Write an import mapping for Trident's semicolon-separated customer export.",
      support: ['trident-map'],
      assignee: 'jonah',
      due: '2026-09-10',
      doneBy: { meeting: 'juniper-2026-10-01-onboarding', support: ['trident-done'] },
    },
    {
      key: 'juniper.time-to-first-invoice-report',
      by: 'hannah',
      text: 'Report time-to-first-invoice for every customer signed in 2026.',
      support: ['ttfi-report'],
      assignee: 'hannah',
      due: '2026-09-30',
      doneBy: { meeting: 'juniper-2026-10-01-onboarding', support: ['ttfi-done'] },
    },
  ],
};

const COBALT_0917: JuniperMeeting = {
  externalId: 'juniper-2026-09-17-cobalt',
  title: 'Cobalt Health Partners: executive check-in',
  startedAt: '2026-09-17T16:00:00Z',
  endedAt: '2026-09-17T16:20:00Z',
  organizer: 'elena',
  participants: ['elena', 'nadia', 'ravi', 'jonah'],
  topics: ['cobalt', 'exports', 'renewals'],
  turns: [
    [
      'elena',
      "Thank you for joining. We set this up because we'd like to hear directly how the last few months have gone for your team at Cobalt.",
      { ref: 'exec-held' },
    ],
    [
      'guest',
      'Honestly, mixed. The product does what it says, but month-end is painful. My team waits over an hour for the invoice export, and then it fails.',
    ],
    ['guest', "My predecessor chose you, and I'm still deciding whether I would have."],
    ['nadia', "That's fair to hear. Can you tell us what the month-end export feeds into?"],
    ['guest', 'Our consolidation workbook. We have fourteen clinics, and the export covers all of them in one go.'],
    [
      'jonah',
      'That explains it. A single export across fourteen entities is the slowest path we have. Run per clinic, each one would take a minute or two.',
    ],
    ['guest', 'Running it fourteen times is not an improvement for my team.'],
    [
      'jonah',
      'Understood. We could schedule them to run overnight and land in one shared folder, so in the morning everything is just there.',
      { ref: 'overnight' },
    ],
    ['guest', 'That would actually work. When?'],
    [
      'ravi',
      'Scheduled exports already exist on the enterprise plan; Cobalt is on business. It is a plan setting.',
    ],
    [
      'nadia',
      "Then we switch it on for you for the rest of your term at no charge, and we'll talk about plans at renewal.",
      { ref: 'overnight' },
    ],
    [
      'guest',
      'Good. Second issue: my team knows maybe half of what the product can do. Nobody trained them after the rollout.',
      { pause: 160 },
    ],
    ['elena', 'We can run training for your accounts team. Two sessions, one on month-end, one on approvals.'],
    ['guest', "Make it one session, an hour, recorded. They won't sit through two.", { ref: 'training' }],
    ['elena', "One recorded hour it is. I'll send you dates this week.", { ref: 'training' }],
    ['guest', "And about the renewal: I'll need a price that reflects the last three months."],
    [
      'nadia',
      "I understand. Let's see how October goes with the overnight exports, and we'll come back to you with a proposal before the twenty-fourth.",
      { ref: 'proposal-promise' },
    ],
    ['guest', "Fine. I'll drop off now, thank you both."],
    ['nadia', 'Quick internal debrief, two minutes.', { pause: 80 }],
    [
      'nadia',
      "So the usage drop is real pain with the product, not just the sponsor leaving. That changes how we handle the renewal.",
      { ref: 'why-conclusion' },
    ],
    [
      'ravi',
      'Engineering should know that one export across fourteen entities takes an hour. Other multi-entity customers will hit the same wall.',
    ],
    ['jonah', "I'll file it with the data team, with Cobalt's numbers attached.", { ref: 'eng-ticket' }],
    ['elena', 'What discount do we go in with?', { ref: 'discount' }],
    [
      'nadia',
      "We don't decide that today. First let's see whether the overnight exports fix month-end for them.",
      { ref: 'discount' },
    ],
    [
      'ravi',
      "I'll keep an eye on their ticket queue through October and flag anything about exports.",
      { ref: 'watch' },
    ],
  ],
  decisions: [
    {
      key: 'juniper.cobalt-free-scheduled-exports',
      by: 'nadia',
      text: 'Enable scheduled exports for Cobalt free of charge for the rest of their current term.',
      support: ['overnight'],
    },
    {
      key: 'juniper.cobalt-single-training',
      by: 'elena',
      text: "Run a single recorded one-hour training for Cobalt's accounts team.",
      support: ['training'],
    },
  ],
  openQuestions: [
    {
      key: 'juniper.cobalt-renewal-discount',
      by: 'elena',
      text: 'What discount, if any, do we offer Cobalt at renewal?',
      support: ['discount'],
      resolvedBy: { meeting: 'juniper-2026-10-15-renewals', support: ['cobalt-offer'] },
    },
  ],
  actionItems: [
    {
      key: 'juniper.cobalt-training-dates',
      by: 'elena',
      text: 'Send Cobalt proposed dates for the recorded training session.',
      support: ['training'],
      assignee: 'elena',
      due: '2026-09-18',
      doneBy: { meeting: 'juniper-2026-10-01-onboarding', support: ['training-done'] },
    },
    {
      key: 'juniper.multi-entity-export-ticket',
      by: 'jonah',
      text: "File the slow multi-entity export with the data team, including Cobalt's numbers.",
      support: ['eng-ticket'],
      assignee: 'jonah',
      due: null,
    },
    {
      key: 'juniper.watch-cobalt-tickets',
      by: 'ravi',
      text: "Monitor Cobalt's support tickets through October and flag any export issues.",
      support: ['watch'],
      assignee: 'ravi',
      due: '2026-10-31',
    },
    {
      key: 'juniper.cobalt-renewal-proposal',
      by: 'nadia',
      text: 'Send Cobalt a renewal proposal before October 24.',
      support: ['proposal-promise'],
      assignee: 'nadia',
      due: '2026-10-23',
    },
  ],
};

const ONBOARDING_1001: JuniperMeeting = {
  externalId: 'juniper-2026-10-01-onboarding',
  title: 'Customer onboarding retro',
  startedAt: '2026-10-01T17:00:00Z',
  endedAt: '2026-10-01T17:15:00Z',
  organizer: 'nadia',
  participants: ['nadia', 'hannah', 'jonah', 'elena', 'ravi', 'marcus'],
  topics: ['onboarding', 'imports', 'trident', 'cobalt', 'exports'],
  turns: [
    [
      'nadia',
      "Hannah has the numbers on how long new customers take to send their first invoice. Let's look.",
    ],
    [
      'hannah',
      "The report is in the channel. For customers signed this year, the median is nineteen days from signature to first invoice sent. The slowest quarter takes more than sixty.",
      { ref: 'ttfi-done' },
    ],
    [
      'hannah',
      'Of the customers over sixty days, eight out of eleven were stuck bringing their data over from another accounting package.',
      { ref: 'import-answer' },
    ],
    ['nadia', "So Trident isn't special. It's the importer.", { ref: 'import-answer' }],
    [
      'jonah',
      'The Trident mapping is done, by the way. They loaded fourteen thousand customer records on Monday and sent their first invoices yesterday.',
      { ref: 'trident-done' },
    ],
    ['elena', 'Their finance lead sent me a thank-you note, which has never happened before.'],
    ['nadia', "Great. But I don't want Jonah hand-writing mappings for every customer.", { pause: 120 }],
    [
      'jonah',
      'Most failures are the same three things: semicolons as separators, dates with the day first, and currency symbols inside the amount columns.',
    ],
    ['ravi', 'Support sees the same three. Usually the customer gives up and types the records in by hand.'],
    [
      'nadia',
      'Then we ask product to make the importer accept those three, and until then we publish templates.',
      { ref: 'importer-ask' },
    ],
    ['jonah', "I'll write the product request with the eight examples attached.", { ref: 'importer-request' }],
    [
      'ravi',
      "And I'll put import templates for the four most common accounting packages in the help center.",
      { ref: 'templates' },
    ],
    [
      'nadia',
      "Second thing: who owns a new customer between signature and first invoice? Right now it falls between sales and CS.",
      { ref: 'owner-question' },
    ],
    ['marcus', 'From the sales side, we hand off at signature and move on.'],
    ['elena', 'And CS picks them up at the kickoff call, which is sometimes two weeks later.'],
    [
      'nadia',
      'Then CS owns them from the moment they sign. The kickoff call happens within three working days.',
      { ref: 'owner' },
    ],
    [
      'marcus',
      "I'll make sure the handoff note reaches the CSM the same day we sign.",
      { ref: 'handoff' },
    ],
    [
      'hannah',
      'I can add a time-to-first-invoice field to the account dashboard so we see it every week.',
      { ref: 'dashboard' },
    ],
    [
      'nadia',
      'Please. And let\'s set a target: first invoice within fourteen days for a standard onboarding.',
      { ref: 'target' },
    ],
    ['elena', "Fourteen days is ambitious for anyone importing from another system."],
    ['nadia', "Ambitious is fine. We'll look at it again after a quarter and adjust.", { ref: 'target' }],
    ['hannah', 'Quick check on Cobalt while we are all here?', { pause: 120 }],
    [
      'elena',
      'The recorded training happened last Thursday. Twenty-two people attended live.',
      { ref: 'training-done' },
    ],
    [
      'ravi',
      'And not a single export ticket from them since the overnight exports went on. Zero, against nine in August.',
    ],
  ],
  decisions: [
    {
      key: 'juniper.cs-owns-from-signature',
      by: 'nadia',
      text: 'Customer success owns new customers from contract signature; the kickoff call happens within three working days.',
      support: ['owner'],
    },
    {
      key: 'juniper.fourteen-day-target',
      by: 'nadia',
      text: 'Target a first invoice within 14 days for standard onboardings, reviewed after one quarter.',
      support: ['target'],
    },
    {
      key: 'juniper.importer-formats-and-templates',
      by: 'nadia',
      text: 'Ask product to support semicolon separators, day-first dates and currency symbols in the importer, and publish import templates meanwhile.',
      support: ['importer-ask'],
    },
  ],
  openQuestions: [
    {
      key: 'juniper.handoff-owner',
      by: 'nadia',
      text: 'Who owns a new customer between contract signature and the first invoice?',
      support: ['owner-question'],
      resolvedBy: { meeting: 'juniper-2026-10-01-onboarding', support: ['owner'] },
    },
  ],
  actionItems: [
    {
      key: 'juniper.importer-product-request',
      by: 'jonah',
      text: 'Write the product request for importer format support, with the eight stuck-customer examples attached.',
      support: ['importer-request'],
      assignee: 'jonah',
      due: '2026-10-08',
    },
    {
      key: 'juniper.help-center-templates',
      by: 'ravi',
      text: 'Publish import templates for the four most common accounting packages in the help center.',
      support: ['templates'],
      assignee: 'ravi',
      due: '2026-10-15',
      doneBy: { meeting: 'juniper-2026-10-15-renewals', support: ['templates-done'] },
    },
    {
      key: 'juniper.same-day-handoff-note',
      by: 'marcus',
      text: 'Send the sales handoff note to the assigned CSM on the day the contract is signed.',
      support: ['handoff'],
      assignee: 'marcus',
      due: null,
    },
    {
      key: 'juniper.dashboard-ttfi-field',
      by: 'hannah',
      text: 'Add a time-to-first-invoice field to the account dashboard.',
      support: ['dashboard'],
      assignee: 'hannah',
      due: '2026-10-09',
      doneBy: { meeting: 'juniper-2026-10-15-renewals', support: ['dashboard-done'] },
    },
  ],
};

const RENEWALS_1015: JuniperMeeting = {
  externalId: 'juniper-2026-10-15-renewals',
  title: 'Q4 renewal pipeline review',
  startedAt: '2026-10-15T17:00:00Z',
  endedAt: '2026-10-15T17:20:00Z',
  organizer: 'nadia',
  participants: ['nadia', 'marcus', 'elena', 'hannah', 'jonah', 'ravi'],
  topics: ['renewals', 'cobalt', 'exports', 'fernhill', 'trident', 'onboarding', 'imports'],
  turns: [
    ['nadia', 'Renewal review, round two. Hannah, how has the list moved?'],
    ['hannah', 'Twelve of the forty-seven are signed. Amber and red went from eleven down to seven.'],
    ['nadia', 'Cobalt first.'],
    [
      'elena',
      'Much better. Month-end ran overnight for all fourteen clinics, and their finance director brought it up without being asked.',
    ],
    ['ravi', 'Still zero export tickets since the switch.'],
    [
      'nadia',
      "Then here's my proposal: five percent off in exchange for a two-year term, and we move them to the enterprise plan so the overnight exports are part of what they pay for.",
      { ref: 'cobalt-offer' },
    ],
    ['hannah', "Five percent is inside what a CSM can approve, so no extra sign-off needed."],
    [
      'marcus',
      "And enterprise costs more per seat, so even with the five percent it's net positive.",
      { ref: 'cobalt-offer' },
    ],
    [
      'nadia',
      "Then that's the offer. Elena, get it to them before the twenty-fourth, like we promised.",
      { ref: 'cobalt-send' },
    ],
    ['elena', "I'll have it out on Monday.", { ref: 'cobalt-send' }],
    ['marcus', 'Fernhill.', { pause: 180 }],
    [
      'jonah',
      'SSO is live. We did the setup session with their IT admin on the twenty-second, and all their approvers sign in through it now.',
      { ref: 'sso-done' },
    ],
    [
      'marcus',
      "So I can pitch the approvals add-on. They're signing the forty seats next week, and I'd like to put it on the same order.",
      { ref: 'bundle' },
    ],
    ['nadia', 'Yes, put it on the renewal order.', { ref: 'bundle' }],
    [
      'marcus',
      "Could we give them the first month of the add-on for free? That's what their ops director hinted at.",
      { ref: 'free-month' },
    ],
    [
      'hannah',
      "We've never done that on an add-on. I'd need to check whether billing can even handle it in the middle of a term.",
      { ref: 'free-month' },
    ],
    ['nadia', "Check, and we'll settle it over email."],
    ['nadia', 'Trident?', { pause: 80 }],
    ['elena', "Green now. They've sent two hundred invoices this month."],
    [
      'ravi',
      'The import templates for the four accounting packages are live in the help center, and three customers have already used them.',
      { ref: 'templates-done' },
    ],
    [
      'hannah',
      "The time-to-first-invoice field is on the account dashboard as well. This month's new customers are at eleven days median.",
      { ref: 'dashboard-done' },
    ],
    ['nadia', 'Eleven, against a target of fourteen. Good start on onboarding.'],
    [
      'marcus',
      'One new one: Alder & Finch, an architecture firm, want to renew early if we lock in this year\'s price for three years.',
      { pause: 120 },
    ],
    [
      'nadia',
      'Three years is too long to freeze a price. Offer two, and cap the increase in the third year at five percent.',
      { ref: 'alder-counter' },
    ],
    ['marcus', "I'll take that back to them.", { ref: 'alder-counter' }],
    ['nadia', "Let's go through this list again in two weeks, same time."],
  ],
  decisions: [
    {
      key: 'juniper.cobalt-renewal-offer',
      by: 'nadia',
      text: 'Offer Cobalt a 5% discount for a two-year renewal on the enterprise plan, which includes scheduled exports.',
      support: ['cobalt-offer'],
    },
    {
      key: 'juniper.fernhill-addon-on-order',
      by: 'nadia',
      text: "Add the approval workflows add-on to Fernhill's 40-seat renewal order.",
      support: ['bundle'],
    },
    {
      key: 'juniper.alder-finch-counteroffer',
      by: 'nadia',
      text: "Counter Alder & Finch's request for a three-year price lock with two years locked and at most a 5% increase in year three.",
      support: ['alder-counter'],
    },
  ],
  openQuestions: [
    {
      key: 'juniper.fernhill-free-addon-month',
      by: 'marcus',
      text: 'Can billing give Fernhill a free first month of the approval workflows add-on mid-term?',
      support: ['free-month'],
    },
  ],
  actionItems: [
    {
      key: 'juniper.send-cobalt-offer',
      by: 'nadia',
      text: 'Send Cobalt the renewal offer: 5% off for two years on the enterprise plan.',
      support: ['cobalt-send'],
      assignee: 'elena',
      due: '2026-10-19',
    },
    {
      key: 'juniper.alder-finch-reply',
      by: 'marcus',
      text: 'Take the two-year price-lock counteroffer back to Alder & Finch.',
      support: ['alder-counter'],
      assignee: 'marcus',
      due: null,
    },
  ],
};

/** Juniper: the AI teammate of a customer-success and sales team (Zoom). */
export const JUNIPER: DemoDeploymentContent<JuniperPerson, JuniperTopic> = {
  name: 'Juniper',
  platform: 'zoom',
  voice: 'en-GB-SoniaNeural',
  people: PEOPLE,
  topics: TOPICS,
  meetings: [RENEWALS_0903, COBALT_0917, ONBOARDING_1001, RENEWALS_1015],
};
