import {
  ADMIN_OPERATIONS,
  type AdminOperationInput,
  type AdminOperationName,
  type AdminOperationOutput,
} from '../contract/admin-operations.js';
import {
  createOperationCaller,
  methodsOf,
  type CallOptions,
  type MemoryClientOptions,
  type UploadBody,
} from './client.js';

type AdminArgs<N extends AdminOperationName> = {} extends AdminOperationInput<N>
  ? [input?: AdminOperationInput<N>, options?: CallOptions]
  : [input: AdminOperationInput<N>, options?: CallOptions];

/** One typed method per admin operation but the import, which streams a file (see `importMeeting`). */
export type AdminOperationMethods = {
  [N in Exclude<AdminOperationName, 'importMeeting'>]: (...args: AdminArgs<N>) => Promise<AdminOperationOutput<N>>;
};

export interface AdminClient extends AdminOperationMethods {
  readonly baseUrl: string;
  /** Calls an admin operation by name; the typed methods are this with the name filled in. */
  call<N extends AdminOperationName>(name: N, ...args: AdminArgs<N>): Promise<AdminOperationOutput<N>>;
  /**
   * Imports one meeting: a WebVTT transcript (`text/vtt`, with title and started_at in `input`) or a JSON meeting
   * document (`application/json`), streamed from `file.data` as it is read, never buffered whole.
   */
  importMeeting(
    input: AdminOperationInput<'importMeeting'>,
    file: UploadBody,
    options?: CallOptions,
  ): Promise<AdminOperationOutput<'importMeeting'>>;
  close(): Promise<void>;
}

/**
 * A typed client of the admin surface (`/v1/admin`), one method per operation of the admin table, on the same
 * transport as the memory client (retries, read-back, errors). Its token must be an admin principal's.
 */
export function createAdminClient(options: MemoryClientOptions): AdminClient {
  const caller = createOperationCaller(ADMIN_OPERATIONS, options);
  return {
    ...methodsOf(ADMIN_OPERATIONS, caller),
    baseUrl: caller.baseUrl,
    call: (name: string, input?: object, callOptions?: CallOptions) => caller.call(name, input, callOptions),
    importMeeting: (input: object, file: UploadBody, callOptions?: CallOptions) =>
      caller.upload('importMeeting', input, file, callOptions),
    close: caller.close,
  } as unknown as AdminClient;
}
