export { provisionDemo, type DemoCredentials, type ProvisionDemoOptions } from './provision-demo.js';
export { DEMO_DEPLOYMENTS } from './demo-content.js';
export {
  GUEST,
  attributionOf,
  buildMeetingDocument,
  demoDocuments,
  supportIndexes,
  turnTimes,
  type DemoActionItem,
  type DemoDecision,
  type DemoDeploymentContent,
  type DemoMeeting,
  type DemoPerson,
  type DemoQuestion,
  type DemoTopic,
  type DemoTurn,
  type FollowUp,
  type TurnMarks,
} from './demo-model.js';
