export { registerAuditLog, auditEntryForWrite, auditEntryOf, recordApiCall, unparsedRequestEntry } from './audit-hook.js';
export { canonicalAuditContent, chainHash, GENESIS_HASH } from './chain.js';
export { AuditQueryInput, auditEntryView, queryAuditLog, type AuditEntryView } from './query.js';
export {
  AuditRetentionInput,
  DEFAULT_RETENTION,
  getAuditRetention,
  retentionView,
  runAuditRetention,
  scheduleAuditRetention,
  setAuditRetention,
  type AuditRetentionView,
} from './retention.js';
export { auditVerificationView, verifyAuditChain, verifyAuditInDataDir, type AuditVerificationView } from './verify.js';
