import type { Deployment } from '../contract/index.js';
import { createMemoryClient, type MemoryClientOptions } from './client.js';

export { createAdminClient, type AdminClient, type AdminOperationMethods } from './admin-client.js';
export {
  createMemoryClient,
  createOperationCaller,
  normalizeBaseUrl,
  type CallOptions,
  type OperationCaller,
  type UploadBody,
  type MemoryClient,
  type MemoryClientOptions,
  type OperationMethods,
  type PageItem,
  type PageableName,
  type TokenSource,
} from './client.js';
export { MemoryApiError, MemoryClientError, MemoryConnectionError, MemoryOutcomeUnknownError } from './errors.js';
export { buildRequest, type BuiltRequest } from './request.js';
export type { TransportKind } from './transport.js';
export type { RetryOptions } from './retry.js';
export type {
  ActionItem,
  Attribution,
  Decision,
  Deployment,
  InvalidParam,
  Meeting,
  OpenQuestion,
  OperationInput,
  OperationName,
  OperationOutput,
  ProblemDocument,
  SearchEnvelope,
  SearchResult,
  Statement,
  Topic,
} from '../contract/index.js';
export type {
  AdminDeployment,
  AgentBackendRecord,
  AuditEntryRecord,
  GrantRecord,
  IssuedCredential,
  MeetingImportResult,
  PersonRecord,
  PrincipalRecord,
  TenantRecord,
  V1ScheduleRecord,
} from '../contract/admin-records.js';
export type { AdminOperationInput, AdminOperationName, AdminOperationOutput } from '../contract/admin-operations.js';
export type { MeetingDocumentInput } from '../contract/admin-meeting-document.js';

/**
 * The deployments (named teammates) the token's principal may reach, with the access level of each grant:
 * `GET {baseUrl}/deployments` on a short-lived client. For a sign-in check or a deployment picker.
 */
export async function fetchDeployments(options: MemoryClientOptions): Promise<Deployment[]> {
  const client = createMemoryClient(options);
  try {
    return (await client.listDeployments()).items;
  } finally {
    await client.close();
  }
}
