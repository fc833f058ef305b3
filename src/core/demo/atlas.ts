import { ATLAS_EARLY_MEETINGS } from './atlas-meetings-early.js';
import { ATLAS_LATE_MEETINGS } from './atlas-meetings-late.js';
import type { DemoDeploymentContent, DemoMeeting, DemoPerson, DemoTopic } from './demo-model.js';

export type AtlasPerson = 'maya' | 'daniel' | 'priya' | 'tomas' | 'grace' | 'sam' | 'leah';
export type AtlasTopic =
  | 'billing-migration'
  | 'mobile-launch'
  | 'eu-residency'
  | 'halvorsen'
  | 'brightwater'
  | 'orchard-pike'
  | 'reminders'
  | 'proration'
  | 'on-call';
export type AtlasMeeting = DemoMeeting<AtlasPerson, AtlasTopic>;

const PEOPLE: Record<AtlasPerson, DemoPerson> = {
  maya: { displayName: 'Maya Okafor', idpId: '1b429046-d9e0-4024-8d01-029bca482bab', role: 'Head of Product' },
  daniel: {
    displayName: 'Daniel Reyes',
    idpId: '6adc521b-b4d7-42f6-9853-d9166c0e55da',
    role: 'Engineering Manager, Billing',
  },
  priya: {
    displayName: 'Priya Natarajan',
    idpId: '69b684e6-c00c-4fb8-be75-5d88b4a4ee69',
    role: 'Staff Engineer, Payments',
  },
  tomas: { displayName: 'Tomás Lindqvist', idpId: '43f042b9-97b7-4a4c-9e2c-ab5407f0d83a', role: 'Mobile Lead' },
  grace: {
    displayName: 'Grace Chen',
    idpId: '0541585a-df3a-48a7-90dc-f9d53f7b3146',
    role: 'Security and Compliance Lead',
  },
  sam: {
    displayName: 'Sam Whitfield',
    idpId: '0da83413-e557-48c5-b5d7-6bacf8aef9aa',
    role: 'Customer Engineering',
  },
  leah: { displayName: 'Leah Brennan', idpId: 'e7a1f889-4797-42fe-bad1-bb9e93904491', role: 'Product Designer' },
};

const TOPICS: Record<AtlasTopic, DemoTopic<AtlasPerson>> = {
  'billing-migration': {
    name: 'Billing engine migration',
    kind: 'project',
    raisedBy: 'daniel',
    cues: ['ledger', 'legacy engine', 'wave', 'cutover', 'old engine', 'new engine'],
  },
  'mobile-launch': {
    name: 'Mobile app launch',
    kind: 'project',
    raisedBy: 'tomas',
    cues: ['testflight', 'app store', 'ios', 'android', 'mobile'],
  },
  'eu-residency': {
    name: 'EU data residency (Frankfurt region)',
    kind: 'project',
    raisedBy: 'grace',
    cues: ['frankfurt', 'in the eu', 'inside the eu', 'region'],
  },
  halvorsen: { name: 'Halvorsen Logistics', kind: 'account', raisedBy: 'grace', cues: ['halvorsen'] },
  brightwater: { name: 'Brightwater Clinics', kind: 'account', raisedBy: 'tomas', cues: ['brightwater'] },
  'orchard-pike': { name: 'Orchard & Pike', kind: 'account', raisedBy: 'sam', cues: ['orchard & pike'] },
  reminders: {
    name: 'Overdue payment reminders',
    kind: 'theme',
    raisedBy: 'daniel',
    cues: ['reminder', 'overdue', 'notice'],
  },
  proration: {
    name: 'Grandfathered plans and proration',
    kind: 'theme',
    raisedBy: 'priya',
    cues: ['proration', 'prorate', '2022 plans'],
  },
  'on-call': { name: 'On-call and incident follow-up', kind: 'theme', raisedBy: 'tomas', cues: ['on call', 'on-call'] },
};

/** Atlas: the AI teammate of a product and engineering team building a B2B invoicing product (Teams). */
export const ATLAS: DemoDeploymentContent<AtlasPerson, AtlasTopic> = {
  name: 'Atlas',
  platform: 'teams',
  voice: 'en-US-AvaNeural',
  people: PEOPLE,
  topics: TOPICS,
  meetings: [...ATLAS_EARLY_MEETINGS, ...ATLAS_LATE_MEETINGS],
};
