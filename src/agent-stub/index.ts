// The reference agent backend and the contract checker. Imports only src/contract, so customers can read it as a
// self-contained example of a backend's side of the agent backend contract.
//
// What the stub answers, checked in this order (every refusal is an application/problem+json body
// `{ type: "urn:meeting-memory:agent-stub:<slug>", status, detail }`):
//   405 method-not-allowed, 415 unsupported-media-type, 413 too-large (over 1 MB by default),
//   401 bad-signature (missing or wrong x-service-signature; checked before the body is parsed),
//   400 invalid-json / invalid-request (detail names the fields),
//   401 stale-request (metadata.sent_at further than max-age from now, either way: freshness is part of
//       authenticating a request, like the signature),
//   409 replayed-request (the same invocation_id and round again within the freshness window),
//   503 replay-cache-full (rather than forgetting a live entry), 502 upstream-error (forward mode),
//   504 budget-exceeded (no answer within metadata.timeout_ms), 200 with a BackendResponse otherwise.
export { formatCallLog, type CallLogEntry } from './call-log.js';
export { CannedFileError, loadCannedReplies, type CannedReplies } from './canned-mode.js';
export { CheckConfigError, checkAgentBackend, formatRuleOutcome, type CheckOptions, type RuleOutcome } from './check.js';
export type { ForwardTarget } from './forward-mode.js';
export { isLoopbackHost } from './loopback.js';
export type { StubMode } from './modes.js';
export { SecretReferenceError, resolveSecretReference } from '../contract/secret-reference.js';
export { SECRET_ENV_VAR, resolveSecretOption } from './secret-reference.js';
export { AGENT_STUB_DEFAULTS, AgentStubConfigError, startAgentStub, type AgentStub, type AgentStubOptions } from './server.js';
