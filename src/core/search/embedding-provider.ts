/** Where embeddings come from: any service that turns texts into vectors of one fixed length. */
export interface EmbeddingProvider {
  /** The model name; with the vectors' length it names the embedding space. */
  readonly model: string;
  /** Where requests go, for messages (never carries the key). */
  readonly endpoint: string;
  /** One vector per text, in order. Rejects with an EmbeddingError. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/**
 * Why embedding failed. `input`: the service refused these texts (a 4xx other than auth, rate and not-found), so
 * retrying them as they are will fail again. `provider`: the service is unreachable, overloaded, misconfigured or
 * answered nonsense; the same texts may succeed later.
 */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly kind: 'input' | 'provider',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

/**
 * The name of the space a provider's vectors live in. Vectors of different models or lengths are never compared;
 * a core that starts with another model queues every record to be embedded again.
 */
export function embeddingSpace(model: string, dimensions: number): string {
  return `${model}@${dimensions}`;
}
