export { PUBLIC_BACKENDS_ONLY, addressRefusal, classifyAddress, type AddressClass, type BackendNetworkPolicy } from './address-policy.js';
export { backendUrlProblem } from './backend-url.js';
export { BackendAddressError, guardedLookup, systemResolver, type Resolver } from './guarded-lookup.js';
export {
  MAX_REQUEST_BYTES,
  MAX_TOOL_CALLS_PER_ROUND,
  createBackendInvoker,
  defaultSystemPrompt,
  type AskInput,
  type BackendInvoker,
  type BackendInvokerOptions,
  type InvocationLogEntry,
  type MemorySearch,
} from './invoker.js';
